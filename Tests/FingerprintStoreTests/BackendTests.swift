import FingerprintStore
import Foundation
import GRDB
import Logging
import Positioning
import PostgresNIO
import ScanFormats
import Testing

/// The store's two engines behind one seam: SQLite (GRDB) and PostgreSQL (postgres-nio), each real. The
/// PostgreSQL cases need BEACONFIX_TEST_POSTGRES, a throwaway database that `make test` starts with
/// scripts/with-postgres.sh.
@Suite("FingerprintStore: the SQL seam on SQLite and PostgreSQL")
struct BackendTests {
    static let postgresURL = ProcessInfo.processInfo.environment["BEACONFIX_TEST_POSTGRES"]
    static let logger = Logger(label: "beaconfix.test.store")

    /// A fresh, migrated database on `engine`: an in-memory SQLite one, or a schema of its own in the test
    /// PostgreSQL database (tests run in parallel, so each gets a new one).
    static func backend(_ engine: StoreEngine) async throws -> any StoreBackend {
        switch engine {
        case .sqlite:
            let queue = try DatabaseQueue()
            try StoreMigrations.migrator.migrate(queue)
            return SQLiteBackend(writer: queue, logger: logger)
        case .postgresql:
            let backend = try await emptyPostgresSchema()
            try await PostgresMigrations.migrate(backend)
            return backend
        }
    }

    /// A new, empty schema of its own in the test PostgreSQL database, not migrated.
    static func emptyPostgresSchema() async throws -> PostgresBackend {
        let text = try #require(postgresURL)
        let url = try #require(try PostgresLocation(url: text))
        let schema = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await PostgresBackend(url: url, logger: logger).write { try await $0.execute("CREATE SCHEMA \(sql: schema)") }
        return PostgresBackend(url: url, schema: schema, logger: logger)
    }

    static var engines: [StoreEngine] { postgresURL == nil ? [.sqlite] : [.sqlite, .postgresql] }

    /// A fresh store on `engine`: in memory on SQLite, a schema of its own on the test PostgreSQL.
    static func store(_ engine: StoreEngine) async throws -> FingerprintStore {
        switch engine {
        case .sqlite:
            return try FingerprintStore.inMemory(logger: logger)
        case .postgresql:
            guard let postgres = try await backend(.postgresql) as? PostgresBackend else { throw StoreError.invalidInput("not a PostgreSQL backend") }
            return try await FingerprintStore(postgres: postgres, logger: logger)
        }
    }

    @Test("API keys on both engines: created with a token shown once, listed, revoked once, and what authentication reads", arguments: engines)
    func apiKeys(engine: StoreEngine) async throws {
        // Given a fresh store with no key
        let store = try await Self.store(engine)
        #expect(try await store.authenticationState().anyKeyCreated == false)
        // When two keys are created
        let app = try await store.createKey(name: "app", scope: .locate)
        let ops = try await store.createKey(name: "ops", scope: .admin)
        // Then they are listed as created, to the millisecond, and only their hashes are kept
        await #expect(try store.keys() == [app.key, ops.key])
        await #expect(try store.activeKeyHashes() == [FingerprintStore.hash(token: app.token): .locate, FingerprintStore.hash(token: ops.token): .admin])
        // When one is revoked
        let revoked = try await store.revokeKey(id: app.key.id)
        // Then it is listed as revoked, no longer authenticates, and cannot be revoked again; an unknown id is refused
        let listed = try await store.keys()
        #expect(revoked.revokedAt != nil && listed.first == revoked)
        let state = try await store.authenticationState()
        #expect(state.anyKeyCreated && state.active == [FingerprintStore.hash(token: ops.token): .admin])
        await #expect(throws: StoreError.conflict("API key \(app.key.id) is already revoked")) { try await store.revokeKey(id: app.key.id) }
        await #expect(throws: StoreError.invalidInput("there is no API key 999")) { try await store.revokeKey(id: 999) }
        await #expect(throws: StoreError.invalidInput("a key needs a name")) { try await store.createKey(name: " ", scope: .admin) }
    }

