public import Positioning

/// Cross-validation figures of one configuration.
public struct CrossValidationScore: Hashable, Sendable, Codable {
    public var candidate: MapCandidate
    public var estimator: EstimatorChoice
    /// Leave-one-spot-out errors (metres).
    public var spotOut: ErrorStatistics?
    /// Leave-one-device-out errors, when several devices surveyed.
    public var deviceOut: ErrorStatistics?
    /// Queries that could not be answered (no common beacon once their spot or device was left out).
    public var unanswered: Int

    public init(
        candidate: MapCandidate, estimator: EstimatorChoice, spotOut: ErrorStatistics?, deviceOut: ErrorStatistics?, unanswered: Int
    ) {
        self.candidate = candidate
        self.estimator = estimator
        self.spotOut = spotOut
        self.deviceOut = deviceOut
        self.unanswered = unanswered
    }

    /// What the tuner minimises: the mean error, over both protocols when both ran.
    public var objective: Double {
        let means = [spotOut?.mean, deviceOut?.mean].compactMap { $0 }
        return means.isEmpty ? .infinity : means.reduce(0, +) / Double(means.count)
    }

    /// The p90 the same way: the tie-breaker.
    public var objectiveP90: Double {
        let p90s = [spotOut?.p90, deviceOut?.p90].compactMap { $0 }
        return p90s.isEmpty ? .infinity : p90s.reduce(0, +) / Double(p90s.count)
    }

    /// The standard error of ``objective``: differences of means below it are noise.
    public var objectiveStandardError: Double {
        let errors = [spotOut?.standardError, deviceOut?.standardError].compactMap { $0 }
        return errors.isEmpty ? 0 : errors.reduce(0, +) / Double(errors.count)
    }
}
/// Cross-validation of a survey, the ground on which ``SurveyTuner`` chooses.
///
/// Queries are stored survey fingerprints (single scans when the survey was recorded with window 1, as
/// live phones send them). Leave-one-spot-out: a query is located with every reference of its own spot
/// removed, so the answer must come from the neighbouring spots, as a live position between surveyed spots
/// must. Leave-one-device-out (when several devices surveyed): every reference of the query's device
/// removed, since live phones are never the survey phone. Both use one distance pass per query: the
/// references left out are masked, not rebuilt.
public struct SurveyCrossValidation: Sendable {
    public let spots: [Spot]
    public let survey: [SurveyedFingerprint]
    public let scale: any RelativePowerScale
    /// Indices into `survey` of the queries: every fingerprint, or an even subsample of at most
    /// `maximumQueries`.
    public let queries: [Int]
    /// Whether several devices surveyed (leave-one-device-out then runs too).
    public let devices: Int
    /// The group each survey fingerprint is left out with by the second protocol: its device when several
    /// devices surveyed, else its recording session (a device's fingerprints split where it was silent for
    /// more than ``sessionGap`` seconds: another day, another walk). Live phones are never the survey phone
    /// of that moment; leaving a whole group out imitates them.
    public let groupOfFingerprint: [Int]
    /// How many groups there are: the second protocol runs when there are two or more.
    public let groups: Int
    /// Seconds of silence of one device that start a new recording session.
    public static let sessionGap: Double = 600

    /// What the second protocol leaves out, for people.
    public var groupKind: String { devices > 1 ? "device" : "session" }

    public init(spots: [Spot], survey: [SurveyedFingerprint], scale: any RelativePowerScale, maximumQueries: Int = 3000) {
        self.spots = spots
        self.survey = survey
        self.scale = scale
        let stride = max(1, (survey.count + maximumQueries - 1) / max(1, maximumQueries))
        queries = Array(Swift.stride(from: 0, to: survey.count, by: stride))
        devices = Set(survey.map(\.device)).count
        (groupOfFingerprint, groups) = Self.groups(of: survey, byDevice: devices > 1)
    }

    /// Each fingerprint's group (its device, or its device's recording session) and the number of groups.
    static func groups(of survey: [SurveyedFingerprint], byDevice: Bool) -> (groupOf: [Int], count: Int) {
        var groupOf = [Int](repeating: 0, count: survey.count)
        var next = 0
        for device in Set(survey.map(\.device)).sorted() {
            let indices = survey.indices.filter { survey[$0].device == device }.sorted { survey[$0].time < survey[$1].time }
            var previous: Double?
            for index in indices {
                if let previous, !byDevice, survey[index].time - previous > sessionGap { next += 1 }
                groupOf[index] = next
                previous = survey[index].time
            }
            next += 1
        }
        return (groupOf, next)
    }

