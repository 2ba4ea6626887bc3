public import Positioning

/// Chooses a venue's configuration by cross-validation on its own survey (``SurveyCrossValidation``) over
/// a documented search space (``TuningSearchSpace``). Pure: the caller runs the map candidates of each stage
/// (concurrently if it likes) with ``SurveyCrossValidation/score(_:estimators:)`` and hands the scores back.
public struct SurveyTuner: Sendable {
    public var space: TuningSearchSpace

    public init(space: TuningSearchSpace = .standard) {
        self.space = space
    }

    /// The best of `scores`: the lowest cross-validation mean, ties to the lower p90. Means within one
    /// standard error of the lowest are ties: cross-validation on a few hundred scans cannot tell them apart,
    /// and picking the lowest of them would pick noise (the usual one-standard-error rule of model selection).
    public static func best(_ scores: [CrossValidationScore]) -> CrossValidationScore? {
        let finite = scores.filter { $0.objective.isFinite }
        guard let lowest = finite.min(by: { $0.objective < $1.objective }) else { return nil }
        let tolerance = lowest.objective + lowest.objectiveStandardError
        return finite.filter { $0.objective <= tolerance }.min {
            $0.objectiveP90 != $1.objectiveP90 ? $0.objectiveP90 < $1.objectiveP90 : $0.objective < $1.objective
        }
    }

    /// Tunes on `validation` one candidate after the other: for tests, benchmarks and callers with one
    /// core (`survey tune` scores the candidates on every core, then calls ``finish(winner:candidates:validation:)``).
    /// Nil when no configuration answers any query.
    public func tune(_ validation: SurveyCrossValidation) throws(RadioMapError) -> TuningResult? {
        var scores: [CrossValidationScore] = []
        for candidate in space.mapCandidates { scores += try validation.score(candidate, estimators: space.estimators) }
        return try finish(scores: scores, validation: validation)
    }

    /// Chooses among `scores` (every estimator of every map candidate, however they were computed) and
    /// completes the winner; nil when no configuration answered any query.
    public func finish(scores: [CrossValidationScore], validation: SurveyCrossValidation) throws(RadioMapError) -> TuningResult? {
        guard let winner = Self.best(scores) else { return nil }
        // The table keeps each map candidate's lowest mean.
        let bestPerCandidate = Dictionary(grouping: scores, by: \.candidate).values.compactMap { $0.min { $0.objective < $1.objective } }
        return try finish(winner: winner, candidates: bestPerCandidate, validation: validation)
    }

