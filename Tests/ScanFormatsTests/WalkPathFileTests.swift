import Foundation
import Positioning
import ScanFormats
import Testing

@Suite("Walking surveys: the path file")
struct WalkPathFileTests {
    static let spots = [Spot(name: "door", x: 1, y: 2, floor: 0), Spot(name: "stage", x: 9, y: 4, floor: 1)]

    @Test("checkpoints by spot name or by coordinates, with corners walked through; blank lines ignored")
    func reads() throws {
        // Given a path file mixing the two kinds of checkpoint
        let file = """
            {"t": 100, "spot": "door"}

            {"t": 110.5, "x": 6, "y": 2, "via": [[4, 0], [6, 0]]}
            {"t": 140, "spot": "stage"}
            """
        // When read against the venue's spots
        let path = try WalkPathFile.path(from: Data(file.utf8), spots: Self.spots)
        // Then the spot is resolved, a point without a floor is on floor 0, and the corners are kept
        #expect(path.checkpoints == [
            Checkpoint(time: 100, position: FloorPoint(x: 1, y: 2, floor: 0)),
            Checkpoint(time: 110.5, position: FloorPoint(x: 6, y: 2, floor: 0), via: [PlanarPoint(x: 4, y: 0), PlanarPoint(x: 6, y: 0)]),
            Checkpoint(time: 140, position: FloorPoint(x: 9, y: 4, floor: 1)),
        ])
    }

    @Test("bad lines are refused with their line number and a sentence", arguments: [
        (#"{"t": 1, "spot": "nowhere"}"#, 1, "the venue has no spot 'nowhere'"),
        (#"{"t": 1, "spot": "door", "x": 1, "y": 1}"#, 1, "not both"),
        (#"{"t": 1}"#, 1, "needs a 'spot'"),
        (#"{"spot": "door"}"#, 1, "'t'"),
        ("{\"t\": 5, \"spot\": \"door\"}\n{\"t\": 4, \"spot\": \"door\"}", 2, "not later than the one before"),
        (#"{"t": 1, "x": 1, "y": 2, "via": [[1]]}"#, 1, "'via[0]' must be [x, y]"),
        (#"{"t": 1, "x": 1e9, "y": 2}"#, 1, "within 100 km"),
        ("\n\n", 1, "holds no checkpoint"),
        ("[1,", 1, "not valid JSON"),
    ])
    func refusals(file: String, line: Int, message: String) {
        do {
            _ = try WalkPathFile.path(from: Data(file.utf8), spots: Self.spots)
            Issue.record("\(file) must be refused")
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }
}
