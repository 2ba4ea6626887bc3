import FingerprintStore
import Foundation
import Hummingbird
import HummingbirdTesting
import positiond
import Testing

/// What a tracked-sample answer says of its track: `new`, `continued`, or `rewarmed` on a replica that takes
/// over a device another replica was tracking (its track restarts here).
@Suite("positiond: track new, continued and rewarmed")
struct TrackStateTests {
    static let postgresURL = ProcessInfo.processInfo.environment["BEACONFIX_TEST_POSTGRES"]

    @Test("a device's first sample starts a new track and the next continues it")
    func newThenContinued() async throws {
        // Given the demo hall served from a file
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        let walk = try TestEnvironment.walk
        try await app.test(.router) { client in
            // When a device posts two samples
            let first = try await client.call(.post, "/v1/venues/demo-hall/devices/t1/samples", body: TestEnvironment.body([walk[0]]))
            let second = try await client.call(.post, "/v1/venues/demo-hall/devices/t1/samples", body: TestEnvironment.body([walk[1]]))
            // Then the first answer says new and the second continued
            #expect(first.json["track"] as? String == "new" && second.json["track"] as? String == "continued")
        }
    }

    // Ten minutes, as HistoryTests and for the same reason: the demo store waits for the demo tuning (195 s
    // of a 267 s run on a slow machine).
    @Test("a replica takes over a device another replica tracked: its first answer says rewarmed; a device nobody tracked says new", .enabled(if: postgresURL != nil), .timeLimit(.minutes(10)))
    func rewarmedOnAnotherReplica() async throws {
        // Given replica B serving the demo hall from a shared PostgreSQL store, its services (listener, relay) running
        let store = try await TestEnvironment.postgresStore()
        _ = try await store.copyVenues(["demo-hall"], from: try TestEnvironment.demoStore())
        let app = try await TestEnvironment.app(store: store)
        let walk = try TestEnvironment.walk
        let listener = try #require(store.listener())
        try await app.test(.live) { client in
            // And the test's own session on the store, to know when a broadcast has gone through PostgreSQL
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await listener.run() }
                var changes = listener.changes.makeAsyncIterator()
                while let change = await changes.next(), change != .listening {}
                // When replica A relays positions of devices it tracks (one at a time, each heard by this
                // session, so replica B's session has it too), and B is then asked for that device
                var answers: [String] = []
                for index in 0..<10 where !answers.contains("rewarmed") {
                    let device = "moved-\(index)"
                    let replicaA = LiveRelay(replica: "replica-a", remoteMemory: .seconds(60))
                    replicaA.enqueue(try RelayTests.position("demo-hall", device, 0))
                    for batch in replicaA.takeBatches() { try await listener.broadcast(batch.payload) }
                    while let change = await changes.next() {
                        if case .broadcast(let payload) = change, payload.contains(device) { break }
                    }
                    // (B's session got the same notification; its reloader hands it to the relay off this task)
                    try await Task.sleep(for: .milliseconds(200))
                    let answer = try await client.call(.post, "/v1/venues/demo-hall/devices/\(device)/samples", body: TestEnvironment.body([walk[0]]))
                    answers.append(answer.json["track"] as? String ?? "?")
                }
                let stranger = try await client.call(.post, "/v1/venues/demo-hall/devices/never-relayed/samples", body: TestEnvironment.body([walk[0]]))
                // Then B's answer for a device A tracked says rewarmed, and for a device nobody tracked, new
                #expect(answers.last == "rewarmed", "\(answers)")
                #expect(stranger.json["track"] as? String == "new")
                group.cancelAll()
            }
        }
    }
}
