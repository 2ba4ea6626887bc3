import ScanFormats
import FingerprintStore
import Foundation
import GRDB
import Logging
import Positioning
import PositioningTuning
import Testing

@Suite("FingerprintStore")
struct StoreTests {
    @Test("migrations run from an empty database and create every table")
    func migratesFromEmpty() async throws {
        // Given an empty in-memory database
        let store = try FingerprintStore.inMemory()
        // Then every migration is applied and every table exists
        let (applied, tables) = try await store.writer.read { db in
            (try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"),
             try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")))
        }
        #expect(applied == FingerprintStore.knownMigrations)
        #expect(tables.isSuperset(of: ["venue", "floor", "beacon", "spot", "surveySession", "fingerprint", "fingerprintEntry"]))
        #expect(try await store.venues().isEmpty)
    }

    @Test("a file is opened as a WAL-mode pool and reopened without migrating again")
    func walPool() async throws {
        let directory = try StoreFixtures.temporaryDirectory()
        let path = directory.appendingPathComponent("test.sqlite").path
        do {
            let store = try FingerprintStore.open(path: path, logger: Logger(label: "test"))
            _ = try await store.importVenue(StoreFixtures.venue)
            let mode = try await store.writer.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
            #expect(mode == "wal")
        }
        let reopened = try FingerprintStore.open(path: path, logger: Logger(label: "test"))
        #expect(try await reopened.venues().map(\.id) == ["hall"])
    }

    @Test("a database written by a newer beaconfix is refused, and left untouched")
    func refusesNewerSchema() throws {
        // Given a database to which a future version added a migration
        let directory = try StoreFixtures.temporaryDirectory()
        let path = directory.appendingPathComponent("future.sqlite").path
        _ = try FingerprintStore.open(path: path, logger: Logger(label: "test"))
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9: something from the future')") }
        try queue.close()
        // When this build opens it
        // Then it refuses with a message that says why
        do {
            _ = try FingerprintStore.open(path: path, logger: Logger(label: "test"))
            Issue.record("a newer schema must be refused")
        } catch let error as StoreError {
            #expect(error.description.contains("newer version of beaconfix"))
            #expect(error.description.contains("v9: something from the future"))
        }
        let after = try DatabaseQueue(path: path)
        #expect(try after.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }.count
            == FingerprintStore.knownMigrations.count + 1)
    }