    /// Completes the winner: the `unknown` threshold from the distribution of its cross-validation best
    /// distances, the accuracy radius calibrated to hold the truth 68% of the time, and the tracker.
    public func finish(
        winner: CrossValidationScore, candidates: [CrossValidationScore], validation: SurveyCrossValidation
    ) throws(RadioMapError) -> TuningResult {
        let resolution = Self.resolution(of: validation)
        let protocols = validation.calibrationProtocols
        // The uncertainty model never moves the position: every model is scored on the winner's answers, in
        // one pass, by how well its calibrated radius fits the truths.
        let estimators = space.uncertaintyModels.map { model in
            var choice = winner.estimator
            choice.uncertainty = model
            return choice
        }
        let answersOfModels = try validation.answers(of: winner.candidate, estimators: estimators, resolution: resolution, protocols: protocols)
        let scored = estimators.indices.map { index in
            (estimator: estimators[index], answers: answersOfModels[index],
             score: Self.uncertaintyScore(of: answersOfModels[index], protocols: protocols))
        }
        let chosen = scored.min { $0.score < $1.score }!
        let everyAnswer = chosen.answers
        var winner = winner
        winner.estimator = chosen.estimator
        let answers = everyAnswer.compactMap(\.answer)
        // `unknown` is for scans that resemble no place of the venue, never for a phone that merely differs from
        // the survey's (another model, another day: those get a position and a wide radius). The leave-one-out
        // answers are already pessimistic (their spot, session or device missing); a scan three times farther in
        // signal space than the farthest of them matches nothing surveyed.
        let bestDistances = answers.map(\.bestDistance).filter(\.isFinite)
        let threshold = bestDistances.max().map { Self.unknownFactor * $0 }
        let accuracyScale = Self.accuracyScale(calibratedOn: everyAnswer, protocols: protocols)
        // The share within the radius the same way: each protocol's share, averaged.
        let shares = protocols.compactMap { kind -> Double? in
            let located = everyAnswer.compactMap { $0.protocol == kind ? $0.answer : nil }
            guard !located.isEmpty else { return nil }
            return Double(located.count { $0.error <= accuracyScale * $0.radius }) / Double(located.count)
        }
        let within = shares.isEmpty ? 0 : shares.reduce(0, +) / Double(shares.count)
        let tracker = try validation.replayScores(
            of: winner.candidate, estimator: winner.estimator, windows: space.trackerWindows, smoothings: space.trackerSmoothings,
            resolution: resolution, accuracyScale: accuracyScale)
            .sorted { ($0.errors?.mean ?? .infinity) < ($1.errors?.mean ?? .infinity) }
        // Window 0 (the newest sample alone) is scored as the single-scan reference but never chosen: one
        // reading is never enough for a tracked phone, whatever a survey walk's cross-validation says.
        let chosenTracker = tracker.first { $0.window > 0 } ?? tracker.first
        let search = try validation.candidateSearch(
            for: winner.candidate, aggregation: winner.estimator.spotBest <= 1 ? .best : .meanOfBest(winner.estimator.spotBest))
        let configuration = TunedConfiguration(
            metric: winner.candidate.metric, referenceWindow: winner.candidate.window, neighbours: winner.estimator.neighbours,
            spotBest: winner.estimator.spotBest, neighbourCount: winner.estimator.neighbourCount,
            weightingPower: winner.estimator.weightingPower, maximumDistance: threshold, accuracyScale: accuracyScale,
            resolution: resolution, trackerWindow: chosenTracker?.window ?? TunedConfiguration.untuned.trackerWindow,
            trackerAlpha: chosenTracker?.alpha ?? TunedConfiguration.untuned.trackerAlpha,
            trackerAccuracyScale: chosenTracker?.accuracyScale, uncertainty: winner.estimator.uncertainty,
            trackerGain: chosenTracker?.gain, candidateSearch: search.search)
        return TuningResult(
            configuration: configuration, score: winner,
            candidates: candidates.sorted { $0.objective < $1.objective }, tracker: tracker, queries: validation.queries.count,
            devices: validation.devices, withinAccuracy: within,
            unknownAtThreshold: threshold.map { limit in answers.filter { $0.bestDistance > limit }.count } ?? 0,
            calibrationProtocols: protocols, groups: validation.groups, groupKind: validation.groupKind,
            // The configuration's own answers are the ones above (same map, estimator and resolution): no
            // second pass, the same figures `spotErrors(of: configuration)` gives.
            spotErrors: validation.named(validation.spotErrors(from: everyAnswer, maximumDistance: threshold)),
            uncertaintyScores: scored.map { UncertaintyScore(model: $0.estimator.uncertainty ?? .neighbourSpread, logLoss: $0.score) },
            candidateSearchRecall: search.recall)
    }

    /// How many times the farthest cross-validation best match a scan must be to answer `unknown`.
    public static let unknownFactor: Float = 3

    /// The radius scale under which `answers` hold the truth 68% of the time (as phones' location APIs mean
    /// their accuracy), every protocol of `protocols` weighing the same: each stands for a share of live
    /// conditions (a phone between surveyed spots, at one, another device or day), so none dominates by
    /// answering more queries.
    public static func accuracyScale(
        calibratedOn answers: [(query: Int, protocol: SurveyCrossValidation.ValidationProtocol, answer: SurveyCrossValidation.Answer?)],
        protocols: [SurveyCrossValidation.ValidationProtocol]
    ) -> Double {
        // Weighted 68th percentile of error / radius: each protocol's answers share one unit of weight.
        var ratios: [(ratio: Double, weight: Double)] = []
        for kind in protocols {
            let located = answers.compactMap { $0.protocol == kind ? $0.answer : nil }.filter { $0.radius > 0 }
            for answer in located { ratios.append((answer.error / answer.radius, 1 / Double(located.count))) }
        }
        guard !ratios.isEmpty else { return 1 }
        ratios.sort { $0.ratio < $1.ratio }
        let total = ratios.reduce(0) { $0 + $1.weight }
        var cumulative = 0.0
        for entry in ratios {
            cumulative += entry.weight
            if cumulative >= 0.68 * total { return max(0.1, entry.ratio) }
        }
        return max(0.1, ratios.last!.ratio)
    }

