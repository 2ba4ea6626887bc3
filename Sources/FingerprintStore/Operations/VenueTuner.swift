public import Foundation
public import Positioning

extension FingerprintStore {
    /// Runs ``SurveyTuner`` on a venue's stored survey, the map candidates of each stage on every core, and
    /// stores the result (bumping the venue's revision): what `survey tune`, the end of `survey record`,
    /// `survey replace-beacon` and a survey session committed over HTTP share.
    ///
    /// - Parameter progress: told after each scored candidate (done, total).
    /// - Throws: ``StoreError/invalidInput(_:)`` when the survey is too thin to cross-validate.
    public func tuneVenue(_ venue: String, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }) async throws -> StoredTuning {
        let clock = ContinuousClock()
        let started = clock.now
        let survey = try await self.survey(of: venue, scale: PositioningConfiguration.defaultScale)
        let surveyedSpots = Set(survey.surveyed.map(\.spot)).count
        guard surveyedSpots >= 2 else {
            throw StoreError.invalidInput(
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
            throw StoreError.invalidInput("no configuration could locate any survey fingerprint of venue '\(venue)' among the other spots; is the survey too thin?")
        }
        progress(total, total)
        return try await saveTuning(result, of: venue, surveyRevision: survey.revision, seconds: (clock.now - started).tuningSeconds)
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

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var tuningSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