    @Test("a stored key scope this build does not know is an error that names it, never a guess")
    func unknownStoredScope() async throws {
        // Given a key whose stored scope was written by something else
        let store = try FingerprintStore.inMemory()
        _ = try await store.createKey(name: "app", scope: .locate)
        // (the schema's CHECK refuses it; another tool could have turned checks off, as here)
        try await store.writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON; UPDATE apiKey SET scope = 'superuser'; PRAGMA ignore_check_constraints = OFF")
        }
        // When the keys are read
        // Then the read fails and says what it could not read (it used to become 'locate' silently)
        do {
            _ = try await store.keys()
            Issue.record("an unknown scope must not be read as a known one")
        } catch {
            #expect("\(error)".contains("superuser"), "\(error)")
        }
    }

    @Test("importing a venue creates it; importing it again changes nothing; a change bumps the revision", arguments: BackendTests.engines)
    func venueImportAndRevisions(engine: StoreEngine) async throws {
        let store = try await BackendTests.store(engine)
        let created = try await store.importVenue(StoreFixtures.venue)
        #expect(created.created)
        #expect(created.beaconsAdded == 3)
        #expect(created.spotsAdded == 3)
        #expect(created.revision == 1)

        let again = try await store.importVenue(StoreFixtures.venue)
        #expect(!again.changedPositioning)
        #expect(again.revision == 1)

        var moved = StoreFixtures.venue
        moved.spots[2].x = 11
        let changed = try await store.importVenue(moved)
        #expect(changed.spotsUpdated == 1)
        #expect(changed.revision == 2)
        #expect(try await store.revisions() == ["hall": 2])
    }

    @Test("an invalid venue is refused with its problems and writes nothing", arguments: BackendTests.engines)
    func invalidVenue(engine: StoreEngine) async throws {
        let store = try await BackendTests.store(engine)
        var broken = StoreFixtures.venue
        broken.spots.append(Spot(name: "a", x: 1, y: 1, floor: 7))
        await #expect(throws: StoreError.self) { try await store.importVenue(broken) }
        #expect(try await store.venues().isEmpty)
    }

    @Test("recording stores one fingerprint per window, bumps the revision and reports coverage", arguments: BackendTests.engines)
    func recording(engine: StoreEngine) async throws {
        // Given the hall
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(StoreFixtures.venue)
        // When 18 samples (6 per spot) are recorded in windows of 3, with one empty scan and a stranger beacon
        var samples = StoreFixtures.survey
        samples.append(LabelledSample(sample: Sample(device: "phone", time: 99, readings: []), truth: GroundTruth(spot: "c", x: 10, y: 0, floor: 0)))
        samples[0].sample.readings.append(Reading(beacon: StoreFixtures.beacon(42), rssi: -80))
        let summary = try await store.record(samples, into: "hall", options: StoreFixtures.options)
        // Then
        #expect(summary.fingerprints == 6)
        #expect(summary.emptySamples == 1)
        #expect(summary.unknownBeaconReadings == [StoreFixtures.beacon(42).description: 1])
        #expect(summary.revision == 2)
        #expect(summary.spots.map(\.total) == [2, 2, 2])
        #expect(summary.spotsToRevisit == ["a", "b", "c"], "two fingerprints per spot are too few")
        let survey = try await store.survey(of: "hall", scale: PositioningConfiguration.defaultScale)
        #expect(survey.fingerprints.count == 6)
        #expect(survey.revision == 2)
        #expect(survey.fingerprints.allSatisfy { $0.fingerprint.entries.count == 3 })
    }

    @Test("a second recording's coverage counts the spot's earlier fingerprints and its new ones", arguments: BackendTests.engines)
    func coverageAcrossRecordings(engine: StoreEngine) async throws {
        // Given the hall surveyed once (2 fingerprints of 3 beacons per spot)
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(StoreFixtures.venue)
        _ = try await store.record(StoreFixtures.survey, into: "hall", options: StoreFixtures.options)
        // When spot "a" gets 2 more fingerprints, which hear only 2 beacons
        let more = StoreFixtures.samples(at: "a", x: 0, count: 6, rssi: [1: -60, 2: -70], start: 100)
        let summary = try await store.record(more, into: "hall", options: StoreFixtures.options)
        // Then the summary counts 4 fingerprints at "a", 2 of them new, and agrees with the stats
        let a = try #require(summary.spots.first { $0.spot == "a" })
        #expect(a.added == 2)
        #expect(a.total == 4)
        #expect(a.medianBeacons == 3)
        #expect(summary.spots.map(\.spot) == ["a"])
        #expect(summary.spotsToRevisit == ["b", "c"])
        await #expect(try store.stats(of: "hall").thinSpots.map(\.spot) == summary.spotsToRevisit)
    }

    /// Hands samples over a few at a time, and fails at chunk `failingAt` when given.
    struct ChunkedSamples: LabelledSampleSource {
        struct Failure: Error {}
        var samples: [LabelledSample]
        var chunkSize: Int
        var failingAt: Int?
        var chunksGiven = 0

        mutating func nextChunk() throws -> [LabelledSample]? {
            if chunksGiven == failingAt { throw Failure() }
            guard !samples.isEmpty else { return nil }
            defer { chunksGiven += 1 }
            let chunk = Array(samples.prefix(chunkSize))
            samples.removeFirst(chunk.count)
            return chunk
        }
    }

    @Test("a log recorded chunk by chunk stores what the whole log at once stores", arguments: BackendTests.engines, [1, 2, 5, 7])
    func chunkedRecording(engine: StoreEngine, chunkSize: Int) async throws {
        // Given the hall twice, and a log with an empty scan and an unknown beacon
        var samples = StoreFixtures.survey
        samples.insert(LabelledSample(sample: Sample(device: "phone", time: 5.5, readings: []), truth: GroundTruth(spot: "a", x: 0, y: 0, floor: 0)), at: 4)
        samples[8].sample.readings.append(Reading(beacon: StoreFixtures.beacon(42), rssi: -80))
        let whole = try await BackendTests.store(engine)
        let chunked = try await BackendTests.store(engine)
        _ = try await whole.importVenue(StoreFixtures.venue)
        _ = try await chunked.importVenue(StoreFixtures.venue)
        // When one records the log at once and the other in chunks
        let expected = try await whole.record(samples, into: "hall", options: StoreFixtures.options)
        let summary = try await chunked.record(
            from: ChunkedSamples(samples: samples, chunkSize: chunkSize), into: "hall", options: StoreFixtures.options)
        // Then summaries and stored fingerprints agree
        #expect(summary == expected)
        #expect(summary.fingerprints == 6)
        // (the sessions' recording times aside: each store stamps its own)
        func stored(_ store: FingerprintStore) async throws -> [ExportedFingerprint] {
            try await store.exportFingerprints(of: "hall").map { fingerprint in
                var fingerprint = fingerprint
                fingerprint.session.recordedAt = 0
                return fingerprint
            }
        }
        await #expect(try stored(chunked) == stored(whole))
    }

    @Test("a log that fails after some chunks were stored leaves the database exactly as before", arguments: BackendTests.engines)
    func failedChunkedRecording(engine: StoreEngine) async throws {
        // Given a recorded hall
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(StoreFixtures.venue)
        _ = try await store.record(StoreFixtures.survey, into: "hall", options: StoreFixtures.options)
        let before = try await StoreFixtures.snapshot(store)
        // When a second log fails at its third chunk, after two chunks' fingerprints were written
        let source = ChunkedSamples(samples: StoreFixtures.survey, chunkSize: 6, failingAt: 2)
        await #expect(throws: ChunkedSamples.Failure.self) {
            try await store.record(from: source, into: "hall", options: StoreFixtures.options)
        }
        // Then nothing changed
        await #expect(try StoreFixtures.snapshot(store) == before)
    }

    @Test("unknown beacons are added on request, and spots missing from the venue are created", arguments: BackendTests.engines)
    func addsUnknownBeaconsAndSpots(engine: StoreEngine) async throws {
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(StoreFixtures.venue)
        let stranger = StoreFixtures.samples(at: "d", x: 15, count: 3, rssi: [3: -60, 42: -70])
        var options = StoreFixtures.options
        options.addUnknownBeacons = true
        let summary = try await store.record(stranger, into: "hall", options: options)
        #expect(summary.beaconsAdded == [StoreFixtures.beacon(42).description])
        #expect(summary.spotsCreated == ["d"])
        let venue = try await store.venue("hall")
        #expect(venue.activeBeacons.count == 4)
        #expect(venue.spots.map(\.name) == ["a", "b", "c", "d"])
    }

    @Test("recording into an unknown venue fails", arguments: BackendTests.engines)
    func unknownVenue(engine: StoreEngine) async throws {
        let store = try await BackendTests.store(engine)
        await #expect(throws: StoreError.unknownVenue("nowhere")) {
            try await store.record(StoreFixtures.survey, into: "nowhere", options: StoreFixtures.options)
        }
    }

    @Test("a failed import leaves the database exactly as before", arguments: BackendTests.engines)
    func failedImportRollsBack(engine: StoreEngine) async throws {
        // Given a venue with a recorded survey, exported
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(StoreFixtures.venue)
        _ = try await store.record(StoreFixtures.survey, into: "hall", options: StoreFixtures.options)
        var exported = try await store.exportFingerprints(of: "hall")
        let before = try await StoreFixtures.snapshot(store)
        // When re-importing them fails at the last fingerprint (a beacon the venue does not have)
        exported[exported.count - 1].entries[0].beacon = StoreFixtures.beacon(99)
        await #expect(throws: StoreError.unknownBeacon(venue: "hall", beacon: StoreFixtures.beacon(99).description)) {
            try await store.importFingerprints(exported, into: "hall")
        }
        // Then nothing of the first fingerprints, sessions or revision bump remains
        await #expect(try StoreFixtures.snapshot(store) == before)
    }

    @Test("retired beacons leave the radio map and relative powers are recomputed among the others", arguments: BackendTests.engines)
    func retiredBeaconsLeaveTheMap(engine: StoreEngine) async throws {
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(StoreFixtures.venue)
        _ = try await store.record(StoreFixtures.survey, into: "hall", options: StoreFixtures.options)
        try await store.sqlWrite { try await $0.execute("UPDATE beacon SET status = 'retired' WHERE minor = 1") }
        let survey = try await store.survey(of: "hall", scale: PositioningConfiguration.defaultScale)
        #expect(survey.fingerprints.allSatisfy { $0.fingerprint.entries[StoreFixtures.beacon(1)] == nil })
        // At spot a, beacon 2 is now the strongest
        let atA = try #require(survey.fingerprints.first { $0.spot == 0 })
        #expect(atA.fingerprint.entries[StoreFixtures.beacon(2)]?.relativePower == 1)
    }

    @Test("export then import into a fresh database round-trips exactly", arguments: BackendTests.engines)
    func exportImportRoundTrip(engine: StoreEngine) async throws {
        // Given a recorded venue with a retired beacon
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(StoreFixtures.venue)
        _ = try await store.record(StoreFixtures.survey, into: "hall", options: StoreFixtures.options)
        try await store.sqlWrite { try await $0.execute("UPDATE beacon SET status = 'retired' WHERE minor = 3") }
        let definition = try await store.venue("hall").definition(includingRetired: true)
        let exported = try await store.exportFingerprints(of: "hall")
        // When imported into a fresh database
        let fresh = try await BackendTests.store(engine)
        _ = try await fresh.importVenue(definition)
        _ = try await fresh.importFingerprints(exported, into: "hall")
        // Then the venue and every fingerprint value are identical
        await #expect(try fresh.exportFingerprints(of: "hall") == exported)
        await #expect(try fresh.venue("hall").definition(includingRetired: true) == definition)
        await #expect(try fresh.venue("hall").beacons == store.venue("hall").beacons)
    }

    @Test("stats count the survey and name beacons never seen and thin spots", arguments: BackendTests.engines)
    func stats(engine: StoreEngine) async throws {
        let store = try await BackendTests.store(engine)
        var venue = StoreFixtures.venue
        venue.beacons.append(VenueDefinition.Beacon(uuid: StoreFixtures.uuid, major: 1, minor: 9, label: "spare"))
        _ = try await store.importVenue(venue)
        _ = try await store.record(StoreFixtures.survey, into: "hall", options: StoreFixtures.options)
        let stats = try await store.stats(of: "hall")
        #expect(stats.fingerprints == 6)
        #expect(stats.entries == 18)
        #expect(stats.sessions == 1)
        #expect(stats.beaconsNeverSeen == [StoreFixtures.beacon(9).description])
        #expect(stats.thinSpots.count == 3)
    }

    @Test("the daemon's reload reads a venue's survey and coverage in one transaction: both at the same revision", arguments: BackendTests.engines)
    func surveyAndCoverageTogether(engine: StoreEngine) async throws {
        // Given the hall recorded
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(StoreFixtures.venue)
        _ = try await store.record(StoreFixtures.survey, into: "hall", options: StoreFixtures.options)
        // When both are read together
        let (survey, coverage) = try await store.surveyAndCoverage(of: "hall", scale: PositioningConfiguration.defaultScale)
        // Then they describe the same revision and the same spots, and agree with the separate reads
        let revision = try await store.venue("hall").revision
        let separateCoverage = try await store.coverage(of: "hall")
        let separateSurvey = try await store.survey(of: "hall", scale: PositioningConfiguration.defaultScale)
        #expect(survey.revision == revision && coverage.revision == revision)
        #expect(coverage.spots.map(\.spot.name) == survey.spots.map(\.name))
        #expect(coverage == separateCoverage)
        #expect(survey.surveyed.count == separateSurvey.surveyed.count && !survey.surveyed.isEmpty)
    }
}