    /// The radio map of `candidate`, with the group (``groupOfFingerprint``) of each of its rows.
    ///
    /// `rowOfFingerprint` gives the row each survey fingerprint was merged into (nil when its reference was
    /// empty).
    func map(of candidate: MapCandidate) throws(RadioMapError) -> (map: RadioMap, groupOfRow: [Int], rowOfFingerprint: [Int?]) {
        var referenceGroups: [Int] = []
        var referenceOfFingerprint = [Int?](repeating: nil, count: survey.count)
        var references: [(spot: Int, fingerprint: Fingerprint)] = []
        // Windows never cross runs and runs are one device, so each reference has one device.
        var runStart = 0
        while runStart < survey.count {
            var runEnd = runStart + 1
            while runEnd < survey.count, survey[runEnd].run == survey[runStart].run { runEnd += 1 }
            let run = Array(survey[runStart..<runEnd])
            // One reference per range of the run, in order: the range names the fingerprints merged into it.
            var merged: [(spot: Int, fingerprint: Fingerprint)] = []
            for (range, reference) in zip(candidate.window.ranges(of: run), candidate.window.references(of: run, scale: scale))
            where !reference.fingerprint.entries.isEmpty {
                for index in range { referenceOfFingerprint[runStart + index] = references.count + merged.count }
                merged.append(reference)
            }
            references += merged
            // Sessions split between runs, never inside one: a run is one stretch of one device at one spot.
            referenceGroups += Array(repeating: groupOfFingerprint[runStart], count: merged.count)
            runStart = runEnd
        }
        let map = try RadioMap(spots: spots, fingerprints: references, representation: candidate.metric.make().representation)
        // RadioMap orders rows by spot, stably: the same order gives each row's device.
        let order = references.indices.sorted { (references[$0].spot, $0) < (references[$1].spot, $1) }
        var rowOfReference = [Int](repeating: 0, count: references.count)
        for (row, reference) in order.enumerated() { rowOfReference[reference] = row }
        return (map, order.map { referenceGroups[$0] }, referenceOfFingerprint.map { $0.map { rowOfReference[$0] } })
    }

    /// How a venue with this survey is searched under `candidate`'s map and metric: by the first search of
    /// ``Locator/strongestBeaconLadder`` (narrowest first) whose recall of the exhaustive search's nearest
    /// spots (under `aggregation`) on up to ``candidateSearchQueries`` of the cross-validation queries clears
    /// ``CandidateSearchRecall/isFull``, or by one of ``Locator/spotsFirstSearches`` where it clears the bar
    /// too reading fewer blocks (its centroids' counted) than that step, or than the exact beacon index
    /// where no step clears it, with that recall; by the exact ``CandidateSearch/beaconIndex`` where
    /// none does (with the widest one's recall), and on maps
    /// under ``Locator/smallMapBlocks`` blocks, which the strongest-beacon search reads whole anyway (no
    /// recall is measured for them). A query's own fingerprint stays in the map: both searches find it, and
    /// what is measured is whether they agree on the rest.
    public func candidateSearch(
        for candidate: MapCandidate, aggregation: SpotAggregation
    ) throws(RadioMapError) -> (search: CandidateSearch, recall: CandidateSearchRecall?) {
        // A map has at most a row per survey fingerprint: a survey that small is answered without building it.
        guard (survey.count + RadioMap.lanes - 1) / RadioMap.lanes >= Locator.smallMapBlocks else { return (.beaconIndex, nil) }
        let map = try map(of: candidate).map
        guard map.blockCount >= Locator.smallMapBlocks else { return (.beaconIndex, nil) }
        let locator = Locator(
            metric: candidate.metric.make(), aggregation: aggregation, estimator: WeightedNearestSpots(), candidateSearch: .exhaustive)
        // An even spread of the queries over the survey, at most the wanted number.
        let count = min(queries.count, Self.candidateSearchQueries)
        let sample = (0..<count).map { map.query(for: survey[queries[$0 * queries.count / count]].fingerprint) }
        let truth = sample.map { CandidateSearchRecall.truth(of: $0, locator: locator, in: map) }
        var widest: CandidateSearchRecall?
        var cheapest: (search: CandidateSearch, recall: CandidateSearchRecall)?
        for search in Locator.strongestBeaconLadder {
            let recall = CandidateSearchRecall.measure(search, locator: locator, queries: sample, in: map, truth: truth)
            widest = recall
            if recall.isFull {
                cheapest = (search, recall)
                break
            }
        }
        // A spots-first search is not a subset of a ladder step: it is taken where it reads fewer blocks than
        // the step taken, or than the exact beacon index where none was (one keeping nearly every spot of a
        // small survey keeps the recall by reading everything).
        let exactBlocks = sample.reduce(0) { $0 + map.candidateBlocks(for: $1).blockCount }
        for search in Locator.spotsFirstSearches {
            let recall = CandidateSearchRecall.measure(search, locator: locator, queries: sample, in: map, truth: truth)
            if recall.isFull, recall.blocksRead < cheapest?.recall.blocksRead ?? exactBlocks { cheapest = (search, recall) }
        }
        return cheapest.map { ($0.search, $0.recall) } ?? (.beaconIndex, widest)
    }

