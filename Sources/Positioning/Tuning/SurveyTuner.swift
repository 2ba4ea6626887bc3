/// A radio map to try: how references are windowed and compared. Each is one pass of the metric per
/// cross-validation query; every estimator of the search space is then scored on the same distances.
public struct MapCandidate: Hashable, Sendable, Codable, CustomStringConvertible {
    public var window: ReferenceWindow
    public var metric: TunedConfiguration.Metric

    public init(window: ReferenceWindow, metric: TunedConfiguration.Metric) {
        self.window = window
        self.metric = metric
    }

    public var description: String { "window \(window), \(metric)" }
}

/// How a position is interpolated from the distances: what is tried on every map candidate.
public struct EstimatorChoice: Hashable, Sendable, Codable, CustomStringConvertible {
    public var neighbours: NeighbourLevel
    /// Spot neighbours: a spot's distance is the mean of its this many best fingerprints.
    public var spotBest: Int
    public var neighbourCount: Int
    public var weightingPower: Double
    /// Where the covariance and radius come from; nil (older tunings) is the neighbours' spread. It never
    /// changes the position, only its uncertainty: it is chosen after the rest.
    public var uncertainty: UncertaintyModel?

    public init(
        neighbours: NeighbourLevel, spotBest: Int, neighbourCount: Int, weightingPower: Double, uncertainty: UncertaintyModel? = nil
    ) {
        self.neighbours = neighbours
        self.spotBest = spotBest
        self.neighbourCount = neighbourCount
        self.weightingPower = weightingPower
        self.uncertainty = uncertainty
    }

    /// The estimator this describes, its radius scaled by `accuracyScale` (1: uncalibrated).
    func estimator(resolution: Double, accuracyScale: Double = 1) -> WeightedNearestSpots {
        WeightedNearestSpots(
            neighbourCount: neighbourCount, weighting: .inverseDistance(power: weightingPower, epsilon: 1e-6),
            minimumAccuracy: 0, accuracyScale: accuracyScale, resolution: resolution, uncertainty: uncertainty ?? .neighbourSpread)
    }

    public var description: String {
        let level = switch neighbours {
        case .spots: "\(neighbourCount) spots" + (spotBest > 1 ? " (mean of \(spotBest) best)" : "")
        case .fingerprints: "\(neighbourCount) fingerprints"
        }
        return "\(level), weights 1/d^\(weightingPower == weightingPower.rounded() ? String(Int(weightingPower)) : String(weightingPower))"
    }
}

/// What the tuner tries: documented in docs/accuracy.md, chosen from survey-only cross-validation
/// over the shared datasets, never from a test walk. Every map candidate (window × metric) is scored with
/// every estimator: the whole grid, not a descent that could stop in a local optimum.
public struct TuningSearchSpace: Hashable, Sendable, Codable {
    /// Stored fingerprints merged per reference.
    public var windows: [ReferenceWindow]
    /// The dB metric's noise floor (dBm).
    public var decibelFloor: Float
    /// The dB metric's `[query-only, reference-only]` penalties, each with every offset shrinkage.
    public var decibelPenalties: [[Float]]
    public var offsetShrinkages: [Float?]
    /// The pairwise-difference metric (relative powers) with these penalties.
    public var relativePenalties: [[Float]]
    /// Estimators tried on every map candidate.
    public var spotNeighbourCounts: [Int]
    public var spotBests: [Int]
    public var fingerprintNeighbourCounts: [Int]
    public var weightingPowers: [Double]
    /// Tracker: seconds of samples merged, and smoothing gains.
    public var trackerWindows: [Double]
    public var trackerAlphas: [Double]
    /// Tracker: Kalman gains from each answer's covariance, tried beside the fixed gains of ``trackerAlphas``.
    public var trackerCovarianceGains: [SmootherGain]
    /// Uncertainty models tried on the winner, by how well their calibrated radius fits the truths
    /// (``SurveyTuner/uncertaintyScore(of:protocols:)``).
    public var uncertaintyModels: [UncertaintyModel]

