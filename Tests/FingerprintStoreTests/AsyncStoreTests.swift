import Foundation
import FingerprintStore
import Testing
import TestSupport

@Suite("FingerprintStore: transactions that wait hold no thread")
struct AsyncStoreTests {
    @Test(
        "PostgreSQL: while more transactions wait on a lock in the server than there are threads, other transactions and tasks still run",
        .enabled(if: BackendTests.postgresURL != nil, "needs BEACONFIX_TEST_POSTGRES: run under scripts/with-postgres.sh, as make test does"),
        .timeLimit(.minutes(1)))
    func waitingHoldsNoThread() async throws {
        // Given a store with room for many connections, and a transaction that holds an advisory lock until told
        let empty = try await BackendTests.emptyPostgresSchema()
        try await PostgresMigrations.migrate(empty)
        let backend = PostgresBackend(url: empty.url, schema: try await Self.schema(of: empty), maximumConnections: 24, logger: BackendTests.logger)
        let key = Int64.random(in: 1_000_000...2_000_000_000)
        let (release, releasing) = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await backend.write { transaction in
                try await transaction.execute("SELECT pg_advisory_xact_lock(\(key))")
                for await _ in release {}
            }
        }
        try await Self.waitUntil(backend, key: key, granted: 1, waiting: 0)
        // When more transactions than the machine has threads for Swift's pool, NIO's event loops and its
        // blocking pool together wait for that lock inside PostgreSQL
        let waiters = 4 * ProcessInfo.processInfo.activeProcessorCount + 4
        let waiting = (0..<waiters).map { _ in
            Task { try await backend.write { try await $0.execute("SELECT pg_advisory_xact_lock(\(key))") } }
        }
        try await Self.waitUntil(backend, key: key, granted: 1, waiting: waiters)
        // Then a task and a read of the same store still run meanwhile (the read above already did, each poll)
        #expect(await Task.detached { 6 * 7 }.value == 42)
        let venues = try await backend.read { try await $0.rows("SELECT COUNT(*) AS n FROM venue") }
        #expect(try venues.first?.integer("n") == 0)
        // And once the lock is released, every waiting transaction commits in turn
        releasing.finish()
        try await holder.value
        for task in waiting { try await task.value }
        try await Self.waitUntil(backend, key: key, granted: 0, waiting: 0)
    }

    @Test("SQLite: a transaction's body that awaits work done elsewhere is rolled back with a sentence; the connection's thread never waits for it, and the body's later statements throw without touching the connection")
    func sqliteBodyAwaitsElsewhere() async throws {
        // Given a store
        let store = try FingerprintStore.inMemory(logger: BackendTests.logger)
        _ = try await store.importVenue(StoreFixtures.venue)
        let before = try await store.venue("hall")
        // When a write's body awaits a detached task between two statements (GRDB stops the test process if a
        // statement runs on any thread but the connection's)
        let (late, lateOutcome) = AsyncStream<String>.makeStream()
        do {
            _ = try await store.sqlWrite { transaction in
                try await store.bumpRevision(of: "hall", transaction)
                let answer = await Task.detached { try? await Task.sleep(for: .milliseconds(20)); return 1 }.value
                do {
                    try await transaction.execute("UPDATE venue SET name = \("Hall \(answer)") WHERE id = 'hall'")
                    lateOutcome.yield("ran")
                } catch {
                    lateOutcome.yield("\(error)")
                }
                lateOutcome.finish()
            }
            Issue.record("a body that awaits work done elsewhere must be refused")
        } catch let error as StoreError {
            // Then the write is refused with a sentence saying why
            #expect(error.description.contains("waited for work done off its connection's thread"))
        }
        // And the body's statement after the wait threw rather than touching the connection
        var outcomes = late.makeAsyncIterator()
        let outcome = try #require(await outcomes.next())
        #expect(outcome.contains("no longer its own"))
        // And nothing was written, and the store goes on
        let after = try await store.venue("hall")
        #expect(after.revision == before.revision && after.name == before.name)
        try await store.sqlWrite { try await store.bumpRevision(of: "hall", $0) }
        #expect(try await store.venue("hall").revision == before.revision + 1)
    }

    /// The schema the backend's connections use.
    static func schema(of backend: PostgresBackend) async throws -> String {
        try await backend.read { try await $0.rows("SELECT current_schema() AS name") }.first!.text("name")
    }

    /// Polls PostgreSQL's lock table until the advisory lock `key` is held `granted` times and awaited `waiting`
    /// times: each poll is itself a transaction of the same store.
    static func waitUntil(_ backend: PostgresBackend, key: Int64, granted: Int, waiting: Int) async throws {
        try await eventually("advisory lock \(key) held \(granted) and awaited \(waiting) times", every: .milliseconds(20)) {
            let rows = try await backend.read { transaction in
                try await transaction.rows(
                    """
                    SELECT COUNT(*) FILTER (WHERE granted) AS granted, COUNT(*) FILTER (WHERE NOT granted) AS waiting
                    FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 AND objid = \(key) AND objsubid = 1
                    """)
            }
            return try rows.first?.integer("granted") == Int64(granted) && rows.first?.integer("waiting") == Int64(waiting)
        }
    }
}
