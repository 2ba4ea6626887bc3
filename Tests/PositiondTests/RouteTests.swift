import ScanFormats
import FingerprintStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Positioning
import positiond
import Testing
import VenueSimulator

@Suite("positiond routes")
struct RouteTests {
    @Test("health, readiness, metrics and the OpenAPI document")
    func operationalRoutes() async throws {
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        try await app.test(.router) { client in
            let health = try await client.call(.get, "/healthz")
            #expect(health.status == .ok)
            let ready = try await client.call(.get, "/readyz")
            #expect(ready.status == .ok)
            #expect((ready.json["venues"] as? [String: Int])?["demo-hall"] == 3)
            let document = try await client.call(.get, "/openapi.json")
            #expect((document.json["openapi"] as? String) == "3.1.0")
            #expect((document.json["paths"] as? [String: Any])?.count == 35)
            // A locate, so that the metrics have something to say
            _ = try await client.call(.post, "/v1/venues/demo-hall/locate", body: TestEnvironment.body([try TestEnvironment.walk[2]]))
            let metrics = try await client.call(.get, "/metrics")
            #expect(metrics.status == .ok)
            let missing = [
                #"beaconfix_locate_total{outcome="located",route="locate"}"#, #"beaconfix_radio_map_revision{venue="demo-hall"}"#,
                "beaconfix_devices_tracked", "hb_requests", "http_server_request_duration",
            ].filter { !metrics.text.contains($0) }
            #expect(missing.isEmpty, "missing from /metrics: \(missing)")
        }
    }

    @Test("venues: list, detail, unknown venue")
    func venues() async throws {
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        try await app.test(.router) { client in
            let list = try await client.call(.get, "/v1/venues")
            #expect(list.status == .ok)
            #expect(((list.json["venues"] as? [[String: Any]])?.first?["id"] as? String) == "demo-hall")
            let venue = try await client.call(.get, "/v1/venues/demo-hall")
            #expect((venue.json["spots"] as? [Any])?.count == 60)
            #expect((venue.json["beacons"] as? [Any])?.count == 20)
            #expect((venue.json["floors"] as? [Any])?.count == 2)
            let missing = try await client.call(.get, "/v1/venues/atlantis")
            #expect(missing.status == .notFound)
            #expect(missing.errorMessage == "there is no venue 'atlantis'")
        }
    }

    @Test("locate: a walk sample is located with its revision and candidates")
    func locate() async throws {
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        let walk = try TestEnvironment.walk
        try await app.test(.router) { client in
            // Given five consecutive samples at one stop of the walk
            let response = try await client.call(.post, "/v1/venues/demo-hall/locate", body: TestEnvironment.body(Array(walk[0..<5])))
            // Then the answer is located, near the truth, with the revision used
            #expect(response.status == .ok)
            #expect(response.json["status"] as? String == "located")
            #expect(response.json["revision"] as? Int == 3)
            let position = try #require(response.json["position"] as? [String: Any])
            let dx = (position["x"] as! Double) - walk[0].x!, dy = (position["y"] as! Double) - walk[0].y!
            #expect((dx * dx + dy * dy).squareRoot() < 8)
            #expect(position["floor"] as? Int == 0)
            #expect((response.json["candidates"] as? [Any])?.count == 5)
            // And it carries its covariance, whose 68% circle is the accuracy radius
            let covariance = try #require(position["covariance_m2"] as? [String: Double])
            let xx = try #require(covariance["xx"]), xy = try #require(covariance["xy"]), yy = try #require(covariance["yy"])
            #expect(xx >= 0 && yy >= 0 && xy * xy <= xx * yy * (1 + 1e-9))
            let accuracy = try #require(position["accuracy_m"] as? Double)
            #expect(abs(PositionCovariance.radiusFactor * (xx + yy).squareRoot() - accuracy) < 1e-6 * accuracy)
        }
    }

