import FingerprintStore
import Foundation
import Positioning
import PositioningTuning
import ScanFormats
import Testing
import VenueSimulator

@Suite("Recording a walking survey")
struct WalkingSurveyTests {
    /// Ten minutes of one surveyor walking demo-hall's spots, tapping a checkpoint at each.
    static func simulatedWalk() throws -> (lines: [ScanLine], checkpoints: [Checkpoint], truth: [FloorPoint], venue: SimulatedVenue) {
        let venue = try SimulatedVenues.demoHall(seed: 7)
        var generator = SeededGenerator(seed: 11)
        let stops = venue.definition.spots.map { SimulatedStop(name: $0.name, x: $0.x, y: $0.y, floor: $0.floor) }
        let walk = venue.walkingSurvey(
            stops: stops, device: SimulatedVenues.surveyDevices[0], seconds: 600, startTime: 1_795_000_000, using: &generator)
        return (walk.lines, walk.checkpoints, walk.truth, venue)
    }

    static func jsonLines(_ lines: [ScanLine]) throws -> Data {
        let encoder = JSONEncoder()
        var data = Data()
        for line in lines {
            data.append(try encoder.encode(line))
            data.append(UInt8(ascii: "\n"))
        }
        return data
    }

    @Test("the walk places its samples near where they were taken, and leaves out those on the stairs and after the last tap")
    func placementError() throws {
        // Given ten minutes of a simulated surveyor whose pace swings within each leg and whose taps are late or early
        let walk = try Self.simulatedWalk()
        let path = try WalkedPath(checkpoints: walk.checkpoints)
        // When each sample is placed by its time
        var errors: [Double] = []
        var betweenFloors = 0
        var wrongFloor = 0
        for (line, truth) in zip(walk.lines, walk.truth) {
            switch path.placement(at: line.t) {
            case .placed(let point):
                if point.floor != truth.floor { wrongFloor += 1; continue }
                errors.append(((point.x - truth.x) * (point.x - truth.x) + (point.y - truth.y) * (point.y - truth.y)).squareRoot())
            case .betweenFloors: betweenFloors += 1
            case .beforeFirstCheckpoint, .afterLastCheckpoint: break
            }
        }
        // Then nearly every sample is placed, within a metre on average (the spots are 3 to 5 m apart)
        #expect(errors.count > walk.lines.count * 9 / 10)
        let mean = errors.reduce(0, +) / Double(errors.count)
        #expect(mean < 1, "mean placement error \(mean) m")
        // And the climb between the two floors (20 s of samples) is left out, but for a sample or two taken
        // the moment before a tap that came early, which the tap puts upstairs
        #expect(betweenFloors >= 18)
        #expect(wrongFloor <= 2)
    }

    @Test("a walk's lines are recorded exactly as the same lines labelled with their placements", arguments: [3_000, 1 << 20])
    func oneCodePath(pieceBytes: Int) async throws {
        // Given the walk as a scan log without coordinates, and two stores with the demo venue
        let walk = try Self.simulatedWalk()
        let data = try Self.jsonLines(walk.lines)
        let walked = try await ScanLogSamplesTests.demoStore()
        let labelled = try await ScanLogSamplesTests.demoStore()
        let spots = try await walked.venue("demo-hall").spots
        let survey = WalkingSurvey(
            path: try WalkedPath(checkpoints: walk.checkpoints), spots: WalkSpotAssignment(spots: spots, cellSize: 1, snapDistance: 0.5))
        // When one records the log with the path, and the other the same lines labelled by hand with their placements
        let source = ScanLogSamples(data, skipBad: false, walk: survey, pieceBytes: pieceBytes)
        let summary = try await walked.record(from: source, into: "demo-hall", options: ScanLogSamplesTests.options)
        let placed: [LabelledSample] = try walk.lines.compactMap { line in
            guard case .placed(let point) = survey.path.placement(at: line.t) else { return nil }
            return LabelledSample(sample: try line.sample(), truth: survey.spots.truth(at: point))
        }
        let expected = try await labelled.record(placed, into: "demo-hall", options: ScanLogSamplesTests.options)
        // Then both store the same, and the walk's counts add up to the log
        #expect(summary == expected)
        let counts = source.walkPlacements
        #expect(counts.placed == placed.count)
        #expect(counts.placed + counts.leftOut == walk.lines.count)
        #expect(counts.betweenFloors > 0)
        // And samples near a venue spot joined it, the others made cell spots
        #expect(summary.spots.contains { $0.spot == "G-A1" })
        #expect(!summary.spotsCreated.isEmpty)
    }

    @Test("without a path, a line without coordinates is still malformed")
    func noPath() async throws {
        let walk = try Self.simulatedWalk()
        let store = try await ScanLogSamplesTests.demoStore()
        await #expect(throws: MalformedLines.self) {
            try await store.record(from: ScanLogSamples(try await Self.jsonLines(Array(walk.lines.prefix(5))), skipBad: false), into: "demo-hall", options: ScanLogSamplesTests.options)
        }
    }
}
