import FingerprintStore
import Foundation
import GRDB
import Positioning
import PositioningTuning
import Testing

@Suite("Store: venue tunings and survey runs")
struct TuningStoreTests {
    /// The fixture venue with its survey recorded one sample per fingerprint, and its cross-validation.
    static func recorded(_ engine: StoreEngine) async throws -> (FingerprintStore, VenueSurvey) {
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(StoreFixtures.venue)
        var options = StoreFixtures.options
        options.windowSize = 1
        _ = try await store.record(StoreFixtures.survey, into: "hall", options: options)
        return (store, try await store.survey(of: "hall", scale: PositioningConfiguration.defaultScale))
    }

    static func tune(_ survey: VenueSurvey) throws -> TuningResult {
        var space = TuningSearchSpace.standard
        space.windows = [.fingerprints(1), .wholeRun]
        space.decibelPenalties = [[5, 2]]
        space.offsetShrinkages = [0]
        space.relativePenalties = [[0.4, 0.2]]
        let validation = SurveyCrossValidation(spots: survey.spots, survey: survey.surveyed, scale: PositioningConfiguration.defaultScale)
        return try #require(try SurveyTuner(space: space).tune(validation))
    }

    @Test("the survey is read back with its runs: one per spot, device and session, in recording order", arguments: BackendTests.engines)
    func runs(engine: StoreEngine) async throws {
        // Given 3 spots of 6 samples, one sample per fingerprint (3 samples hear nothing... none here)
        let (store, survey) = try await Self.recorded(engine)
        // Then every fingerprint is one sample, and runs change exactly where the spot changes
        #expect(survey.surveyed.count == 18)
        #expect(survey.surveyed.allSatisfy { $0.fingerprint.sampleCount == 1 })
        let expectedRuns: [Int] = (0..<18).map { $0 / 6 }
        let expectedTimes: [Double] = (0..<18).map { Double(($0 / 6) * 10 + $0 % 6) }
        #expect(survey.surveyed.map(\.run) == expectedRuns)
        #expect(survey.surveyed.map(\.time) == expectedTimes)
        // And a second session at the same spot is a run of its own
        var options = StoreFixtures.options
        options.windowSize = 1
        _ = try await store.record(StoreFixtures.samples(at: "a", x: 0, count: 2, rssi: [1: -56, 2: -71], start: 100), into: "hall", options: options)
        let again = try await store.survey(of: "hall", scale: PositioningConfiguration.defaultScale)
        #expect(again.surveyed.suffix(2).map(\.run) == [3, 3])
        // And an untuned venue uses the untuned configuration
        #expect(again.tuning == nil)
        #expect(again.configuration.referenceWindow == TunedConfiguration.untuned.referenceWindow)
    }

    @Test("a tuning is stored with the venue, bumps its revision, and is read back whole", arguments: BackendTests.engines)
    func saveAndRead(engine: StoreEngine) async throws {
        // Given a recorded venue and its tuning
        let (store, survey) = try await Self.recorded(engine)
        let result = try Self.tune(survey)
        // When it is saved
        let stored = try await store.saveTuning(result, of: "hall", surveyRevision: survey.revision, seconds: 1.5)
        // Then the revision moved on and the tuning reads back equal, with the survey too
        #expect(stored.revision == survey.revision + 1)
        await #expect(try store.venue("hall").revision == stored.revision)
        let read = try await #require(try store.tuning(of: "hall"))
        #expect(read.result == result)
        #expect(read.revision == stored.revision)
        let resurveyed = try await store.survey(of: "hall", scale: PositioningConfiguration.defaultScale)
        #expect(resurveyed.tuning?.result == result)
        #expect(resurveyed.configuration.referenceWindow == result.configuration.referenceWindow)
        // And a second tuning replaces the first: one row per venue
        try await store.saveTuning(result, of: "hall", surveyRevision: stored.revision, seconds: 2)
        #expect(try await store.sqlRead { try await $0.count("SELECT COUNT(*) FROM venueTuning") } == 1)
    }

    @Test("coverage carries the stored tuning's spot errors, by name, and the revision it was made at", arguments: BackendTests.engines)
    func coverageOfTuning(engine: StoreEngine) async throws {
        // Given a recorded venue, not tuned yet: no tuned revision, no spot error
        let (store, survey) = try await Self.recorded(engine)
        let untuned = try await store.coverage(of: "hall")
        #expect(untuned.tunedRevision == nil)
        #expect(untuned.spots.allSatisfy { $0.crossValidation == nil })
        // When it is tuned
        let result = try Self.tune(survey)
        let stored = try await store.saveTuning(result, of: "hall", surveyRevision: survey.revision, seconds: 1)
        // Then every surveyed spot carries the error the tuning measured, and the coverage names the tuning's revision
        let tuned = try await store.coverage(of: "hall")
        #expect(tuned.tunedRevision == stored.revision && tuned.revision == stored.revision)
        let errors = try #require(result.spotErrors)
        #expect(Set(errors.map(\.name)) == ["a", "b", "c"])
        for spot in tuned.spots {
            #expect(spot.crossValidation != nil && spot.crossValidation == errors.first { $0.name == spot.spot.name }, "\(spot.spot.name)")
        }
        // And a spot the stored errors do not name has none
        var partial = result
        partial.spotErrors = errors.filter { $0.name != "b" }
        let second = try await store.saveTuning(partial, of: "hall", surveyRevision: stored.revision, seconds: 1)
        let withoutB = try await store.coverage(of: "hall")
        #expect(withoutB.spots.filter { $0.crossValidation == nil }.map(\.spot.name) == ["b"])
        // And a tuning stored before tunings kept spot errors gives a tuned revision and no errors
        var older = result
        older.spotErrors = nil
        let third = try await store.saveTuning(older, of: "hall", surveyRevision: second.revision, seconds: 1)
        let old = try await store.coverage(of: "hall")
        #expect(old.tunedRevision == third.revision)
        #expect(old.spots.allSatisfy { $0.crossValidation == nil })
    }

    @Test("a tuning of a survey that changed meanwhile is refused and nothing is written", arguments: BackendTests.engines)
    func staleTuning(engine: StoreEngine) async throws {
        // Given a tuning made at one revision, and the venue changed since
        let (store, survey) = try await Self.recorded(engine)
        let result = try Self.tune(survey)
        var options = StoreFixtures.options
        options.windowSize = 1
        _ = try await store.record(StoreFixtures.samples(at: "b", x: 5, count: 2, rssi: [1: -66, 2: -59]), into: "hall", options: options)
        let revision = try await store.venue("hall").revision
        // Then saving it is a conflict that says what to do, and the venue is untouched
        await #expect {
            try await store.saveTuning(result, of: "hall", surveyRevision: survey.revision, seconds: 1)
        } throws: { error in
            "\(error)".contains("tune it again")
        }
        await #expect(try store.venue("hall").revision == revision)
        await #expect(try store.tuning(of: "hall") == nil)
        // And asking for the tuning of an unknown venue says so
        await #expect(throws: StoreError.unknownVenue("nowhere")) { try await store.tuning(of: "nowhere") }
    }

    @Test("the tuning migration is named and listed")
    func migrationListed() {
        #expect(FingerprintStore.knownMigrations.contains("v4: venue tuning"))
    }
}
