import FingerprintStore
import Foundation
import Logging
import positiond
import Positioning
import Synchronization
import Testing

/// The live relay between replicas: its batches on their own, then two replicas' hubs on the real
/// PostgreSQL of `make test` (BEACONFIX_TEST_POSTGRES).
@Suite("positiond live relay between replicas")
struct RelayTests {
    static let postgresURL = ProcessInfo.processInfo.environment["BEACONFIX_TEST_POSTGRES"]

    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// A position message of `device` in `venue`, numbered by its time.
    static func position(_ venue: String, _ device: String, _ index: Int) throws -> LiveMessage {
        try LiveMessage(
            venue: venue, device: device,
            message: .position(.init(
                _type: .position, venue: venue, device: device, time: Double(index),
                position: .init(x: 1, y: 2, floor: 0, accuracyM: 1.5, spot: "A1"), zone: nil)))
    }

    @Test("batches stay under PostgreSQL's 8000 bytes, keep each venue's order, and come back as the same messages")
    func batches() throws {
        // Given 300 messages of two devices in one venue and one in another, queued on replica a
        let sender = LiveRelay(replica: "a", remoteMemory: .seconds(60))
        var sent: [LiveMessage] = []
        for index in 0..<300 {
            let message = try Self.position("hall", index % 2 == 0 ? "d-even" : "d-odd", index)
            sender.enqueue(message)
            sent.append(message)
        }
        sender.enqueue(try Self.position("annex", "d-x", 0))
        // When the outbox is emptied
        let batches = sender.takeBatches()
        // Then every payload fits a notification, the hall's needed several, and the outbox is empty
        #expect(batches.allSatisfy { $0.payload.utf8.count <= FingerprintStore.maximumBroadcastBytes })
        #expect(batches.count > 3)
        #expect(sender.takeBatches().isEmpty)
        // And replica b reads back the same messages in the same order; replica a ignores its own
        let receiver = LiveRelay(replica: "b", remoteMemory: .seconds(60))
        let received = batches.flatMap { receiver.receive($0.payload) }
        #expect(received.filter { $0.venue == "hall" }.map(\.text) == sent.map(\.text))
        #expect(received.filter { $0.venue == "hall" }.map(\.device) == sent.map(\.device))
        #expect(received.filter { $0.venue == "annex" }.count == 1)
        #expect(batches.flatMap { sender.receive($0.payload) }.isEmpty)
        #expect(receiver.receive("not a batch").isEmpty)
    }

