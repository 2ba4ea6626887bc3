import FingerprintStore
import Testing
import TestSupport
import VenueServices

@Suite("VenueServices: tuning a venue")
struct VenueTunerTests {
    @Test("a recorded venue is tuned and the tuning stored at a new revision, with progress to the last candidate")
    func tunesAndStores() async throws {
        // Given the demo venue recorded but not tuned
        let store = try await DemoVenue.store()
        let before = try await store.venue("demo-hall").revision
        // When it is tuned, counting the progress reports
        var reports: [(done: Int, total: Int)] = []
        let tuning = try await VenueTuner(store: store).tune("demo-hall") { reports.append(($0, $1)) }
        // Then the tuning is stored at the venue's new revision, and the progress ran up to its total
        let stored = try await #require(try store.tuning(of: "demo-hall"))
        #expect(stored.revision == tuning.revision && tuning.revision > before)
        #expect(try await store.venue("demo-hall").revision == tuning.revision)
        #expect(stored.result == tuning.result)
        let last = try #require(reports.last)
        #expect(last.done == last.total && reports.count > 1)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.done <= $1.done })
    }

    @Test("a venue without a survey is refused with a sentence that says what to record, and nothing is stored")
    func refusesThinSurvey() async throws {
        // Given the demo venue imported, nothing recorded
        let store = try await DemoVenue.store(recorded: false)
        let before = try await store.venue("demo-hall").revision
        // When it is tuned
        let refusal = await #expect(throws: TuningRefusal.self) { try await VenueTuner(store: store).tune("demo-hall") }
        // Then the refusal names the venue and the command, and neither a tuning nor a revision was written
        #expect(refusal?.reason.contains("venue 'demo-hall' has no survey fingerprint") == true)
        #expect(refusal?.reason.contains("survey record --venue demo-hall") == true)
        #expect(try await store.tuning(of: "demo-hall") == nil)
        #expect(try await store.venue("demo-hall").revision == before)
    }
}