    public init(
        windows: [ReferenceWindow], decibelFloor: Float, decibelPenalties: [[Float]], offsetShrinkages: [Float?],
        relativePenalties: [[Float]], spotNeighbourCounts: [Int], spotBests: [Int], fingerprintNeighbourCounts: [Int],
        weightingPowers: [Double], trackerWindows: [Double], trackerAlphas: [Double],
        trackerCovarianceGains: [SmootherGain] = [], uncertaintyModels: [UncertaintyModel] = [.neighbourSpread]
    ) {
        self.windows = windows
        self.decibelFloor = decibelFloor
        self.decibelPenalties = decibelPenalties
        self.offsetShrinkages = offsetShrinkages
        self.relativePenalties = relativePenalties
        self.spotNeighbourCounts = spotNeighbourCounts
        self.spotBests = spotBests
        self.fingerprintNeighbourCounts = fingerprintNeighbourCounts
        self.weightingPowers = weightingPowers
        self.trackerWindows = trackerWindows
        self.trackerAlphas = trackerAlphas
        self.trackerCovarianceGains = trackerCovarianceGains
        self.uncertaintyModels = uncertaintyModels.isEmpty ? [.neighbourSpread] : uncertaintyModels
    }

    /// The search space `survey tune` uses.
    public static let standard = TuningSearchSpace(
        windows: [.fingerprints(1), .fingerprints(3), .fingerprints(5), .fingerprints(10), .wholeRun],
        decibelFloor: -100,
        decibelPenalties: [[2, 1], [5, 2], [5, 5], [10, 2], [10, 5]],
        offsetShrinkages: [0, 4, nil],
        relativePenalties: [[0.2, 0.1], [0.4, 0.2], [0.4, 0.4], [0.8, 0.4]],
        spotNeighbourCounts: [1, 2, 3, 4, 6, 8, 12, 16],
        spotBests: [1, 2],
        fingerprintNeighbourCounts: [1, 2, 4, 8, 16, 32],
        weightingPowers: [1, 2, 4],
        trackerWindows: [0, 2, 5],
        trackerAlphas: [1, 0.7, 0.5, 0.3],
        // A person's wander: 0.25 to 4 m² per second (1 m²/s is a 1 m spread after a second standing or
        // strolling); scans' errors counted once, or as if four scans shared one error.
        trackerCovarianceGains: [0.25, 1, 4].flatMap { noise in
            [1.0, 4].map { SmootherGain.covariance(processNoise: noise, measurementScale: $0) }
        },
        uncertaintyModels: [.neighbourSpread] + [8, 32].flatMap { count in
            [0.05, 0.1, 0.2, 0.5, 1].map { UncertaintyModel.posterior(temperature: $0, candidates: count) }
        })

    /// Every metric tried.
    public var metrics: [TunedConfiguration.Metric] {
        decibelPenalties.flatMap { penalty in
            offsetShrinkages.map {
                TunedConfiguration.Metric.decibelOffset(
                    floor: decibelFloor, queryOnly: penalty[0], referenceOnly: penalty[1], offsetShrinkage: $0)
            }
        } + relativePenalties.map { .pairwiseDifference(queryOnly: $0[0], referenceOnly: $0[1]) }
    }

    /// Every map candidate: each window with each metric.
    public var mapCandidates: [MapCandidate] {
        windows.flatMap { window in metrics.map { MapCandidate(window: window, metric: $0) } }
    }

    /// Every tracker smoothing tried for each window: the fixed gains, then the covariance gains.
    public var trackerSmoothings: [TrackerSmoothing] {
        trackerAlphas.map { TrackerSmoothing(alpha: $0, gain: .fixed) }
            + trackerCovarianceGains.map { TrackerSmoothing(alpha: TunedConfiguration.untuned.trackerAlpha, gain: $0) }
    }

    /// Every estimator tried on each map candidate.
    public var estimators: [EstimatorChoice] {
        var choices: [EstimatorChoice] = []
        for power in weightingPowers {
            for best in spotBests {
                for count in spotNeighbourCounts {
                    choices.append(EstimatorChoice(neighbours: .spots, spotBest: best, neighbourCount: count, weightingPower: power))
                }
            }
            for count in fingerprintNeighbourCounts {
                choices.append(EstimatorChoice(neighbours: .fingerprints, spotBest: 1, neighbourCount: count, weightingPower: power))
            }
        }
        return choices
    }
}

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