    @Test("the venue listing, revisions and readiness that the daemon polls read the same on both engines", arguments: engines)
    func venueListing(engine: StoreEngine) async throws {
        // Given a store with two venues written through the seam, one with a floor, a beacon per status and a spot
        let store = try await Self.store(engine)
        let (none, noRevisions) = (try await store.venues(), try await store.revisions())
        #expect(none.isEmpty && noRevisions.isEmpty)
        let reachable = await store.isReachable()
        #expect(reachable)
        let updated = SQLValue.storedPrecision(Date(timeIntervalSince1970: 1_795_000_000.5))
        try await store.sqlWrite { transaction in
            for (id, revision) in [("hall", 4), ("annex", 1)] {
                try await transaction.execute(
                    "INSERT INTO venue (id, name, revision, createdAt, updatedAt) VALUES (\(id), \(id.capitalized), \(Int64(revision)), \(updated), \(updated))")
            }
            try await transaction.execute("INSERT INTO floor (venueId, level, name) VALUES ('hall', 0, 'Ground')")
            for (minor, status) in [(1, "active"), (2, "retired")] {
                try await transaction.execute(
                    "INSERT INTO beacon (venueId, uuid, major, minor, status) VALUES ('hall', 'B9407F30-F5F8-466E-AFF9-25556B57FE6D', 1, \(Int64(minor)), \(status))")
            }
            try await transaction.execute("INSERT INTO spot (venueId, name, x, y, floor) VALUES ('hall', 'a', 0, 0, 0)")
        }
        // When the daemon lists them (on its async path) and polls the revisions
        let venues = try await store.venues()
        let revisions = try await store.revisions()
        // Then both engines answer the same: by id, active beacons only, the dates as written
        #expect(venues.map(\.id) == ["annex", "hall"])
        #expect(venues[1].floors == 1 && venues[1].activeBeacons == 1 && venues[1].spots == 1 && venues[1].fingerprints == 0)
        #expect(venues[1].updatedAt == updated && venues[1].revision == 4)
        #expect(revisions == ["hall": 4, "annex": 1])
    }

    @Test("a tuning is saved at the survey's revision, bumps it, reads back whole, and is refused when the venue moved on", arguments: engines)
    func tuning(engine: StoreEngine) async throws {
        // Given a tuning of the fixture hall (tuned on SQLite) and a store on `engine` holding the venue at revision 2
        let (_, survey) = try await TuningStoreTests.recorded(.sqlite)
        let result = try TuningStoreTests.tune(survey)
        let store = try await Self.store(engine)
        try await store.sqlWrite { transaction in
            try await transaction.execute(
                "INSERT INTO venue (id, name, revision, createdAt, updatedAt) VALUES ('hall', 'Hall', 2, \(Date()), \(Date()))")
        }
        await #expect(try store.tuning(of: "hall") == nil)
        await #expect(throws: StoreError.unknownVenue("atlantis")) { try await store.tuning(of: "atlantis") }
        // When it is saved for revision 2
        let saved = try await store.saveTuning(result, of: "hall", surveyRevision: 2, seconds: 1.5)
        // Then it bumped the revision, and reads back equal to what was saved
        let revisions: [String: Int] = try await store.revisions()
        #expect(saved.revision == 3 && revisions["hall"] == 3)
        await #expect(try store.tuning(of: "hall") == saved)
        // And a tuning of the survey as it was at revision 2 is refused now, and nothing changes
        await #expect(throws: StoreError.self) { try await store.saveTuning(result, of: "hall", surveyRevision: 2, seconds: 1) }
        await #expect(try store.tuning(of: "hall") == saved)
    }

    @Test("dates are stored as seconds since the Unix epoch, to the millisecond, and read back the same")
    func dates() throws {
        // Given a date with a fraction of a second
        let date = Date(timeIntervalSince1970: 1_795_000_000.1234)
        // Then it is stored to the millisecond, and reads back exactly that, whole seconds too (SQLite may
        // hand back a whole REAL as an integer)
        #expect(SQLValue(date) == .real(1_795_000_000.123))
        let row = SQLRow(columns: ["at", "whole"], values: [SQLValue(date), .integer(1_795_000_000)])
        #expect(try row.date("at") == SQLValue.storedPrecision(date))
        #expect(try row.date("whole").timeIntervalSince1970 == 1_795_000_000)
    }

    @Test("both engines know the same migrations, by name, in the same order")
    func sameMigrations() {
        #expect(PostgresMigrations.migrations.map(\.identifier) == StoreMigrations.migrator.migrations)
    }

