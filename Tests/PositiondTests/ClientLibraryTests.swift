import BeaconfixClient
import FingerprintStore
import Foundation
import Hummingbird
import HummingbirdTesting
import positiond
import ScanFormats
import Testing

/// The generated client library (`BeaconfixClient`) against a real positiond on a real socket: what an
/// app or a scanner rig does through it.
@Suite("BeaconfixClient against a running positiond")
struct ClientLibraryTests {
    /// A walk's lines as the client's sample type.
    static func samples(_ lines: some Sequence<ScanLine>) -> [BeaconfixClient.Components.Schemas.SampleInput] {
        lines.map { line in
            .init(t: line.t, device: line.device, beacons: line.beacons.map { .init(uuid: $0.uuid, major: $0.major, minor: $0.minor, rssi: $0.rssi) })
        }
    }

    @Test("venues, locate, tracked samples and the device's state through the client equal the raw HTTP answers; a refusal arrives as its status with the field named")
    func appJourney() async throws {
        // Given positiond on the demo venue with an app key, listening on a port
        let store = try await TestEnvironment.demoStore()
        let key = try await store.createKey(name: "app", scope: .locate)
        let app = try await TestEnvironment.app(store: store)
        let walk = try TestEnvironment.walk
        try await app.test(.live) { raw in
            let port = try #require(raw.port)
            let beaconfix = Client(serverURL: URL(string: "http://127.0.0.1:\(port)")!, apiKey: key.token)
            // When the app lists the venues and opens demo-hall
            let venues = try await beaconfix.listVenues().ok.body.json.venues
            #expect(venues.map(\.id) == ["demo-hall"])
            let venue = try await beaconfix.getVenue(path: .init(venue: "demo-hall")).ok.body.json
            #expect(venue.spots.count == 60 && venue.floors.count == 2)
            // And locates five samples
            let located = try await beaconfix.locate(
                path: .init(venue: "demo-hall"), body: .json(.init(samples: Self.samples(walk[0..<5])))).ok.body.json
            // Then the answer is the one a hand-built request gets
            let rawLocate = try await raw.call(.post, "/v1/venues/demo-hall/locate", body: TestEnvironment.body(Array(walk[0..<5])), token: key.token)
            let rawJSON = try #require(try JSONSerialization.jsonObject(with: Data(buffer: rawLocate.body)) as? [String: Any])
            let rawPosition = try #require(rawJSON["position"] as? [String: Any])
            let position = try #require(located.position)
            // To a nanometre: JSONSerialization on Linux parses some 17-digit numbers one unit in the last place
            // away from JSONDecoder's reading of the same text (3.1169851359470537 printed alike by both).
            let rawX = try #require(rawPosition["x"] as? Double), rawY = try #require(rawPosition["y"] as? Double)
            #expect(abs(position.x - rawX) <= 1e-9 && abs(position.y - rawY) <= 1e-9, "client \(position.x), \(position.y); raw \(rawX), \(rawY)")
            #expect(position.spot == rawPosition["spot"] as? String && located.revision == rawJSON["revision"] as? Int)
            // When a phone's samples are posted one by one, as a tracker sends them
            var tracked: BeaconfixClient.Components.Schemas.Device?
            for line in walk[0..<6] {
                tracked = try await beaconfix.postDeviceSamples(
                    path: .init(venue: "demo-hall", device: "phone-1"), body: .json(.init(samples: Self.samples([line])))).ok.body.json
            }
            // Then the device's state read back is the last answer's position
            let device = try await beaconfix.getDevice(path: .init(venue: "demo-hall", device: "phone-1")).ok.body.json
            #expect(device.position == tracked?.position && device.windowSamples == tracked?.windowSamples)
            #expect(device.position != nil)
            // When a sample carries an RSSI no radio reports
            var bad = Self.samples(walk[0..<1])
            bad[0].beacons[0].rssi = 40
            let refused = try await beaconfix.locate(path: .init(venue: "demo-hall"), body: .json(.init(samples: bad)))
            // Then it arrives as the 422 case, its message naming the field
            guard case .unprocessableContent(let problem) = refused else {
                Issue.record("expected a 422, got \(refused)")
                return
            }
            let message = try problem.body.json.error.message
            #expect(message.contains("samples[0]") && message.contains("beacons[0].rssi"), "\(message)")
            // And without the key the same call is the 401 case
            let anonymous = Client(serverURL: URL(string: "http://127.0.0.1:\(port)")!, apiKey: nil)
            guard case .unauthorized = try await anonymous.listVenues() else {
                Issue.record("a call without a key must be refused")
                return
            }
        }
    }
}