    @Test("locate refuses bad input with the right status and a clear message", arguments: [
        ("{\"samples\": [", 400, "malformed JSON"),
        ("{\"sample\": []}", 400, "missing field 'samples'"),
        ("{\"samples\": []}", 422, "holds no sample"),
        ("{\"samples\": [{\"beacons\": []}]}", 422, "no known beacon"),
        ("{\"samples\": [{\"beacons\": [{\"uuid\": \"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\", \"major\": 1, \"minor\": 1, \"rssi\": -60}]}]}", 422, "none of the 1 beacons heard"),
        ("{\"samples\": [{\"beacons\": [{\"uuid\": \"B9407F30-F5F8-466E-AFF9-25556B57FE6D\", \"major\": 1, \"minor\": 1, \"rssi\": 50}]}]}", 422, "outside -127...20 dBm"),
        ("{\"samples\": [{\"beacons\": [{\"uuid\": \"nope\", \"major\": 1, \"minor\": 1, \"rssi\": -60}]}]}", 422, "is not a UUID"),
        ("{\"samples\": [{\"beacons\": [{\"uuid\": \"B9407F30-F5F8-466E-AFF9-25556B57FE6D\", \"major\": 1, \"minor\": 1, \"rssi\": 0}]}]}", 422, "no known beacon"),
        ("{\"samples\": [{\"t\": \"soon\", \"beacons\": []}]}", 400, "'samples[0].t'"),
    ])
    func locateErrors(body: String, status: Int, message: String) async throws {
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        try await app.test(.router) { client in
            let response = try await client.call(.post, "/v1/venues/demo-hall/locate", body: body)
            #expect(Int(response.status.code) == status)
            #expect(response.errorMessage.contains(message), "\(response.errorMessage)")
        }
    }

    @Test("limits: body size 413, samples and readings per request 422")
    func limits() async throws {
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        let walk = try TestEnvironment.walk
        try await app.test(.router) { client in
            let tooManySamples = try await client.call(.post, "/v1/venues/demo-hall/locate", body: TestEnvironment.body(Array(walk[0..<21])))
            #expect(tooManySamples.status == .unprocessableContent)
            #expect(tooManySamples.errorMessage.contains("at most 20 are accepted"))
            var crowded = walk[0]
            crowded.beacons = Array(repeating: walk[0].beacons[0], count: 51)
            let tooManyReadings = try await client.call(.post, "/v1/venues/demo-hall/locate", body: TestEnvironment.body([crowded]))
            #expect(tooManyReadings.status == .unprocessableContent)
            #expect(tooManyReadings.errorMessage.contains("51 readings"))
            let huge = "{\"samples\": [], \"padding\": \"" + String(repeating: "x", count: 70_000) + "\"}"
            let tooLarge = try await client.call(.post, "/v1/venues/demo-hall/locate", body: huge)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(tooLarge.errorMessage.contains("larger than 65536 bytes"))
        }
    }

    @Test("X-Request-ID is taken from the request or made up, and returned, errors included")
    func requestID() async throws {
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        try await app.test(.router) { client in
            let given = try await client.call(.get, "/v1/venues", headers: [RequestIDMiddleware.header: "abc-123"])
            #expect(given.headers[RequestIDMiddleware.header] == "abc-123")
            let made = try await client.call(.get, "/healthz")
            #expect(made.headers[RequestIDMiddleware.header]?.count == 36)
            let failed = try await client.call(.get, "/v1/venues/nowhere", headers: [RequestIDMiddleware.header: "req-9"])
            #expect(failed.status == .notFound)
            #expect(failed.headers[RequestIDMiddleware.header] == "req-9")
        }
    }

    @Test("a device id is percent-decoded the same on every route: posted as caf%C3%A9, read back as café")
    func percentEncodedDevice() async throws {
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        let walk = try TestEnvironment.walk
        try await app.test(.router) { client in
            // Given samples posted for a device whose id is encoded in the path
            let posted = try await client.call(.post, "/v1/venues/demo-hall/devices/caf%C3%A9/samples", body: TestEnvironment.body(Array(walk[0..<3])))
            // Then the answer names it decoded, and the generated GET route finds it by the same id
            #expect(posted.status == .ok)
            #expect(posted.json["device"] as? String == "café")
            let read = try await client.call(.get, "/v1/venues/demo-hall/devices/caf%C3%A9")
            #expect(read.status == .ok && read.json["device"] as? String == "café")
            // And a broken encoding is a 400 that says so
            let broken = try await client.call(.post, "/v1/venues/demo-hall/devices/caf%ZZ/samples", body: TestEnvironment.body([walk[0]]))
            #expect(broken.status == .badRequest)
            #expect(broken.errorMessage.contains("not valid percent-encoding"), "\(broken.errorMessage)")
        }
    }