    @Test("the PostgreSQL cases run where make test runs them", .enabled(if: ProcessInfo.processInfo.environment["CI"] != nil))
    func postgresInCI() {
        #expect(Self.postgresURL != nil, "CI runs make test, which starts a throwaway PostgreSQL (scripts/with-postgres.sh)")
    }

    @Test("values go in and come back the same on both engines: integers, numbers, text, bytes, nulls", arguments: engines)
    func valuesRoundTrip(engine: StoreEngine) async throws {
        // Given a migrated database
        let backend = try await Self.backend(engine)
        let image = Data([0x89, 0x50, 0x4E, 0x47, 0, 255, 7])
        // When a venue, a floor and a plan are written with a parameter of every kind
        try await backend.write { transaction in
            try await transaction.execute(
                "INSERT INTO venue (id, name, revision, createdAt, updatedAt, geoLat) VALUES (\("hall"), \("Hall 'A'?"), \(3), \(1_795_417_200), \(1_795_417_200), \(.null))")
            try await transaction.execute("INSERT INTO floor (venueId, level, name) VALUES (\("hall"), \(-1), \("Basement"))")
            try await transaction.execute(
                """
                INSERT INTO floorPlan (venueId, level, image, mediaType, data, topLeftX, topLeftY, bottomRightX, bottomRightY,
                topRightX, topRightY, updatedAt) VALUES (\("hall"), \(-1), \("plans/b.png"), \("image/png"), \(image), \(-1.5), \(25), \(41.25), \(-1), \(41.25), \(25), \(1_795_417_200))
                """)
        }
        // Then they read back as they were written, found by the names the SQL gives them
        let rows = try await backend.read { transaction in
            try await transaction.rows(
                "SELECT v.name, v.revision, v.geoLat, p.data, p.topLeftX, p.level FROM venue v JOIN floorPlan p ON p.venueId = v.id WHERE v.id = \("hall")")
        }
        #expect(rows.count == 1)
        #expect(try rows[0].text("name") == "Hall 'A'?")
        #expect(try rows[0].integer("revision") == 3)
        #expect(rows[0]["geoLat"] == .null)
        #expect(rows[0]["data"] == .blob(image))
        #expect(try rows[0].real("topLeftX") == -1.5)
        #expect(try rows[0].integer("level") == -1)
    }

