import FingerprintStore
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import HummingbirdWebSocket
import Positioning
import positiond
import ScanFormats
import Synchronization
import Testing
import TestSupport

/// The beacons' health end to end: a walk posted to the tracked route with a beacon dead, the health
/// service turning it into evidence and states, and what ops and apps see of it.
@Suite("positiond: beacon health from live traffic", .serialized)
struct BeaconHealthRouteTests {
    static func settings() -> Settings {
        // The walk is posted far faster than phones send: every sample is kept as evidence.
        TestEnvironment.settings {
            $0.healthEnabled = true
            $0.healthFlushInterval = .milliseconds(50)
            $0.healthSamplesPerSecond = 1_000_000
        }
    }

    /// demo-hall's walk with beacon G7 (1:7, the one it hears most) gone from every sample.
    static var walkWithoutG7: [ScanLine] {
        get throws {
            try TestEnvironment.walk.map { line in
                var line = line
                line.beacons.removeAll { $0.major == 1 && $0.minor == 7 }
                return line
            }
        }
    }

    /// Texts a socket received.
    final class Inbox: Sendable {
        private let texts = Mutex<[String]>([])
        func add(_ text: String) { texts.withLock { $0.append(text) } }
        var all: [[String: Any]] {
            texts.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
    }

    /// Asks `uri` until `done` holds for its JSON, for at most 30 s (the service beats every 50 ms).
    static func poll(_ uri: String, client: some TestClientProtocol, token: String? = nil, until done: ([String: Any]) -> Bool) async throws -> [String: Any] {
        try await eventually("\(uri) answering as expected", timeout: .seconds(30), every: .milliseconds(100)) {
            let json = try await client.call(.get, uri, token: token).json
            return done(json) ? json : nil
        }
    }

    static func beacon(_ label: String, in report: [String: Any]) -> [String: Any]? {
        (report["beacons"] as? [[String: Any]])?.first { $0["label"] as? String == label }
    }

