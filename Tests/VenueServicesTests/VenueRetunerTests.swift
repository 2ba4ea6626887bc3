import FingerprintStore
import Foundation
import Positioning
import ScanFormats
import Synchronization
import Testing
import TestSupport
import VenueServices

/// Re-tuning after commits: one tuning of a venue at a time, and the commits made meanwhile folded into one more.
@Suite("VenueServices: re-tuning after survey sessions")
struct VenueRetunerTests {
    /// How many tunings ran, and the most that ran at once.
    final class TuningLog: Sendable {
        struct Counts { var started = 0, running = 0, mostAtOnce = 0 }
        let counts = Mutex(Counts())
    }

    @Test("commits made while the venue is being tuned make exactly one more tuning, after the running one, which sees their survey")
    func coalesced() async throws {
        // Given the demo venue recorded but not tuned, and a retuner over the store's real tuning that logs its calls
        let store = try await DemoVenue.store()
        let log = TuningLog()
        let retuner = VenueRetuner(logger: DemoVenue.logger) { venue in
            log.counts.withLock { counts in
                counts.started += 1
                counts.running += 1
                counts.mostAtOnce = max(counts.mostAtOnce, counts.running)
            }
            defer { log.counts.withLock { $0.running -= 1 } }
            return try await VenueTuner(store: store).tune(venue)
        }
        // When a tuning is asked for, and three more once it has started (three commits during it), the survey changing meanwhile
        await retuner.retune("demo-hall")
        while log.counts.withLock({ $0.started }) == 0 { try await Task.sleep(for: .milliseconds(1)) }
        let lines = ScanLogDecoder().decode(try DemoVenue.file("survey.jsonl")).lines.map(\.line)
        let session = try await store.openSurveyUpload(venue: "demo-hall", operator: nil, deviceModel: nil, notes: nil)
        _ = try await store.addSurveyBatch(Array(lines.prefix(30)), id: "more", to: session.id, of: "demo-hall")
        let committed = try await store.commitSurveyUpload(session.id, of: "demo-hall", options: RecordOptions(windowSize: 1, builder: PositioningConfiguration().builder))
        for _ in 0..<3 { await retuner.retune("demo-hall") }
        #expect(log.counts.withLock { $0.running } == 1, "the first tuning must still run for this test to mean anything")
        await retuner.waitUntilIdle()
        // Then two tunings ran, never side by side, and the stored tuning is of the survey the commit made: it
        // is the venue's latest revision, after the commit's (the store keeps a tuning only when the venue did
        // not change while it ran, so the first is refused if it read the survey before the commit)
        let counts = log.counts.withLock { $0 }
        #expect(counts.started == 2 && counts.mostAtOnce == 1)
        let tuned = try await #require(try store.tuning(of: "demo-hall"))
        let latest = try await store.venue("demo-hall").revision
        #expect(tuned.revision > committed.summary.revision && tuned.revision == latest)
        // And when asked again once idle, it tunes again
        await retuner.retune("demo-hall")
        await retuner.waitUntilIdle()
        #expect(log.counts.withLock { $0.started } == 3)
    }
}
