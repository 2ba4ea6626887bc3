public import FingerprintStore
public import Logging

/// Re-tunes venues after survey sessions are committed, one tuning of a venue at a time.
///
/// A tuning takes seconds to minutes and reads the venue's whole survey when it starts. A commit made
/// while its venue is being tuned asks for one more tuning after the running one, however many commits
/// come meanwhile: that tuning reads every survey they recorded, and no two tunings of one venue run
/// side by side (each would cost a core, and the older could store its result last). Venues are tuned
/// independently. A failure is logged and leaves the venue on its previous tuning.
public actor VenueRetuner {
    /// Tunes a venue and stores the tuning, as ``VenueTuner/tune(_:progress:)`` does.
    public typealias Tune = @Sendable (_ venue: String) async throws -> StoredTuning

    private let tune: Tune
    private let logger: Logger
    /// The task tuning each venue, while it runs.
    private var running: [String: Task<Void, Never>] = [:]
    /// Venues asked for again while their tuning ran.
    private var askedAgain: Set<String> = []

    public init(logger: Logger, tune: @escaping Tune) {
        self.logger = logger
        self.tune = tune
    }

    /// Re-tunes with `tuner`.
    public init(tuner: VenueTuner, logger: Logger) {
        self.init(logger: logger) { venue in try await tuner.tune(venue) }
    }

    /// Asks for a tuning of `venue`: it starts now when none runs, or else once the running one ends.
    public func retune(_ venue: String) {
        guard running[venue] == nil else {
            askedAgain.insert(venue)
            return
        }
        running[venue] = Task { await self.tuneUntilCurrent(venue) }
    }

    /// Waits until no tuning runs.
    public func waitUntilIdle() async {
        while let task = running.values.first { await task.value }
    }

    private func tuneUntilCurrent(_ venue: String) async {
        repeat {
            askedAgain.remove(venue)
            do {
                let tuning = try await tune(venue)
                logger.notice("venue re-tuned after a survey session", metadata: ["venue.id": "\(venue)", "venue.revision": "\(tuning.revision)"])
            } catch StoreError.conflict(let reason) where askedAgain.contains(venue) {
                // A commit changed the survey during the tuning, and the tuning after it will read it.
                logger.info("re-tuning superseded by a later commit", metadata: ["venue.id": "\(venue)", "reason": "\(reason)"])
            } catch {
                logger.error("re-tuning after a survey session failed", metadata: ["venue.id": "\(venue)", "error": "\(error)"])
            }
        } while askedAgain.contains(venue)
        // No suspension since the check above: a request from now on starts a new task.
        running[venue] = nil
    }
}