    @Test("a transaction whose body throws leaves nothing behind, and the constraints hold", arguments: engines)
    func rollback(engine: StoreEngine) async throws {
        // Given a migrated database
        let backend = try await Self.backend(engine)
        struct Abandoned: Error {}
        // When a transaction writes a venue and then fails
        await #expect(throws: Abandoned.self) {
            try await backend.write { transaction in
                try await transaction.execute(
                    "INSERT INTO venue (id, name, createdAt, updatedAt) VALUES (\("gone"), \("Gone"), \(1_795_417_200), \(1_795_417_200))")
                throw Abandoned()
            }
        }
        // Then the venue is not there, and the next transaction works on the same connection pool
        await #expect(try backend.read { try await $0.rows("SELECT COUNT(*) AS n FROM venue") }.first?.integer("n") == 0)
        // And a beacon outside 0...65535 is refused by the schema on both engines
        await #expect(throws: (any Error).self) {
            try await backend.write { transaction in
                try await transaction.execute(
                    "INSERT INTO venue (id, name, createdAt, updatedAt) VALUES (\("v"), \("V"), \(1_795_417_200), \(1_795_417_200))")
                try await transaction.execute(
                    "INSERT INTO beacon (venueId, uuid, major, minor) VALUES (\("v"), \("B9407F30-F5F8-466E-AFF9-25556B57FE6D"), \(1), \(70000))")
            }
        }
        await #expect(try backend.read { try await $0.rows("SELECT COUNT(*) AS n FROM venue") }.first?.integer("n") == 0)
    }

    @Test("PostgreSQL: migrating twice changes nothing; a database with a migration this build does not know is refused",
          .enabled(if: postgresURL != nil, "needs BEACONFIX_TEST_POSTGRES: run under scripts/with-postgres.sh, as make test does"))
    func postgresMigrations() async throws {
        // Given a migrated database
        let backend = try await Self.backend(.postgresql)
        await #expect(try PostgresMigrations.applied(backend).sorted() == StoreMigrations.migrator.migrations.sorted())
        // When it is migrated again, nothing changes
        try await PostgresMigrations.migrate(backend)
        await #expect(try PostgresMigrations.applied(backend).count == StoreMigrations.migrator.migrations.count)
        // When a newer beaconfix has added a migration
        try await backend.write { try await $0.execute("INSERT INTO beaconfix_migrations (identifier) VALUES ('v99: from the future')") }
        // Then this build refuses it, naming the migration, and changes nothing
        await #expect(throws: StoreError.newerSchema(path: backend.location, unknownMigrations: ["v99: from the future"])) {
            try await PostgresMigrations.migrate(backend)
        }
    }

    @Test("PostgreSQL: the password never shows in the store's name; an unreachable server is a sentence without it")
    func postgresLocation() async throws {
        // Given a URL with a password
        let url = try #require(try PostgresLocation(url: "postgres://ops:s3cret@127.0.0.1:1/beaconfix"))
        // Then its description hides the password, and a file path is not a PostgreSQL location
        #expect(url.description == "postgres://ops@127.0.0.1:1/beaconfix")
        #expect(try PostgresLocation(url: "/var/lib/beaconfix/store.sqlite") == nil)
        #expect(throws: StoreError.self) { try PostgresLocation(url: "postgres://127.0.0.1/beaconfix") }
        #expect(throws: StoreError.self) { try PostgresLocation(url: "postgres://ops@127.0.0.1:5432") }
        // When nothing listens there
        let backend = PostgresBackend(url: url, logger: Self.logger)
        do {
            try await backend.read { _ in }
            Issue.record("port 1 must refuse the connection")
        } catch let error as StoreError {
            // Then the error names the store without its password
            #expect(!error.description.contains("s3cret") && error.description.contains("postgres://ops@127.0.0.1:1/beaconfix"), "\(error)")
        }
        // (and its pool stops trying)
        await backend.close()
    }

    @Test("an interpolated value is bound on each engine, never read as SQL: PostgreSQL's markers numbered by postgres-nio, SQLite's as ?")
    func interpolatedBinds() throws {
        // Given a statement with SQL text composed in code, values of every kind and a value that looks like SQL
        let hostile = "x' OR '1' = '1"
        let statement: SQLStatement = "SELECT '?' AS mark FROM \(sql: "venue") WHERE id = \(hostile) AND revision > \(3) AND at < \(1.5) AND plan = \(Data([1])) AND note IS \(String?.none)"
        // When it is rendered for each engine
        let postgres = try PostgresQuery(statement)
        let sqlite = statement.questionMarked
        // Then the code's text stands as written, and each value is a parameter
        #expect(postgres.sql == "SELECT '?' AS mark FROM venue WHERE id = $1 AND revision > $2 AND at < $3 AND plan = $4 AND note IS $5")
        #expect(postgres.binds.count == 5)
        #expect(sqlite.sql == "SELECT '?' AS mark FROM venue WHERE id = ? AND revision > ? AND at < ? AND plan = ? AND note IS ?")
        #expect(sqlite.arguments == [.text(hostile), .integer(3), .real(1.5), .blob(Data([1])), .null])
    }

    @Test("values that look like SQL are stored and matched as values on both engines", arguments: engines)
    func boundValuesRoundTrip(engine: StoreEngine) async throws {
        // Given a migrated database and a name that would end the statement if it were spliced in
        let backend = try await Self.backend(engine)
        let name = "Hall'); DROP TABLE venue; -- ?$1"
        // When a venue of that id is written and read back through interpolated statements
        let rows = try await backend.write { transaction in
            try await transaction.execute("INSERT INTO venue (id, name, revision, createdAt, updatedAt) VALUES (\(name), \(name), \(1), \(Date()), \(Date()))")
            return try await transaction.rows("SELECT id, name FROM venue WHERE id = \(name) AND name = \(name)")
        }
        // Then the one row holds the text as given, and the table is still there
        #expect(try rows.map { try $0.text("name") } == [name])
        #expect(try await backend.read { try await $0.count("SELECT COUNT(*) FROM venue") } == 1)
    }

    @Test("PostgreSQL: closing the store shuts its pool down as a service: its sessions leave the server, and a later transaction is refused with a sentence")
    func closingThePool() async throws {
        guard Self.postgresURL != nil else { return }
        // Given a store on PostgreSQL that has run a transaction, and a second store to watch the server with
        let backend = try await Self.emptyPostgresSchema()
        let store = try await FingerprintStore(postgres: backend, logger: Self.logger)
        _ = try await store.revisions()
        let watcher = try await Self.emptyPostgresSchema()
        func sessions() async throws -> Int {
            try await watcher.read { try await $0.count("SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = \(backend.applicationName)") }
        }
        #expect(try await sessions() >= 1)
        // When the store is closed
        await store.close()
        // Then none of its sessions is left on the server (the server drops a session just after its socket
        // closes: asked for up to 5 s), and the store refuses new work, saying why
        var left = try await sessions()
        let deadline = ContinuousClock.now + .seconds(5)
        while left > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            left = try await sessions()
        }
        #expect(left == 0)
        await #expect(throws: StoreError.storageFault("the store on \(backend.location) was closed; no transaction can start on it")) {
            try await store.revisions()
        }
        await watcher.close()
    }

    /// Every pair of engines, for copies between them.
    static var enginePairs: [(StoreEngine, StoreEngine)] { engines.flatMap { source in engines.map { (source, $0) } } }

    @Test("a copy between any two engines reproduces the venue, its plans, zones, fingerprints and tuning exactly; a second copy writes nothing", arguments: enginePairs)
    func copy(from sourceEngine: StoreEngine, to targetEngine: StoreEngine) async throws {
        // Given a recorded, tuned hall with a retired beacon, a zone polygon and a floor plan on the source engine
        let source = try await Self.store(sourceEngine)
        var venue = StoreFixtures.venue
        venue.zones = [ZoneArea(name: "west", floor: 0, polygon: [.init(x: -1, y: -1), .init(x: 6, y: -1), .init(x: 6, y: 1), .init(x: -1, y: 1)])]
        _ = try await source.importVenue(venue)
        let placement = FloorPlanPlacement(image: "ground.svg", topLeft: .init(x: 0, y: 10), bottomRight: .init(x: 12, y: 0))
        let image = FloorPlanImage(data: Data("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 120 100'/>".utf8), mediaType: .svg)
        try await source.setFloorPlan(venue: "hall", level: 0, placement: placement, image: image)
        _ = try await source.record(StoreFixtures.survey, into: "hall", options: StoreFixtures.options)
        _ = try await source.replaceBeacon(ReplacementRequest(venue: "hall", old: StoreFixtures.beacon(3), new: nil), scale: PositioningConfiguration.defaultScale)
        let (_, survey) = try await TuningStoreTests.recorded(.sqlite)
        _ = try await source.saveTuning(try TuningStoreTests.tune(survey), of: "hall", surveyRevision: try source.venue("hall").revision, seconds: 2)
        // When it is copied to a fresh store on the target engine
        let target = try await Self.store(targetEngine)
        let summaries = try await target.copyVenues(nil, from: source)
        // Then the target holds the same venue, plans, fingerprints and tuning, the tuning current at its revision
        #expect(summaries.map(\.venue) == ["hall"] && summaries[0].fingerprints == 6 && summaries[0].floorPlans == 1 && summaries[0].tuned)
        let (copied, original) = await (try target.venue("hall"), try source.venue("hall"))
        #expect(copied.definition(includingRetired: true) == original.definition(includingRetired: true))
        #expect(copied.zoneAreas == original.zoneAreas && copied.beacons == original.beacons)
        await #expect(try target.floorPlans(of: "hall") == source.floorPlans(of: "hall"))
        await #expect(try target.exportFingerprints(of: "hall") == source.exportFingerprints(of: "hall"))
        let tuning = try await #require(try target.tuning(of: "hall"))
        await #expect(tuning.result == (try source.tuning(of: "hall"))?.result && tuning.revision == copied.revision && copied.revision == summaries[0].revision)
        // And copying again is refused, leaving the target as it was
        let before = try await StoreFixtures.snapshot(target)
        await #expect(throws: StoreError.conflict("venue 'hall' already has fingerprints; import into a fresh database or another --db")) {
            try await target.copyVenues(["hall"], from: source)
        }
        await #expect(try StoreFixtures.snapshot(target) == before)
        await #expect(throws: StoreError.unknownVenue("atlantis")) { try await target.copyVenues(["atlantis"], from: source) }
    }
}
