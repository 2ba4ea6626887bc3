import Positioning
import Testing

@Suite("Walking surveys: placing samples along the walked path")
struct WalkedPathTests {
    /// 10 m east in 10 s, then round a corner to (10, 10) through (10, 0)... on floor 0, then upstairs.
    static let path = try! WalkedPath(checkpoints: [
        Checkpoint(time: 100, position: FloorPoint(x: 0, y: 0, floor: 0)),
        Checkpoint(time: 110, position: FloorPoint(x: 10, y: 0, floor: 0)),
        Checkpoint(time: 130, position: FloorPoint(x: 20, y: 10, floor: 0), via: [PlanarPoint(x: 20, y: 0)]),
        Checkpoint(time: 160, position: FloorPoint(x: 20, y: 10, floor: 1)),
    ])

    @Test("a sample is placed by the share of its segment's time, along the straight line")
    func straightSegment() {
        // Given a walk 10 m east in 10 s
        // Then a sample 2.5 s in is 2.5 m along, and one at a checkpoint's time is on it
        #expect(Self.path.placement(at: 102.5) == .placed(FloorPoint(x: 2.5, y: 0, floor: 0)))
        #expect(Self.path.placement(at: 100) == .placed(FloorPoint(x: 0, y: 0, floor: 0)))
        #expect(Self.path.placement(at: 110) == .placed(FloorPoint(x: 10, y: 0, floor: 0)))
    }

    @Test("a segment through corners is walked along its polyline, by length")
    func polyline() {
        // Given the second segment: 10 m east to the corner, then 10 m north, in 20 s
        // Then a quarter of its time is 5 m east, and three quarters are 5 m up the second leg
        #expect(Self.path.placement(at: 115) == .placed(FloorPoint(x: 15, y: 0, floor: 0)))
        #expect(Self.path.placement(at: 125) == .placed(FloorPoint(x: 20, y: 5, floor: 0)))
    }

    @Test("samples outside the checkpoints or between floors are not placed, and say why")
    func unplaceable() {
        #expect(Self.path.placement(at: 99.9) == .beforeFirstCheckpoint)
        #expect(Self.path.placement(at: 160.1) == .afterLastCheckpoint)
        #expect(Self.path.placement(at: 145) == .betweenFloors)
        // And the last checkpoint's own moment is on it, upstairs
        #expect(Self.path.placement(at: 160) == .placed(FloorPoint(x: 20, y: 10, floor: 1)))
    }

    @Test("checkpoints out of time order, repeated times, numbers that are not finite and no checkpoint are refused, naming the checkpoint")
    func refusals() {
        let origin = FloorPoint(x: 0, y: 0, floor: 0)
        #expect(throws: WalkedPathError.empty) { try WalkedPath(checkpoints: []) }
        #expect(throws: WalkedPathError.notIncreasing(index: 1, time: 5, previous: 5)) {
            try WalkedPath(checkpoints: [Checkpoint(time: 5, position: origin), Checkpoint(time: 5, position: origin)])
        }
        #expect(throws: WalkedPathError.notFinite(index: 0)) {
            try WalkedPath(checkpoints: [Checkpoint(time: 5, position: origin, via: [PlanarPoint(x: .nan, y: 0)])])
        }
        #expect(WalkedPathError.notIncreasing(index: 1, time: 5, previous: 5).description.contains("checkpoint 2"))
    }

    @Test("standing still between two checkpoints places every sample on the spot")
    func standingStill() throws {
        let spot = FloorPoint(x: 3, y: 4, floor: 2)
        let path = try WalkedPath(checkpoints: [Checkpoint(time: 0, position: spot), Checkpoint(time: 30, position: spot)])
        #expect(path.placement(at: 17) == .placed(spot))
    }

    @Test("a placed sample joins the venue's nearest spot within the snap distance, otherwise its grid cell")
    func spotAssignment() {
        // Given a venue with two spots on floor 0 and none on floor 1
        let assignment = WalkSpotAssignment(
            spots: [Spot(name: "door", x: 0, y: 0, floor: 0), Spot(name: "desk", x: 1, y: 0, floor: 0)], cellSize: 2, snapDistance: 0.5)
        // Then a point 0.3 m from the desk joins it, with the desk's coordinates
        #expect(assignment.truth(at: FloorPoint(x: 0.7, y: 0, floor: 0)) == GroundTruth(spot: "desk", x: 1, y: 0, floor: 0))
        // And a point far from both goes to the centre of its 2 m cell, named by its coordinates
        let cell = assignment.truth(at: FloorPoint(x: 5.2, y: -0.4, floor: 0))
        #expect(cell == GroundTruth(spot: nil, x: 5, y: -1, floor: 0))
        #expect(cell.spotName == "5.0,-1.0,0")
        // And the same point upstairs, where the venue has no spot, goes to its cell too
        #expect(assignment.truth(at: FloorPoint(x: 0.1, y: 0, floor: 1)) == GroundTruth(spot: nil, x: 1, y: 1, floor: 1))
    }
}