    /// How many cross-validation queries ``candidateSearch(for:aggregation:)`` measures the recall on: enough
    /// that 99.9% of their 32 nearest spots means at most about 10 spots missed in all.
    public static let candidateSearchQueries = 300

    /// Scores every estimator of `estimators` on `candidate`.
    public func score(_ candidate: MapCandidate, estimators: [EstimatorChoice]) throws(RadioMapError) -> [CrossValidationScore] {
        var spotOut = [[Double]](repeating: [], count: estimators.count)
        var deviceOut = [[Double]](repeating: [], count: estimators.count)
        var unanswered = [Int](repeating: 0, count: estimators.count)
        try forEachQuery(of: candidate, estimators: estimators, protocols: scoringProtocols) { _, kind, estimatorIndex, outcome in
            switch outcome {
            case .none: unanswered[estimatorIndex] += 1
            case .some(let answer):
                if kind == .spotOut { spotOut[estimatorIndex].append(answer.error) } else { deviceOut[estimatorIndex].append(answer.error) }
            }
        }
        return estimators.indices.map { index in
            CrossValidationScore(
                candidate: candidate, estimator: estimators[index], spotOut: ErrorStatistics(errors: spotOut[index]),
                deviceOut: ErrorStatistics(errors: deviceOut[index]), unanswered: unanswered[index])
        }
    }

    /// What a cross-validation query is located without.
    public enum ValidationProtocol: String, Sendable, Hashable, Codable {
        /// Every reference of its spot: the answer must come from the neighbouring spots, as a live
        /// position between surveyed spots must.
        case spotOut = "spot_out"
        /// Every reference of its group (``groupOfFingerprint``): its device, or its recording session.
        case groupOut = "group_out"
        /// Only the reference it was merged into, when its spot has others: a live phone standing at a
        /// surveyed spot, as many do.
        case atSpot = "at_spot"
    }

    /// The protocols configurations are ranked by: leave-one-spot-out, and leave-one-device-out when
    /// several devices surveyed.
    public var scoringProtocols: [ValidationProtocol] { devices > 1 ? [.spotOut, .groupOut] : [.spotOut] }

    /// The protocols the accuracy radius is calibrated on: where live phones may be (between surveyed spots,
    /// at them) and what they may be (another phone, another day), when the survey has several devices or
    /// sessions. A survey of one device in one session cannot imitate another phone or day, so its radius is
    /// widened by the one rule it can apply to itself: calibrated between spots only. Its at-spot answers are
    /// the surveyor's own phone matching its own scans of minutes before, the most optimistic match there
    /// is, which a live phone of another model or day never gets.
    public var calibrationProtocols: [ValidationProtocol] { groups > 1 ? [.spotOut, .groupOut, .atSpot] : [.spotOut] }

    /// One cross-validated answer.
    public struct Answer: Sendable {
        public var error: Double
        /// The best (spot-level) distance: what the `unknown` threshold is derived from.
        public var bestDistance: Float
        /// The accuracy radius before calibration.
        public var radius: Double
        public var position: Position

        public init(error: Double, bestDistance: Float, radius: Double, position: Position) {
            self.error = error
            self.bestDistance = bestDistance
            self.radius = radius
            self.position = position
        }
    }

