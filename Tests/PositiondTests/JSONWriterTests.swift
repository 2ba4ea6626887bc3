import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Positioning
@testable import positiond
import Testing

@Suite("hand-written JSON of the locate response")
struct JSONWriterTests {
    static let spots = [
        Spot(name: "a \"quoted\" spot\\", x: 1.5, y: 2, floor: 0, zone: "Zone\nwith newline"),
        Spot(name: "b", x: 3, y: 0.1, floor: 1, zone: nil),
    ]

    static let results: [LocationResult] = [
        LocationResult(
            outcome: .located(Position(x: 1.25, y: 2.0000001, floor: 0, accuracy: 3.5, spot: "a \"quoted\" spot\\", zone: "Zé")),
            candidates: [
                SpotCandidate(spotIndex: 0, spot: spots[0], distance: 0.125),
                SpotCandidate(spotIndex: 1, spot: spots[1], distance: 0.3333333),
            ],
            matchedBeacons: 7, unmappedBeacons: [try! BeaconID(parsing: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2")]),
        LocationResult(
            outcome: .unknown(.tooFar(distance: 0.31, threshold: 0.25)), candidates: [SpotCandidate(spotIndex: 1, spot: spots[1], distance: 0.31)],
            matchedBeacons: 1, unmappedBeacons: []),
        LocationResult(outcome: .unknown(.noCommonBeacon), candidates: [], matchedBeacons: 2, unmappedBeacons: []),
    ]

    @Test("writes exactly the bytes JSONEncoder writes", arguments: 0..<3)
    func sameBytesAsJSONEncoder(index: Int) throws {
        let response = LocateResponse(venue: "hall \"1\"", report: LocationReport(Self.results[index], revision: 4), revision: 4)
        let encoded = try APIJSON.encoder.encode(response)
        var writer = JSONWriter()
        writer.object { json in json.reportMembers(LocationReport(Self.results[index], revision: 4), revision: 4, venue: "hall \"1\"") }
        let written = Data(buffer: writer.buffer)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
    }
}