extension SurveyCrossValidation {
    /// Replays runs of the survey through the tracker's merging and smoothing, leave-one-spot-out, for
    /// every tracker window and smoothing gain: the survey walk stands in for a live walk (it stops at
    /// spots and moves between them, as real walks do).
    ///
    /// Blocks of `blockLength` consecutive fingerprints of one device, spread evenly over the survey, are
    /// replayed as separate walks so that a large survey costs at most `maximumQueries` locates per window.
    ///
    /// The answers' radii and covariances are scaled by `accuracyScale` (the venue's calibration), as live
    /// answers are, so that a Kalman gain (``SmootherGain/covariance(processNoise:measurementScale:)``) weighs
    /// them as it will live. Each score also calibrates the tracker's radius: the scale under which the
    /// smoothed radii divided by `accuracyScale` (so uncalibrated, for a fixed gain) hold 68% of the replayed
    /// truths.
    public func replayScores(
        of candidate: MapCandidate, estimator: EstimatorChoice, windows: [Double], smoothings: [TrackerSmoothing],
        resolution: Double = 0, accuracyScale: Double = 1, blockLength: Int = 60, maximumQueries: Int = 3000
    ) throws(RadioMapError) -> [TrackerScore] {
        let map = try map(of: candidate).map
        let metric = candidate.metric.make()
        let locator = Locator(
            metric: metric, aggregation: estimator.spotBest <= 1 ? .best : .meanOfBest(estimator.spotBest),
            neighbours: estimator.neighbours,
            estimator: estimator.estimator(resolution: resolution, accuracyScale: accuracyScale))
        let blockCount = max(1, min(survey.count / max(1, blockLength), maximumQueries / max(1, blockLength)))
        let spacing = max(blockLength, survey.count / blockCount)
        var blocks: [Range<Int>] = []
        var start = 0
        while start < survey.count, blocks.count < blockCount {
            var end = start + 1
            while end < min(start + blockLength, survey.count), survey[end].device == survey[start].device { end += 1 }
            blocks.append(start..<end)
            start += spacing
        }
        var errors = [[Double]](repeating: [], count: windows.count * smoothings.count)
        var ratios = [[Double]](repeating: [], count: windows.count * smoothings.count)
        var rowDistance = [Float](repeating: .infinity, count: map.count)
        for (windowIndex, window) in windows.enumerated() {
            for block in blocks {
                // The raw answer for each sample of the block, from the samples of the last `window` seconds.
                var measured: [(time: Double, position: Position?)] = []
                for index in block {
                    let now = survey[index].time
                    var first = index
                    while first > block.lowerBound, now - survey[first - 1].time <= window, survey[first - 1].time <= now { first -= 1 }
                    let parts = (first...index).map { survey[$0].fingerprint }
                    let vector = map.query(for: Fingerprint.merging(parts, scale: scale))
                    guard vector.presentCount > 0 else {
                        measured.append((now, nil))
                        continue
                    }
                    rowDistance.withUnsafeMutableBufferPointer { metric.distances(from: vector, in: map, into: $0) }
                    for spot in Set((first...index).map { survey[$0].spot }) {
                        for row in map.spotRanges[spot] { rowDistance[row] = .infinity }
                    }
                    let result = rowDistance.withUnsafeBufferPointer { locator.locate(rowDistances: $0, query: vector, in: map) }
                    measured.append((now, result.position))
                }
                for (smoothingIndex, smoothing) in smoothings.enumerated() {
                    var smoother = AlphaBetaSmoother(alpha: smoothing.alpha, gain: smoothing.gain)
                    var last: Position?
                    for (offset, index) in block.enumerated() {
                        if let position = measured[offset].position { last = smoother.smooth(position, at: measured[offset].time) }
                        guard let last else { continue }
                        let error = spots[survey[index].spot].planarDistance(toX: last.x, y: last.y)
                        errors[windowIndex * smoothings.count + smoothingIndex].append(error)
                        // Against the radius before calibration, as the single-scan scale is.
                        if last.accuracy > 0 { ratios[windowIndex * smoothings.count + smoothingIndex].append(error * accuracyScale / last.accuracy) }
                    }
                }
            }
        }
        return windows.indices.flatMap { windowIndex in
            smoothings.indices.map { smoothingIndex in
                let setting = windowIndex * smoothings.count + smoothingIndex
                let sorted = ratios[setting].sorted()
                return TrackerScore(
                    window: windows[windowIndex], alpha: smoothings[smoothingIndex].alpha,
                    gain: smoothings[smoothingIndex].gain == .fixed ? nil : smoothings[smoothingIndex].gain, errors: ErrorStatistics(errors: errors[setting]),
                    accuracyScale: sorted.isEmpty ? nil : max(0.1, ErrorStatistics.percentile(68, of: sorted)))
            }
        }
    }
}