    @Test("a full outbox drops its oldest messages, and venue-wide messages are not relayed")
    func dropsOldest() throws {
        // Given an outbox of at most 2000 bytes
        let relay = LiveRelay(replica: "a", maximumPendingBytes: 2000, remoteMemory: .seconds(60))
        for index in 0..<100 { relay.enqueue(try Self.position("hall", "d", index)) }
        relay.enqueue(try LiveMessage(venue: "hall", device: nil, message: .revision(.init(_type: .revision, venue: "hall", revision: 9))))
        // Then it holds only the newest messages, ending with the last one, and no revision
        let texts = LiveRelay(replica: "b", remoteMemory: .seconds(60)).receive(try #require(relay.takeBatches().first).payload).map(\.text)
        #expect(texts.count < 100)
        #expect(texts.last == (try Self.position("hall", "d", 99)).text)
        #expect(!texts.contains { $0.contains("revision") })
    }

    @Test("a survey message reaches the other replicas' venue-wide sockets only, and one too large for a batch travels there compact")
    func venueWideSurveyMessages() async throws {
        // Given replica a's hub with a relay, and replica b's hub with a venue-wide socket and a device's follower
        let sending = LiveHub(bufferSize: 10, relay: LiveRelay(replica: "a", remoteMemory: .seconds(60)))
        let receiving = LiveHub(bufferSize: 10, relay: LiveRelay(replica: "b", remoteMemory: .seconds(60)))
        let (_, wide) = try receiving.subscribe(venue: "hall", device: nil, owner: "map")
        let (_, follower) = try receiving.subscribe(venue: "hall", device: "d1", owner: "app")
        let session = Components.Schemas.SurveySession(
            id: "ses_1", venue: "hall", state: .open, openedAt: Date(timeIntervalSince1970: 0), samples: 1, batches: 1)
        func message(points: Int, partial: Bool? = nil) -> Components.Schemas.LiveMessage {
            .survey(.init(
                _type: .survey, venue: "hall", session: session, spots: [],
                path: (0..<points).map { .init(t: Double($0), x: 1, y: 2, floor: 0) }, partial: partial))
        }
        // When a small survey message and a large one (2,000 path points) are published on a, which nobody there follows
        sending.publishToVenueWide(venue: "hall", message: message(points: 2), compact: message(points: 0, partial: true))
        sending.publishToVenueWide(venue: "hall", message: message(points: 2_000), compact: message(points: 0, partial: true))
        // Then both leave a in batches that fit a notification
        let batches = try #require(sending.relay).takeBatches()
        #expect(!batches.isEmpty && batches.allSatisfy { $0.payload.utf8.count <= FingerprintStore.maximumBroadcastBytes })
        for batch in batches { receiving.deliverRelayed(try #require(receiving.relay).receive(batch.payload)) }
        receiving.finishAll()
        // And b's venue-wide socket gets the small one whole, then the large one compact; the follower gets neither
        var texts: [String] = []
        for await delivered in wide { texts.append(delivered.text) }
        var followed = 0
        for await _ in follower { followed += 1 }
        #expect(texts.count == 2 && followed == 0)
        #expect(texts.first == (try LiveMessage(venue: "hall", device: nil, message: message(points: 2))).text)
        #expect(texts.last?.contains("\"partial\":true") == true && texts.last?.contains("\"path\":[]") == true)
        #expect(try #require(receiving.relay).isTrackedElsewhere(DeviceRegistry.Key(venue: "hall", device: "")) == false)
    }

    @Test("a device seen in another replica's batches counts as tracked there for devices.idle.seconds")
    func remembersRemoteDevices() throws {
        let relay = LiveRelay(replica: "b", remoteMemory: .seconds(60))
        let other = LiveRelay(replica: "a", remoteMemory: .seconds(60))
        other.enqueue(try Self.position("hall", "d1", 0))
        let start = ContinuousClock.now
        _ = relay.receive(try #require(other.takeBatches().first).payload, now: start)
        let key = DeviceRegistry.Key(venue: "hall", device: "d1")
        #expect(relay.isTrackedElsewhere(key, now: start + .seconds(59)))
        #expect(!relay.isTrackedElsewhere(DeviceRegistry.Key(venue: "hall", device: "d2"), now: start))
        #expect(!relay.isTrackedElsewhere(key, now: start + .seconds(61)))
        relay.forgetIdle(now: start + .seconds(61))
        #expect(!relay.isTrackedElsewhere(key, now: start))
    }

    @Test(
        "a subscriber on replica B receives the positions of a device tracked on replica A, all and in order, through PostgreSQL",
        .enabled(if: postgresURL != nil), .timeLimit(.minutes(1)))
    func acrossReplicas() async throws {
        // Given two replicas (hub, relay and watcher each) sharing one PostgreSQL store
        let store = try await TestEnvironment.postgresStore()
        func replica(_ name: String) async throws -> (hub: LiveHub, watcher: RevisionWatcher) {
            let hub = LiveHub(bufferSize: 1000, relay: LiveRelay(replica: name, remoteMemory: .seconds(60)))
            let watcher = RevisionWatcher(
                store: store, catalog: VenueCatalog(), keys: try await KeyCache(store: store),
                devices: DeviceRegistry(capacity: 10, idleTimeout: .seconds(60)), hub: hub, interval: .seconds(1),
                flushInterval: .milliseconds(20), logger: TestEnvironment.logger)
            return (hub, watcher)
        }
        let a = try await replica("replica-a"), b = try await replica("replica-b")
        let venue = "hall-" + UUID().uuidString
        let (_, onB) = try b.hub.subscribe(venue: venue, device: "d1", owner: "test")
        let (_, onA) = try a.hub.subscribe(venue: venue, device: nil, owner: "test")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for watcher in [a.watcher, b.watcher] {
                let listener = try #require(store.listener())
                group.addTask { await watcher.listen(listener) }
            }
            // When, once both listen, replica A publishes 400 positions of d1 (several batches) and one of d2
            var iterator = onB.makeAsyncIterator()
            var sent: [String] = []
            var received: [String] = []
            // Probes until B hears A: what is sent before both sessions listen is lost, as on any start
            let heard = Flag()
            group.addTask {
                while !heard.value.load(ordering: .relaxed) {
                    a.hub.publish(venue: venue, device: "d1", message: .revision(.init(_type: .revision, venue: venue, revision: 0)))
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            _ = await iterator.next()
            heard.value.store(true, ordering: .relaxed)
            for index in 0..<400 {
                let message = try Self.position(venue, "d1", index)
                sent.append(message.text)
                a.hub.publish(venue: venue, device: "d1", message: .position(.init(
                    _type: .position, venue: venue, device: "d1", time: Double(index),
                    position: .init(x: 1, y: 2, floor: 0, accuracyM: 1.5, spot: "A1"), zone: nil)))
            }
            a.hub.publish(venue: venue, device: "d2", message: .revision(.init(_type: .revision, venue: venue, revision: 1)))
            // Then B's subscriber of d1 gets all 400, in order (probes still in flight are skipped)
            while received.count < 400, let message = await iterator.next() {
                if message.text.contains("\"position\"") { received.append(message.text) }
            }
            #expect(received == sent)
            // And B knows d1 as tracked elsewhere; A's own subscriber got each message once, not twice
            #expect(b.hub.relay?.isTrackedElsewhere(DeviceRegistry.Key(venue: venue, device: "d1")) == true)
            #expect(a.hub.relay?.isTrackedElsewhere(DeviceRegistry.Key(venue: venue, device: "d1")) == false)
            group.cancelAll()
        }
        var onAll: [LiveMessage] = []
        a.hub.finishAll()
        for await message in onA { onAll.append(message) }
        #expect(onAll.filter { $0.text.contains("\"position\"") }.count == 400)
    }
}
