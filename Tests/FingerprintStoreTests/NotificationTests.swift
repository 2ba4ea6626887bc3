import FingerprintStore
import Foundation
import Logging
import Testing

/// A shared store's notifications (PostgreSQL LISTEN/NOTIFY), on the real server that `make test` starts
/// (BEACONFIX_TEST_POSTGRES). Notifications are database-wide, not per schema: tests running beside each
/// other hear each other's, so each looks only for the venue, payload or key change it caused.
@Suite("FingerprintStore: changes notified on PostgreSQL", .enabled(if: BackendTests.postgresURL != nil), .timeLimit(.minutes(1)))
struct NotificationTests {
    /// Reads `listener`'s changes until one satisfies `wanted`, and returns it.
    static func next(
        _ iterator: inout AsyncStream<StoreChange>.Iterator, where wanted: (StoreChange) -> Bool
    ) async throws -> StoreChange {
        while let change = await iterator.next() {
            if wanted(change) { return change }
        }
        throw StoreError.invalidInput("the listener's changes ended")
    }

    @Test("a SQLite file has no listener: its readers poll")
    func sqliteHasNone() throws {
        #expect(try FingerprintStore.inMemory().listener() == nil)
    }

    @Test("the listener says it listens, then delivers revision bumps, key changes and broadcasts as they commit")
    func delivers() async throws {
        // Given a shared store and a listener that has started listening
        let store = try await BackendTests.store(.postgresql)
        let listener = try #require(store.listener())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await listener.run() }
            var changes = listener.changes.makeAsyncIterator()
            #expect(try await Self.next(&changes) { _ in true } == .listening)
            // When a venue's revision is bumped in a transaction that rolls back, then in one that commits
            let venue = "venue-" + UUID().uuidString
            try? await store.backend.write { transaction in
                try await store.bumpRevision(of: venue, transaction)
                throw StoreError.conflict("rolled back on purpose")
            }
            try await store.backend.write { try await store.bumpRevision(of: venue, $0) }
            // Then the committed one arrives, once: none more comes before a marker broadcast after both
            #expect(try await Self.next(&changes) { $0 == .revision(venue: venue) } == .revision(venue: venue))
            let marker = "marker " + UUID().uuidString
            try await listener.broadcast(marker)
            var between: [StoreChange] = []
            _ = try await Self.next(&changes) { change in
                between.append(change)
                return change == .broadcast(marker)
            }
            #expect(!between.contains(.revision(venue: venue)))
            // When a key is created and revoked
            let key = try await store.createKey(name: "replica test", scope: .locate)
            #expect(try await Self.next(&changes) { $0 == .keys } == .keys)
            _ = try await store.revokeKey(id: key.key.id)
            #expect(try await Self.next(&changes) { $0 == .keys } == .keys)
            // When this listener broadcasts
            let payload = "hello " + UUID().uuidString
            try await listener.broadcast(payload)
            // Then it hears it too (every listener of the store does)
            #expect(try await Self.next(&changes) { $0 == .broadcast(payload) } == .broadcast(payload))
            group.cancelAll()
        }
    }

    @Test("a payload PostgreSQL could not carry is refused before it is sent, naming the limit")
    func tooLong() async throws {
        let store = try await BackendTests.store(.postgresql)
        let listener = try #require(store.listener())
        await #expect(throws: StoreError.invalidInput("a broadcast carries at most 7999 bytes; this one has 8000")) {
            try await listener.broadcast(String(repeating: "x", count: 8000))
        }
    }

    @Test("a listener whose session is killed says so without the password, reconnects, and says it listens again")
    func reconnects() async throws {
        // Given a listener listening, on a URL that carries a password (the test server trusts loopback)
        let store = try await BackendTests.store(.postgresql)
        var url = try #require(store.backend as? PostgresBackend).url
        url.password = "s3cret-pw"
        let listener = StoreListener(connection: PostgresListenerConnection(url: url, logger: BackendTests.logger))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await listener.run() }
            var changes = listener.changes.makeAsyncIterator()
            #expect(try await Self.next(&changes) { _ in true } == .listening)
            // When PostgreSQL terminates its session (as a restart or a failover would)
            let name = listener.connection.applicationName
            let terminated = try await store.backend.write { transaction in
                try await transaction.rows("SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = \(name)")
            }
            #expect(terminated.count == 1)
            // Then it reports the loss, without the password, and listens again
            let lost = try await Self.next(&changes) { if case .disconnected = $0 { true } else { false } }
            if case .disconnected(let reason, let retryAfter) = lost {
                #expect(!reason.contains("s3cret-pw"))
                #expect(retryAfter == .milliseconds(100))
            }
            #expect(try await Self.next(&changes) { _ in true } == .listening)
            // And what is broadcast now arrives
            let payload = "after " + UUID().uuidString
            try await listener.broadcast(payload)
            #expect(try await Self.next(&changes) { $0 == .broadcast(payload) } == .broadcast(payload))
            group.cancelAll()
        }
    }

    @Test("a listener that cannot reach the server keeps trying, with pauses that double, and never shows the password")
    func unreachable() async throws {
        // Given a URL of a port where nothing listens (a closed port of loopback), with a password
        let store = try await BackendTests.store(.postgresql)
        let postgres = try #require(store.backend as? PostgresBackend)
        var url = postgres.url
        url.port = 1
        url.password = "s3cret-pw"
        let listener = StoreListener(connection: PostgresListenerConnection(url: url, logger: BackendTests.logger))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await listener.run() }
            var changes = listener.changes.makeAsyncIterator()
            // Then it reports each failed attempt with a longer pause, and the reason hides the password
            var pauses: [Duration] = []
            while pauses.count < 3 {
                guard case .disconnected(let reason, let retryAfter) = try await Self.next(&changes, where: { _ in true }) else {
                    Issue.record("only disconnections were expected")
                    break
                }
                #expect(!reason.contains("s3cret-pw"))
                pauses.append(retryAfter)
            }
            #expect(pauses == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
            // And broadcasting meanwhile fails at once rather than queueing
            await #expect(throws: StoreError.self) { try await listener.broadcast("lost") }
            group.cancelAll()
        }
    }
}