    /// How well the radii of `answers` fit their truths once calibrated (``accuracyScale(calibratedOn:protocols:)``):
    /// the mean negative log-likelihood of each truth under the round Gaussian whose 68% circle is the
    /// calibrated radius, every protocol weighing the same. Lower is better. A proper score: it rewards radii
    /// that are small where answers are good and wide where they are not, and punishes a truth far outside
    /// its circle more than a circle a little too wide; coverage alone is the same (68%) for every model.
    public static func uncertaintyScore(
        of answers: [(query: Int, protocol: SurveyCrossValidation.ValidationProtocol, answer: SurveyCrossValidation.Answer?)],
        protocols: [SurveyCrossValidation.ValidationProtocol]
    ) -> Double {
        let scale = accuracyScale(calibratedOn: answers, protocols: protocols)
        var total = 0.0, weights = 0.0
        for kind in protocols {
            let located = answers.compactMap { $0.protocol == kind ? $0.answer : nil }.filter { $0.radius > 0 }
            guard !located.isEmpty else { continue }
            var sum = 0.0
            for answer in located {
                // Per-axis standard deviation of the round Gaussian whose 68% circle is the calibrated radius.
                let sigma = scale * answer.radius / (PositionCovariance.radiusFactor * 2.0.squareRoot())
                let variance = sigma * sigma
                sum += log(2 * Double.pi * variance) + answer.error * answer.error / (2 * variance)
            }
            total += sum / Double(located.count)
            weights += 1
        }
        return weights > 0 ? total / weights : .infinity
    }

    /// Half the median distance from a surveyed spot to its nearest surveyed neighbour on the same floor:
    /// how finely the survey resolves position.
    public static func resolution(of validation: SurveyCrossValidation) -> Double {
        let surveyed = Set(validation.survey.map(\.spot)).sorted().map { validation.spots[$0] }
        var nearest: [Double] = []
        for spot in surveyed {
            let distance = surveyed.filter { $0.floor == spot.floor && $0.name != spot.name }
                .map { $0.planarDistance(toX: spot.x, y: spot.y) }.min()
            if let distance { nearest.append(distance) }
        }
        return nearest.isEmpty ? 1 : ErrorStatistics.percentile(50, of: nearest.sorted()) / 2
    }
}

extension SurveyCrossValidation {
    /// How well `tuned` locates each spot when that spot's own fingerprints are left out
    /// (leave-one-spot-out): where the survey is too thin or the signal too flat for a live phone to be
    /// placed well. Spots without a query are absent.
    public func spotErrors(of tuned: TunedConfiguration) throws(RadioMapError) -> [SpotError] {
        let candidate = MapCandidate(window: tuned.referenceWindow, metric: tuned.metric)
        let estimator = EstimatorChoice(
            neighbours: tuned.neighbours, spotBest: tuned.spotBest, neighbourCount: tuned.neighbourCount,
            weightingPower: tuned.weightingPower)
        return spotErrors(
            from: try answers(of: candidate, estimator: estimator, resolution: tuned.resolution, protocols: [.spotOut]),
            maximumDistance: tuned.maximumDistance)
    }

    /// `errors` with each spot's name in place of its index into ``spots``.
    public func named(_ errors: [SpotError]) -> [NamedSpotError] {
        errors.map { NamedSpotError(name: spots[$0.spot].name, meanError: $0.meanError, located: $0.located, unknown: $0.unknown) }
    }

    /// The spot errors of `answers` (those of ``answers(of:estimator:resolution:)``), an answer beyond
    /// `maximumDistance` counting as `unknown`.
    func spotErrors(from answers: [(query: Int, protocol: ValidationProtocol, answer: Answer?)], maximumDistance: Float?) -> [SpotError] {
        var errors: [Int: (sum: Double, located: Int, unknown: Int)] = [:]
        for (query, kind, answer) in answers where kind == .spotOut {
            let spot = survey[query].spot
            var tally = errors[spot] ?? (0, 0, 0)
            if let answer, maximumDistance.map({ answer.bestDistance <= $0 }) ?? true {
                tally.sum += answer.error
                tally.located += 1
            } else {
                tally.unknown += 1
            }
            errors[spot] = tally
        }
        return errors.keys.sorted().map { spot in
            let tally = errors[spot]!
            return SpotError(
                spot: spot, meanError: tally.located > 0 ? tally.sum / Double(tally.located) : nil,
                located: tally.located, unknown: tally.unknown)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
