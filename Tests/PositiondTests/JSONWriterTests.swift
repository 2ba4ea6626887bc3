import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Positioning
import positiond
import Testing

@Suite("hand-written JSON of the hot answers")
struct JSONWriterTests {
    static let spots = [
        Spot(name: "a \"quoted\" spot\\", x: 1.5, y: 2, floor: 0, zone: "Zone\nwith newline"),
        Spot(name: "b", x: 3, y: 0.1, floor: 1, zone: nil),
    ]

    static let results: [LocationResult] = [
        LocationResult(
            outcome: .located(
                Position(
                    x: 1.25, y: 2.0000001, floor: 0, accuracy: 3.5, spot: "a \"quoted\" spot\\", zone: "Zé",
                    covariance: PositionCovariance(xx: 4.25, xy: -0.125, yy: 1e-7))),
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

    /// The first case of each test has a geo-anchored venue, so `lat`/`lon` are written too.
    static func anchor(_ index: Int) -> GeoAnchor? {
        index == 0 ? GeoAnchor(lat: 52.5161, lon: 13.3777, bearing: 17.5) : nil
    }

    @Test("writes exactly the bytes JSONEncoder writes for the generated Locate", arguments: 0..<3)
    func locateBytes(index: Int) throws {
        // Given a generated Locate of an awkward result (quotes, backslashes, newlines, accents, no zone, lat/lon, a covariance)
        let locate = Components.Schemas.Locate(venue: "hall \"1\"", result: Self.results[index], revision: 4, anchor: Self.anchor(index))
        // When JSONWriter and JSONEncoder write it
        let written = Data(buffer: JSONWriter.bytes(of: locate))
        let encoded = try APIJSON.encoder.encode(locate)
        // Then the bytes are the same, and they decode back into the same value
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
        #expect(try APIJSON.decoder.decode(Components.Schemas.Locate.self, from: written) == locate)
    }

    @Test("writes exactly the bytes JSONEncoder writes for the generated Device", arguments: 0..<3)
    func deviceBytes(index: Int) throws {
        // Given a generated Device with events, stuck beacons, and with or without a position, zone, lat/lon and covariance
        let position = Components.Schemas.Position(
            Position(
                x: 0.1, y: 1e-7, floor: 1, accuracy: 12.75, spot: "b", zone: index == 0 ? "Zé" : nil,
                covariance: index == 1 ? nil : PositionCovariance(xx: 60.5, xy: 3.0000001, yy: 82)),
            anchor: Self.anchor(index))
        let device = Components.Schemas.Device(
            venue: "v", device: "phone \\ 1", revision: 7, time: 1_795_000_000.25, status: index == 2 ? .unknown : .located,
            position: index == 2 ? nil : position, zone: index == 0 ? "Zé" : nil,
            events: index == 0 ? [.init(kind: .exit, zone: "A", time: 1.5), .init(kind: .enter, zone: "Zé", time: 2)] : [],
            raw: .init(Self.results[index], revision: 7, anchor: Self.anchor(index)),
            stuckBeacons: index == 1 ? ["E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2"] : [], windowSamples: index + 1)
        // When JSONWriter and JSONEncoder write it
        let written = Data(buffer: JSONWriter.bytes(of: device))
        let encoded = try APIJSON.encoder.encode(device)
        // Then the bytes are the same, and they decode back into the same value
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
        #expect(try APIJSON.decoder.decode(Components.Schemas.Device.self, from: written) == device)
    }
}