    @Test("a dead beacon named from tracked samples: the route, its history, the live feed, the gauges and matching", .timeLimit(.minutes(10)))
    func deadBeaconNamed() async throws {
        // Given demo-hall served, and a socket following the whole venue
        let store = try await TestEnvironment.demoStore()
        let app = try await TestEnvironment.app(store: store, settings: Self.settings())
        let walk = try Self.walkWithoutG7
        let inbox = Inbox()
        try await app.test(.live) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    _ = try await client.ws("/v1/venues/demo-hall/live") { inbound, _, _ in
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            guard case .text(let text) = message else { continue }
                            inbox.add(text)
                            if text.contains("\"silent\"") { break }
                        }
                    }
                }
                try await eventually("subscribed", timeout: .seconds(10)) { inbox.all.contains { $0["type"] as? String == "subscribed" } }
                // Before any evidence every beacon is listed, with nothing concluded
                let before = try await client.call(.get, "/v1/venues/demo-hall/beacons")
                #expect(before.status == .ok)
                #expect(Self.beacon("G7", in: before.json)?["state"] as? String == "insufficient_evidence")
                // When a phone walks the venue with G7 dead, ten samples a request
                for start in stride(from: 0, to: walk.count, by: 10) {
                    let chunk = Array(walk[start..<min(walk.count, start + 10)])
                    let response = try await client.call(.post, "/v1/venues/demo-hall/devices/walker/samples", body: TestEnvironment.body(chunk))
                    #expect(response.status == .ok)
                }
                // Then G7 is named silent, with its evidence, and only it
                let report = try await Self.poll("/v1/venues/demo-hall/beacons", client: client) {
                    Self.beacon("G7", in: $0)?["state"] as? String == "silent"
                        && (($0["degraded"] as? [String: Any])?["queries"] as? Int ?? 0) > 0
                }
                let g7 = try #require(Self.beacon("G7", in: report))
                #expect(g7["state"] as? String == "silent")
                #expect((g7["evidence"] as? [String: Any])?["places"] as? Int ?? 0 >= 3)
                #expect((report["beacons"] as? [[String: Any]] ?? []).filter { $0["state"] as? String == "silent" }.count == 1)
                // And matching knows what to make of it: the survey's cross-validation assessed the silent set
                let degraded = try #require(report["degraded"] as? [String: Any])
                #expect(degraded["silent"] as? [String] == [g7["id"] as! String])
                #expect(degraded["radius_factor"] as? Double ?? 0 >= 1)
                // And the history has the change, and the live feed said so
                let history = try await client.call(.get, "/v1/venues/demo-hall/beacons/history").json
                let changes = history["changes"] as? [[String: Any]] ?? []
                #expect(changes.contains { $0["label"] as? String == "G7" && $0["to"] as? String == "silent" })
                try await eventually("a beacon message naming it silent", timeout: .seconds(30)) { inbox.all.contains { $0["type"] as? String == "beacon" && $0["to"] as? String == "silent" } }
                group.cancelAll()
                let message = try #require(inbox.all.first { $0["type"] as? String == "beacon" && $0["to"] as? String == "silent" })
                #expect(message["label"] as? String == "G7")
                // And the gauges count it
                let metrics = try await client.call(.get, "/metrics").text
                #expect(metrics.contains(#"beaconfix_beacons{venue="demo-hall",state="silent"} 1.0"#), "\(metrics.split(separator: "\n").filter { $0.contains("beaconfix_beacons") })")
                // And every message decodes into the generated LiveMessage of openapi.yaml
                for message in inbox.all {
                    let problems = try Contract.shared.get().problems(
                        of: try JSONSerialization.data(withJSONObject: message), against: ["$ref": "#/components/schemas/LiveMessage"])
                    #expect(problems.isEmpty, "\(problems)")
                }
            }
        }
        // And the state is in the store, for every replica and the command line
        let stored = try #require(try await store.beaconHealth(of: "demo-hall"))
        #expect(stored.monitor.health.contains { $0.beacon.minor == 7 && $0.beacon.major == 1 && $0.state == .silent })
    }

    @Test("ops' routes: admin scope, a sentence for what is not there, a reset and a hold recorded", .timeLimit(.minutes(10)))
    func opsRoutes() async throws {
        let store = try await TestEnvironment.demoStore()
        let app_ = try await store.createKey(name: "app", scope: .locate)
        let ops = try await store.createKey(name: "ops", scope: .admin)
        let app = try await TestEnvironment.app(store: store, settings: Self.settings())
        let walk = try Self.walkWithoutG7
        try await app.test(.live) { client in
            // The app's key reads the health, but may not act on it
            #expect(try await client.call(.get, "/v1/venues/demo-hall/beacons", token: app_.token).status == .ok)
            #expect(try await client.call(.post, "/v1/venues/demo-hall/beacons/G7/reset", token: app_.token).status == .forbidden)
            // Before any evidence a reset is refused with a sentence
            let early = try await client.call(.post, "/v1/venues/demo-hall/beacons/G7/reset", token: ops.token)
            #expect(early.status == .unprocessableContent)
            #expect(early.errorMessage.contains("no beacon health yet"))
            for start in stride(from: 0, to: walk.count, by: 10) {
                let chunk = Array(walk[start..<min(walk.count, start + 10)])
                _ = try await client.call(.post, "/v1/venues/demo-hall/devices/walker/samples", body: TestEnvironment.body(chunk), token: app_.token)
            }
            _ = try await Self.poll("/v1/venues/demo-hall/beacons", client: client, token: app_.token) { Self.beacon("G7", in: $0)?["state"] as? String == "silent" }
            // Unknown beacons, venues and proposals are answered 404 with a sentence
            let unknownBeacon = try await client.call(.post, "/v1/venues/demo-hall/beacons/no-such-label/reset", token: ops.token)
            #expect(unknownBeacon.status == .notFound)
            #expect(unknownBeacon.errorMessage.contains("neither a beacon label"))
            #expect(try await client.call(.get, "/v1/venues/no-such-hall/beacons", token: ops.token).status == .notFound)
            let unknownProposal = try await client.call(.post, "/v1/venues/demo-hall/beacons/proposals/99/accept", token: ops.token)
            #expect(unknownProposal.status == .notFound)
            #expect(unknownProposal.errorMessage.contains("no beacon proposal 99"))
            let dismissUnknown = try await client.call(.post, "/v1/venues/demo-hall/beacons/proposals/99/dismiss", token: ops.token)
            #expect(dismissUnknown.status == .notFound)
            // A proposal id or dry_run that is not of its type is the client's mistake, answered 400
            #expect(try await client.call(.post, "/v1/venues/demo-hall/beacons/proposals/x9/dismiss", token: ops.token).status == .badRequest)
            #expect(try await client.call(.post, "/v1/venues/demo-hall/beacons/proposals/99/accept?dry_run=maybe", token: ops.token).status == .badRequest)
            // A hold leaves the state shown but out of matching; a reset starts it afresh; both are in the history
            let hold = try await client.call(.put, "/v1/venues/demo-hall/beacons/G7/hold", body: #"{"held": true}"#, token: ops.token)
            #expect(hold.status == .ok)
            #expect(hold.json["to"] as? String == "silent")
            let held = try await client.call(.get, "/v1/venues/demo-hall/beacons", token: ops.token).json
            #expect(Self.beacon("G7", in: held)?["held"] as? Bool == true)
            let reset = try await client.call(.post, "/v1/venues/demo-hall/beacons/G7/reset", token: ops.token)
            #expect(reset.status == .ok)
            #expect(reset.json["to"] as? String == "insufficient_evidence" && reset.json["actor"] as? String == "api")
            let history = try await client.call(.get, "/v1/venues/demo-hall/beacons/history?limit=2", token: ops.token).json
            #expect((history["changes"] as? [[String: Any]])?.compactMap { $0["reason"] as? String }.first?.contains("reset by ops") == true)
        }
    }

    @Test("a busy venue's evidence is a bounded uniform subset, in arrival order, and what a failed write leaves comes first")
    func collectorSamples() throws {
        // Given a collector keeping 10 samples per beat, and 1,000 offered to one venue and 3 to another
        let collector = BeaconHealthCollector(perBeat: 10, limit: 25)
        let beacon = BeaconID(uuid: UUID(), major: 1, minor: 1)
        let place = Position(x: 1, y: 2, floor: 0, accuracy: 3, spot: "A", zone: nil)
        for index in 0..<1_000 {
            collector.add(Sample(device: "d", time: Double(index), readings: [Reading(beacon: beacon, rssi: -60)]), at: place, venue: "busy", revision: 1, device: "d")
        }
        for index in 0..<3 {
            collector.add(Sample(device: "d", time: Double(index), readings: [Reading(beacon: beacon, rssi: -60)]), at: place, venue: "quiet", revision: 1, device: "d")
        }
        collector.add(Sample(device: "d", time: 0, readings: []), at: place, venue: "quiet", revision: 1, device: "d")
        // When the beat drains them
        let first = collector.drain()
        // Then the busy venue gives 10 of its samples, in order and spread over the whole beat; the quiet one
        // all 3 that heard something; the next beat starts empty
        let busy = try #require(first["busy"]).map(\.sample.time)
        #expect(busy.count == 10 && busy == busy.sorted() && Set(busy).count == 10)
        #expect(busy.last! > 500)
        #expect(first["quiet"]?.map(\.sample.time) == [0, 1, 2])
        #expect(collector.drain().isEmpty)
        // And a failed write's samples come back whole and first, before those gathered since, at most 25 of them
        collector.add(Sample(device: "d", time: 5_000, readings: [Reading(beacon: beacon, rssi: -60)]), at: place, venue: "busy", revision: 1, device: "d")
        collector.restore(first)
        collector.restore(first)
        collector.restore(first)
        let after = try #require(collector.drain()["busy"]).map(\.sample.time)
        #expect(after.count == 26 && after.last == 5_000 && after.first == busy[5])
    }
}