    @Test("tracked samples: smoothed position, zone events, last position, forgetting")
    func trackedSamples() async throws {
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        let walk = try TestEnvironment.walk
        try await app.test(.router) { client in
            // Given the walk's first 10 samples posted one at a time for device phone-1
            var zones: [String] = []
            var last: TestResponse?
            for line in walk[0..<10] {
                let response = try await client.call(.post, "/v1/venues/demo-hall/devices/phone-1/samples", body: TestEnvironment.body([line]))
                #expect(response.status == .ok)
                zones += (response.json["events"] as? [[String: Any]] ?? []).compactMap { $0["zone"] as? String }
                last = response
            }
            // Then the device is located in the entrance, entered once
            let state = try #require(last)
            #expect(state.json["status"] as? String == "located")
            #expect(state.json["zone"] as? String == "Entrance")
            #expect(zones == ["Entrance"])
            #expect((state.json["window_samples"] as? Int ?? 0) > 1, "recent samples are merged")
            // And its last position can be read back
            let read = try await client.call(.get, "/v1/venues/demo-hall/devices/phone-1")
            #expect(read.status == .ok)
            #expect((read.json["position"] as? [String: Any])?["x"] as? Double == (state.json["position"] as? [String: Any])?["x"] as? Double)
            // And unknown devices are 404, bad device ids 422
            let unknown = try await client.call(.get, "/v1/venues/demo-hall/devices/phone-2")
            #expect(unknown.status == .notFound)
            let unknownVenue = try await client.call(.post, "/v1/venues/atlantis/devices/phone-1/samples", body: TestEnvironment.body([walk[0]]))
            #expect(unknownVenue.status == .notFound)
            let nothing = try await client.call(.post, "/v1/venues/demo-hall/devices/phone-1/samples", body: "{\"samples\": [{\"beacons\": []}]}")
            #expect(nothing.status == .unprocessableContent)
        }
    }

    @Test("proximity: the significantly nearest beacon names its spot; otherwise candidates")
    func proximity() async throws {
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        let uuid = SimulatedVenues.uuid
        @Sendable func sample(_ near: Int, _ nearRSSI: Int, _ other: Int, _ otherRSSI: Int) -> String {
            #"{"beacons": [{"uuid": "\#(uuid)", "major": 1, "minor": \#(near), "rssi": \#(nearRSSI)}, {"uuid": "\#(uuid)", "major": 1, "minor": \#(other), "rssi": \#(otherRSSI)}]}"#
        }
        try await app.test(.router) { client in
            // Beacon 1 hangs at (3, 3), next to spot G-A1 at (3, 2.5)
            let clear = "{\"samples\": [" + (0..<5).map { sample(1, -55 - $0 % 2, 3, -72) }.joined(separator: ",") + "]}"
            let decided = try await client.call(.post, "/v1/venues/demo-hall/proximity", body: clear)
            #expect(decided.json["decision"] as? String == "nearest")
            #expect((decided.json["spot"] as? [String: Any])?["name"] as? String == "G-A1")
            #expect(decided.json["beacon"] as? String == "\(uuid):1:1")
            let close = "{\"samples\": [" + (0..<5).map { _ in sample(1, -60, 3, -62) }.joined(separator: ",") + "]}"
            let undecided = try await client.call(.post, "/v1/venues/demo-hall/proximity", body: close)
            #expect(undecided.json["decision"] as? String == "undecided")
            #expect((undecided.json["candidates"] as? [Any])?.count == 2)
            let foreign = try await client.call(
                .post, "/v1/venues/demo-hall/proximity",
                body: #"{"samples": [{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 1, "rssi": -50}]}]}"#)
            #expect(foreign.status == .unprocessableContent)
        }
    }
}