    /// Every cross-validated answer of one configuration under `protocols`, for calibrating it:
    /// `(query, protocol, answer or nil)`.
    public func answers(
        of candidate: MapCandidate, estimator: EstimatorChoice, resolution: Double, protocols: [ValidationProtocol]
    ) throws(RadioMapError) -> [(query: Int, protocol: ValidationProtocol, answer: Answer?)] {
        try answers(of: candidate, estimators: [estimator], resolution: resolution, protocols: protocols)[0]
    }

    /// ``answers(of:estimator:resolution:protocols:)`` of every estimator of `estimators`, in one distance
    /// pass per query.
    public func answers(
        of candidate: MapCandidate, estimators: [EstimatorChoice], resolution: Double, protocols: [ValidationProtocol]
    ) throws(RadioMapError) -> [[(query: Int, protocol: ValidationProtocol, answer: Answer?)]] {
        var answers = [[(query: Int, protocol: ValidationProtocol, answer: Answer?)]](repeating: [], count: estimators.count)
        try forEachQuery(of: candidate, estimators: estimators, resolution: resolution, protocols: protocols) { query, kind, index, answer in
            answers[index].append((query, kind, answer))
        }
        return answers
    }

    private func forEachQuery(
        of candidate: MapCandidate, estimators: [EstimatorChoice], resolution: Double = 0, protocols: [ValidationProtocol],
        _ body: (_ query: Int, _ protocol: ValidationProtocol, _ estimatorIndex: Int, _ answer: Answer?) -> Void
    ) throws(RadioMapError) {
        let (map, rowGroup, rowOfFingerprint) = try map(of: candidate)
        let metric = candidate.metric.make()
        let weightedEstimators = estimators.map { $0.estimator(resolution: resolution) }
        let maximumSpots = estimators.indices.filter { estimators[$0].neighbours == .spots }.map { weightedEstimators[$0].candidatesWanted }.max() ?? 1
        let maximumRows = estimators.indices.filter { estimators[$0].neighbours == .fingerprints }.map { weightedEstimators[$0].candidatesWanted }.max() ?? 1
        let locators = Dictionary(grouping: estimators.map(\.spotBest), by: { $0 }).keys.map { best in
            (best, Locator(metric: metric, aggregation: best <= 1 ? .best : .meanOfBest(best), estimator: WeightedNearestSpots()))
        }
        var rowDistance = [Float](repeating: .infinity, count: map.count)
        var masked = rowDistance
        for query in queries {
            let surveyed = survey[query]
            let vector = map.query(for: surveyed.fingerprint)
            guard vector.presentCount > 0 else { continue }
            rowDistance.withUnsafeMutableBufferPointer { metric.distances(from: vector, in: map, into: $0) }
            let truth = spots[surveyed.spot]
            for kind in protocols {
                masked = rowDistance
                switch kind {
                case .spotOut:
                    for row in map.spotRanges[surveyed.spot] { masked[row] = .infinity }
                case .groupOut:
                    let group = groupOfFingerprint[query]
                    for row in 0..<map.count where rowGroup[row] == group { masked[row] = .infinity }
                case .atSpot:
                    // A spot with a single reference would be left empty: the query stays in it, one of the
                    // many samples merged there.
                    if let own = rowOfFingerprint[query], map.spotRanges[surveyed.spot].count > 1 { masked[own] = .infinity }
                }
                masked.withUnsafeBufferPointer { distances in
                    var nearestSpots: [Int: [SpotCandidate]] = [:]
                    for (best, locator) in locators {
                        nearestSpots[best] = locator.nearest(locator.spotDistances(fromRowDistances: distances, in: map), in: map, limit: maximumSpots)
                    }
                    let nearestRows = Locator.nearestRows(distances, in: map, limit: maximumRows)
                    for (index, choice) in estimators.enumerated() {
                        let candidates = switch choice.neighbours {
                        case .spots: nearestSpots[choice.spotBest] ?? []
                        case .fingerprints: nearestRows
                        }
                        guard let bestSpot = nearestSpots[choice.spotBest]?.first ?? nearestSpots.values.first?.first, !candidates.isEmpty else {
                            body(query, kind, index, nil)
                            continue
                        }
                        let position = weightedEstimators[index].estimate(
                            from: Array(candidates.prefix(weightedEstimators[index].candidatesWanted)), spots: map.spotGrid)
                        let error = truth.planarDistance(toX: position.x, y: position.y)
                        body(query, kind, index, Answer(error: error, bestDistance: bestSpot.distance, radius: position.accuracy, position: position))
                    }
                }
            }
        }
    }
}

