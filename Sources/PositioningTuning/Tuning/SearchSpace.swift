public import Positioning

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