/// One way of smoothing a tracked phone's answers: a fixed gain, or a Kalman gain from their covariance.
public struct TrackerSmoothing: Hashable, Sendable, Codable {
    /// The fixed gain, or with a covariance gain only the fallback for a degenerate covariance.
    public var alpha: Double
    public var gain: SmootherGain

    public init(alpha: Double, gain: SmootherGain) {
        self.alpha = alpha
        self.gain = gain
    }
}

/// Cross-validation figures of one tracker setting.
public struct TrackerScore: Hashable, Sendable, Codable {
    /// Seconds of samples merged.
    public var window: Double
    /// Smoothing gain (1: none); with a covariance ``gain``, only the fallback for a degenerate covariance.
    public var alpha: Double
    /// The covariance gain; nil: the fixed gain ``alpha``.
    public var gain: SmootherGain?
    public var errors: ErrorStatistics?
    /// The scale under which the tracker's radii held 68% of the replayed truths; nil in older tunings.
    public var accuracyScale: Double?
}

/// What `survey tune` found: the chosen configuration and the figures it was chosen on.
public struct TuningResult: Hashable, Sendable, Codable {
    public var configuration: TunedConfiguration
    /// The winner's cross-validation.
    public var score: CrossValidationScore
    /// The best estimator of every map candidate tried, best first.
    public var candidates: [CrossValidationScore]
    /// Every tracker setting tried, best first; the first with window 0 and gain 1 is the single-scan figure.
    public var tracker: [TrackerScore]
    /// Cross-validation queries (stored survey fingerprints).
    public var queries: Int
    /// Devices that surveyed (leave-one-device-out runs when more than one).
    public var devices: Int
    /// Share of cross-validation answers within their calibrated accuracy radius.
    public var withinAccuracy: Double
    /// Cross-validation answers beyond the derived `unknown` threshold.
    public var unknownAtThreshold: Int
    /// The protocols the radius was calibrated on; nil in tunings stored before they were recorded.
    public var calibrationProtocols: [SurveyCrossValidation.ValidationProtocol]?
    /// Devices, or recording sessions of the one device, the survey holds; nil in older tunings.
    public var groups: Int?
    /// `device` or `session`: what ``groups`` counts; nil in older tunings.
    public var groupKind: String?
    /// How well ``configuration`` locates each surveyed spot with the spot left out
    /// (``SurveyCrossValidation/spotErrors(of:)``), by spot name so that it still reads right after spots
    /// are added or removed. Computed once here so that maps need not cross-validate again; nil in tunings
    /// stored before it existed.
    public var spotErrors: [NamedSpotError]?
    /// Every uncertainty model tried, in the search space's order, with its score (lower is better); nil in
    /// older tunings.
    public var uncertaintyScores: [UncertaintyScore]?
    /// The strongest-beacon search's recall on the survey under the chosen metric, measured when the map
    /// is large enough for it to narrow anything (``SurveyCrossValidation/candidateSearch(for:aggregation:)``);
    /// nil for smaller maps, which are read whole, and in older tunings.
    public var candidateSearchRecall: CandidateSearchRecall? = nil
}

/// How well one uncertainty model's calibrated radius fitted the cross-validation truths
/// (``SurveyTuner/uncertaintyScore(of:protocols:)``).
public struct UncertaintyScore: Hashable, Sendable, Codable {
    public var model: UncertaintyModel
    /// Mean negative log-likelihood of the truths (lower is better).
    public var logLoss: Double
}

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

/// The cross-validated error at one spot of the survey.
public struct SpotError: Hashable, Sendable, Codable {
    /// Index into the validation's spots.
    public var spot: Int
    /// Mean error in metres of the spot's queries, each located with the spot left out; nil when none
    /// was located.
    public var meanError: Double?
    /// Queries of the spot that were located.
    public var located: Int
    /// Queries of the spot answered `unknown`.
    public var unknown: Int
}

/// ``SpotError`` with its spot named: what a ``TuningResult`` stores, since a spot's index means nothing
/// outside the cross-validation that numbered it.
public struct NamedSpotError: Hashable, Sendable, Codable {
    /// The spot's name.
    public var name: String
    /// Mean error in metres of the spot's queries, each located with the spot left out; nil when none
    /// was located (every one answered `unknown`).
    public var meanError: Double?
    /// Queries of the spot that were located.
    public var located: Int
    /// Queries of the spot answered `unknown`.
    public var unknown: Int

    public init(name: String, meanError: Double?, located: Int, unknown: Int) {
        self.name = name
        self.meanError = meanError
        self.located = located
        self.unknown = unknown
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
