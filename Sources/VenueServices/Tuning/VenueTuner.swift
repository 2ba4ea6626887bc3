public import FingerprintStore
import Foundation
import Positioning
import PositioningTuning

/// Tunes a venue on its stored survey and stores the result (bumping the venue's revision): the one way a
/// venue is tuned, shared by `survey tune`, the end of `survey record`, `survey replace-beacon` and, through
/// ``VenueRetuner``, a survey session committed over HTTP.
///
/// ``SurveyTuner`` is pure; this runs the map candidates of each stage on every core, reports progress, and
/// hands the result to the store, which keeps it only when the venue did not change while it ran.
public struct VenueTuner: Sendable {
    private let store: any TuningRepository

    public init(store: any TuningRepository) {
        self.store = store
    }

    /// Tunes `venue` and stores its tuning.
    ///
    /// - Parameter progress: told after each scored candidate (done, total).
    /// - Throws: ``TuningRefusal`` when the survey is too thin to cross-validate; the store's errors as they come.
    public func tune(_ venue: String, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }) async throws -> StoredTuning {
        let clock = ContinuousClock()
        let started = clock.now
        let survey = try await store.survey(of: venue, scale: PositioningConfiguration.defaultScale)
        let surveyedSpots = Set(survey.surveyed.map(\.spot)).count
        guard surveyedSpots >= 2 else {
            throw TuningRefusal(
                "venue '\(venue)' has \(surveyedSpots == 0 ? "no survey fingerprint" : "fingerprints at one spot only"); tuning needs a survey of at least 2 spots (record one with 'survey record --venue \(venue) FILE')")
        }
        let tuner = SurveyTuner()
        let validation = SurveyCrossValidation(spots: survey.spots, survey: survey.surveyed, scale: PositioningConfiguration.defaultScale)
        let candidates = tuner.space.mapCandidates
        let total = candidates.count + 1
        var done = 0
        let scores = try await Self.score(candidates, validation: validation, estimators: tuner.space.estimators) {
            done += 1
            progress(done, total)
        }
        guard let result = try tuner.finish(scores: scores, validation: validation) else {
            throw TuningRefusal("no configuration could locate any survey fingerprint of venue '\(venue)' among the other spots; is the survey too thin?")
        }
        progress(total, total)
        return try await store.saveTuning(result, of: venue, surveyRevision: survey.revision, seconds: (clock.now - started).seconds)
    }

    /// Scores `candidates` concurrently, calling `finished` (on the caller's task) as each completes.
    private static func score(
        _ candidates: [MapCandidate], validation: SurveyCrossValidation, estimators: [EstimatorChoice], finished: () -> Void
    ) async throws -> [CrossValidationScore] {
        try await withThrowingTaskGroup(of: [CrossValidationScore].self) { group in
            var pending = candidates[...]
            var scores: [CrossValidationScore] = []
            // As many candidates at a time as there are cores: each is one CPU-bound pass.
            for _ in 0..<max(1, ProcessInfo.processInfo.activeProcessorCount) {
                guard let candidate = pending.popFirst() else { break }
                group.addTask { try validation.score(candidate, estimators: estimators) }
            }
            while let next = try await group.next() {
                scores += next
                finished()
                if let candidate = pending.popFirst() { group.addTask { try validation.score(candidate, estimators: estimators) } }
            }
            return scores
        }
    }
}

/// Why a venue cannot be tuned (its survey is too thin), in a sentence for the person who asked.
public struct TuningRefusal: Error, CustomStringConvertible, Sendable {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
