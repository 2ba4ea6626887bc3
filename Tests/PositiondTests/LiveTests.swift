import ScanFormats
import FingerprintStore
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import HummingbirdWebSocket
import NIOCore
import Positioning
import positiond
import Synchronization
import Testing
import TestSupport
import VenueSimulator

@Suite("positiond live feed and revisions")
struct LiveTests {
    /// Messages a WebSocket test client received, by type.
    final class Inbox: Sendable {
        private let texts = Mutex<[String]>([])

        func add(_ text: String) {
            texts.withLock { $0.append(text) }
        }

        var all: [[String: Any]] {
            texts.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        func types() -> [String] { all.compactMap { $0["type"] as? String } }
    }

    @Test("a WebSocket receives position updates and zone events after samples are posted, and a revision after a replacement")
    func liveFeed() async throws {
        let store = try await TestEnvironment.demoStore()
        let app = try await TestEnvironment.app(store: store)
        let walk = try TestEnvironment.walk
        let inbox = Inbox()
        try await app.test(.live) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Given a socket following device phone-1
                group.addTask {
                    _ = try await client.ws("/v1/venues/demo-hall/live?device=phone-1") { inbound, outbound, _ in
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            if case .text(let text) = message { inbox.add(text) }
                            if inbox.types().contains("revision") { break }
                        }
                    }
                }
                try await eventually("subscribed", timeout: .seconds(5)) { inbox.types().contains("subscribed") }
                // When phone-1 posts samples, and another phone too
                for line in walk[0..<6] {
                    let response = try await client.call(.post, "/v1/venues/demo-hall/devices/phone-1/samples", body: TestEnvironment.body([line]))
                    #expect(response.status == .ok)
                }
                _ = try await client.call(.post, "/v1/venues/demo-hall/devices/phone-2/samples", body: TestEnvironment.body([walk[0]]))
                try await eventually("a zone message", timeout: .seconds(5)) { inbox.types().contains("zone") }
                // And a beacon is replaced through the store while the daemon runs
                let old = try BeaconID(parsing: "\(SimulatedVenues.uuid):1:5")
                let new = try BeaconID(parsing: "\(SimulatedVenues.uuid):9:5")
                _ = try await store.replaceBeacon(ReplacementRequest(venue: "demo-hall", old: old, new: new), scale: PositioningConfiguration.defaultScale)
                try await eventually("a revision message", timeout: .seconds(5)) { inbox.types().contains("revision") }
                try await group.waitForAll()
            }
        }
        // Then the socket got position updates of phone-1 only, the zone entry, and the new revision
        let messages = inbox.all
        let positions = messages.filter { $0["type"] as? String == "position" }
        #expect(positions.count == 6)
        #expect(positions.allSatisfy { $0["device"] as? String == "phone-1" })
        let zone = try #require(messages.first { $0["type"] as? String == "zone" })
        #expect(zone["event"] as? String == "enter")
        #expect(zone["zone"] as? String == "Entrance")
        #expect(messages.last?["type"] as? String == "revision")
        #expect(messages.last?["revision"] as? Int == 4)
        // And every message decodes into the generated LiveMessage of openapi.yaml
        for message in messages {
            let problems = try Contract.shared.get().problems(
                of: try JSONSerialization.data(withJSONObject: message), against: ["$ref": "#/components/schemas/LiveMessage"])
            #expect(problems.isEmpty, "\(problems)")
        }
    }

    @Test("revision pickup: a replacement made while the daemon runs is used by the next locate")
    func revisionPickup() async throws {
        // Given the running daemon at revision 2
        let store = try await TestEnvironment.demoStore()
        let app = try await TestEnvironment.app(store: store)
        let old = try BeaconID(parsing: "\(SimulatedVenues.uuid):1:1")
        let new = try BeaconID(parsing: "\(SimulatedVenues.uuid):9:1")
        // A scan at the entrance in which beacon 1:1 has been swapped for 9:1
        let line = try TestEnvironment.walk[0]
        var swapped = line
        swapped.beacons = line.beacons.map {
            $0.major == 1 && $0.minor == 1 ? ScanLine.BeaconReading(uuid: $0.uuid, major: 9, minor: 1, rssi: $0.rssi) : $0
        }
        #expect(swapped != line, "the scan hears the replaced beacon")
        let body = TestEnvironment.body([swapped])
        try await app.test(.router) { client in
            let before = try await client.call(.post, "/v1/venues/demo-hall/locate", body: body)
            #expect(before.json["revision"] as? Int == 3)
            #expect((before.json["unmapped_beacons"] as? [String]) == [new.description])
            // When the beacon is replaced through the store
            _ = try await store.replaceBeacon(ReplacementRequest(venue: "demo-hall", old: old, new: new), scale: PositioningConfiguration.defaultScale)
            // Then within a few polls the next locate reports revision 3 and matches the new beacon
            try await eventually("a locate at revision 4", timeout: .seconds(5)) {
                let response = try await client.call(.post, "/v1/venues/demo-hall/locate", body: body)
                return response.json["revision"] as? Int == 4
            }
            let after = try await client.call(.post, "/v1/venues/demo-hall/locate", body: body)
            #expect((after.json["unmapped_beacons"] as? [String]) == [])
            #expect(after.json["matched_beacons"] as? Int == (before.json["matched_beacons"] as? Int ?? 0) + 1)
            let ready = try await client.call(.get, "/readyz")
            #expect((ready.json["venues"] as? [String: Int])?["demo-hall"] == 4)
        }
    }

    @Test("a slow consumer loses its oldest messages and never blocks the publisher")
    func slowConsumer() async throws {
        let hub = LiveHub(bufferSize: 3)
        let (_, slow) = try hub.subscribe(venue: "v", device: nil, owner: "test")
        let (_, other) = try hub.subscribe(venue: "v", device: "d", owner: "test")
        for index in 0..<100 {
            hub.publish(try LiveMessage(venue: "v", device: "d", message: .revision(.init(_type: .revision, venue: "v", revision: index))))
        }
        // Publishing returned at once; each subscriber kept only the newest 3
        var received: [String] = []
        for await message in slow {
            received.append(message.text)
            if received.count == 3 { break }
        }
        #expect(received == [#"{"revision":97,"type":"revision","venue":"v"}"#, #"{"revision":98,"type":"revision","venue":"v"}"#, #"{"revision":99,"type":"revision","venue":"v"}"#])
        var iterator = other.makeAsyncIterator()
        #expect(await iterator.next()?.text == #"{"revision":97,"type":"revision","venue":"v"}"#)
    }

    @Test("the device registry forgets idle devices and evicts the least recently seen beyond its capacity")
    func boundedDevices() throws {
        let registry = DeviceRegistry(capacity: 4, idleTimeout: .seconds(60), shards: 1)
        let start = ContinuousClock.now
        for index in 0..<6 {
            try registry.withTracker(.init(venue: "v", device: "d\(index)"), configuration: TrackerConfiguration(), now: start + .seconds(index)) { _ in }
        }
        #expect(registry.count == 4)
        #expect(registry.current(of: .init(venue: "v", device: "d0")) == nil)
        #expect(registry.forgetIdle(now: start + .milliseconds(63_500)) == 2, "d2 and d3 are idle for more than 60 s")
        #expect(registry.count == 2)
    }

    @Test("live position messages of a geo-anchored venue carry lat/lon that convert back to their x/y within 1 cm")
    func liveGeo() async throws {
        let app = try await TestEnvironment.app(store: try TestEnvironment.untunedDemoStore { $0.geo = GeoTests.anchor })
        let walk = try TestEnvironment.walk
        let inbox = Inbox()
        try await app.test(.live) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Given a socket following device phone-g
                group.addTask {
                    _ = try await client.ws("/v1/venues/demo-hall/live?device=phone-g") { inbound, _, _ in
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            if case .text(let text) = message { inbox.add(text) }
                            if inbox.types().contains("position") { break }
                        }
                    }
                }
                try await eventually("subscribed", timeout: .seconds(5)) { inbox.types().contains("subscribed") }
                // When phone-g posts three samples (the socket closes at the first position)
                for line in walk[0..<3] {
                    _ = try await client.call(.post, "/v1/venues/demo-hall/devices/phone-g/samples", body: TestEnvironment.body([line]))
                }
                try await group.waitForAll()
            }
        }
        // Then the position message has lat/lon on the venue's anchor
        let positions = inbox.all.filter { $0["type"] as? String == "position" }
        #expect(positions.count == 1)
        for message in positions {
            #expect(try GeoTests.roundTripError(message["position"] as? [String: Any], GeoTests.anchor) < 0.01)
        }
    }

    /// Polls `condition` every 50 ms for up to 5 s.
    @Test("each batch a survey session stores reaches the venue-wide feed as a survey message with the coverage the session route answers; a batch sent again, or a device's follower, gets none")
    func surveySessionBatches() async throws {
        // Given positiond on the demo venue, a venue-wide socket and one following a device
        let store = try await TestEnvironment.demoStore()
        let app = try await TestEnvironment.app(store: store)
        let survey = ScanLogDecoder().decode(try TestEnvironment.demoFile("survey.jsonl")).lines.map(\.line)
        let venueWide = Inbox(), follower = Inbox()
        try await app.test(.live) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (query, inbox) in [("", venueWide), ("?device=phone-1", follower)] {
                    group.addTask {
                        _ = try await client.ws("/v1/venues/demo-hall/live\(query)") { inbound, _, _ in
                            for try await message in inbound.messages(maxSize: 1 << 20) {
                                if case .text(let text) = message { inbox.add(text) }
                                if inbox.types().contains("revision") { break }
                            }
                        }
                    }
                }
                try await eventually("both subscribed", timeout: .seconds(5)) { venueWide.types().contains("subscribed") && follower.types().contains("subscribed") }
                // When a session is opened and stores three batches, the first sent twice
                let opened = try await client.call(.post, "/v1/venues/demo-hall/survey/sessions", body: #"{"operator": "ana"}"#)
                let session = try #require(opened.json["id"] as? String)
                let batches = [survey[0..<2], survey[2..<7], survey[30..<33]]
                func post(_ number: Int) async throws {
                    let body = String(decoding: try JSONEncoder().encode(BatchBody(batch_id: "b\(number)", samples: Array(batches[number]))), as: UTF8.self)
                    let answer = try await client.call(.post, "/v1/venues/demo-hall/survey/sessions/\(session)/batches", body: body)
                    #expect(answer.status == .ok)
                }
                try await post(0)
                try await post(0)
                try await post(1)
                try await post(2)
                try await eventually("three survey messages", timeout: .seconds(5)) { venueWide.all.filter { $0["type"] as? String == "survey" }.count >= 3 }
                // Then the venue-wide socket got one survey message per stored batch, in order
                let messages = venueWide.all.filter { $0["type"] as? String == "survey" }
                #expect(messages.count == 3)
                #expect(messages.map { ($0["session"] as? [String: Any])?["batches"] as? Int } == [1, 2, 3])
                #expect(messages.map { ($0["path"] as? [Any])?.count } == batches.map(\.count))
                // And together they say what the session's coverage route answers: the path, and each spot's
                // coverage as its last message gave it
                let coverage = try await client.call(.get, "/v1/venues/demo-hall/survey/sessions/\(session)/coverage").json
                let routePath = try #require(coverage["path"] as? [[String: Any]])
                let fedPath = messages.flatMap { $0["path"] as? [[String: Any]] ?? [] }
                #expect(routePath.count == 10 && routePath.map { $0["t"] as? Double } == fedPath.map { $0["t"] as? Double })
                var fedSpots: [String: NSDictionary] = [:]
                for message in messages {
                    for spot in message["spots"] as? [[String: Any]] ?? [] { fedSpots[spot["spot"] as? String ?? ""] = spot as NSDictionary }
                }
                let routeSpots = try #require(coverage["spots"] as? [[String: Any]])
                #expect(!routeSpots.isEmpty && routeSpots.count == fedSpots.count)
                for spot in routeSpots { #expect(fedSpots[spot["spot"] as? String ?? ""] == spot as NSDictionary, "\(spot)") }
                #expect((coverage["session"] as? [String: Any])?["samples"] as? Int == 10)
                // And the device's follower got none of it
                #expect(!follower.types().contains("survey"))
                // And an unknown session's coverage is a 404
                #expect(try await client.call(.get, "/v1/venues/demo-hall/survey/sessions/ses_nope/coverage").status == .notFound)
                group.cancelAll()
            }
        }
        // And every message decodes into the generated LiveMessage of openapi.yaml
        for message in venueWide.all {
            let problems = try Contract.shared.get().problems(
                of: try JSONSerialization.data(withJSONObject: message), against: ["$ref": "#/components/schemas/LiveMessage"])
            #expect(problems.isEmpty, "\(problems)")
        }
    }

    @Test(
        "on a cluster, a survey batch posted to one replica reaches the venue-wide socket of another; one too large for the relay arrives compact",
        .enabled(if: ProcessInfo.processInfo.environment["BEACONFIX_TEST_POSTGRES"] != nil))
    func surveyMessagesAcrossReplicas() async throws {
        // Given demo-hall on PostgreSQL, two positiond replicas on it, and a venue-wide socket on replica B
        let (storeA, storeB) = try await TestEnvironment.postgresReplicaStores()
        try await SurveySessionTests.importDemoVenue(into: storeA)
        let survey = ScanLogDecoder().decode(try TestEnvironment.demoFile("survey.jsonl")).lines.map(\.line)
        let appA = try await TestEnvironment.app(store: storeA), appB = try await TestEnvironment.app(store: storeB)
        let onB = Inbox()
        try await appB.test(.live) { clientB in
            try await appA.test(.live) { clientA in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        _ = try await clientB.ws("/v1/venues/demo-hall/live") { inbound, _, _ in
                            for try await message in inbound.messages(maxSize: 1 << 20) {
                                if case .text(let text) = message { onB.add(text) }
                            }
                        }
                    }
                    try await eventually("subscribed on replica B", timeout: .seconds(5)) { onB.types().contains("subscribed") }
                    let opened = try await clientA.call(.post, "/v1/venues/demo-hall/survey/sessions", body: #"{"operator": "ana"}"#)
                    let session = try #require(opened.json["id"] as? String)
                    var batch = 0
                    func post(_ lines: ArraySlice<ScanLine>) async throws {
                        let body = String(decoding: try JSONEncoder().encode(BatchBody(batch_id: "b\(batch)", samples: Array(lines))), as: UTF8.self)
                        #expect(try await clientA.call(.post, "/v1/venues/demo-hall/survey/sessions/\(session)/batches", body: body).status == .ok)
                        batch += 1
                    }
                    // (notifications are the database's, not the schema's: other tests' replicas on the same PostgreSQL
                    // may post to their demo-hall meanwhile, so only this session's messages count)
                    @Sendable func surveyMessages() -> [[String: Any]] {
                        onB.all.filter { $0["type"] as? String == "survey" && ($0["session"] as? [String: Any])?["id"] as? String == session }
                    }
                    // (what is sent before both replicas listen is lost, as on any start: one-sample batches probe until B hears one)
                    let deadline = ContinuousClock.now + .seconds(20)
                    while surveyMessages().isEmpty, ContinuousClock.now < deadline {
                        try await post(survey[batch..<(batch + 1)])
                        try await Task.sleep(for: .milliseconds(200))
                    }
                    try #require(!surveyMessages().isEmpty, "replica B never heard replica A")
                    let probes = batch
                    // When replica A stores a batch of 5 samples, then one of 250 (each with one beacon, to stay under the test server's body limit)
                    try await post(survey[100..<105])
                    let large = survey[200..<450].map { line in
                        var line = line
                        line.beacons = Array(line.beacons.prefix(1))
                        return line
                    }
                    try await post(large[...])
                    // (the session counts its batches: the probes are 1...probes, these two the next)
                    @Sendable func ours() -> [[String: Any]] {
                        surveyMessages().filter { (($0["session"] as? [String: Any])?["batches"] as? Int ?? 0) > probes }
                    }
                    try await eventually("two of our messages", timeout: .seconds(5)) { ours().count >= 2 }
                    // Then B's venue-wide socket gets the first whole, with its 5 places, and the second compact, marked partial
                    let messages = ours()
                    #expect(messages.map { ($0["session"] as? [String: Any])?["batches"] as? Int } == [probes + 1, probes + 2])
                    #expect((messages[0]["path"] as? [Any])?.count == 5 && messages[0]["partial"] == nil)
                    #expect((messages[1]["path"] as? [Any])?.count == 0 && messages[1]["partial"] as? Bool == true)
                    #expect((messages[1]["session"] as? [String: Any])?["samples"] as? Int == probes + 5 + 250)
                    group.cancelAll()
                }
            }
        }
        // And each decodes into the generated LiveMessage of openapi.yaml
        for message in onB.all {
            let problems = try Contract.shared.get().problems(
                of: try JSONSerialization.data(withJSONObject: message), against: ["$ref": "#/components/schemas/LiveMessage"])
            #expect(problems.isEmpty, "\(problems)")
        }
    }

    /// A survey batch's body, as an app sends it.
    struct BatchBody: Encodable {
        var batch_id: String
        var samples: [ScanLine]
    }
}
