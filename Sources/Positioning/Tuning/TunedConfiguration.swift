/// The part of ``PositioningConfiguration`` that is chosen per venue by cross-validation on its own survey
/// (``SurveyTuner``), as plain values that can be stored with the venue and read back.
public struct TunedConfiguration: Codable, Hashable, Sendable {
    /// A fingerprint metric and its parameters.
    public enum Metric: Codable, Hashable, Sendable, CustomStringConvertible {
        /// ``DecibelOffsetMetric``: dB differences after removing the offset that best aligns the two sides
        /// (shrunk towards none by `offsetShrinkage`; nil removes none), one-sided beacons charged by loudness.
        case decibelOffset(floor: Float, queryOnly: Float, referenceOnly: Float, offsetShrinkage: Float?)
        /// ``PairwiseDifferenceMetric`` on relative powers.
        case pairwiseDifference(queryOnly: Float, referenceOnly: Float)
        /// ``EuclideanMetric`` (squared form) on relative powers.
        case euclidean(queryOnly: Float, referenceOnly: Float)

        /// The metric this describes.
        public func make() -> any FingerprintMetric {
            switch self {
            case .decibelOffset(let floor, let queryOnly, let referenceOnly, let shrinkage):
                DecibelOffsetMetric(
                    floor: floor, penalty: AbsencePenalty(queryOnly: queryOnly, referenceOnly: referenceOnly),
                    offsetShrinkage: shrinkage)
            case .pairwiseDifference(let queryOnly, let referenceOnly):
                PairwiseDifferenceMetric(penalty: AbsencePenalty(queryOnly: queryOnly, referenceOnly: referenceOnly))
            case .euclidean(let queryOnly, let referenceOnly):
                EuclideanMetric(penalty: AbsencePenalty(queryOnly: queryOnly, referenceOnly: referenceOnly))
            }
        }

        public var description: String {
            switch self {
            case .decibelOffset(let floor, let queryOnly, let referenceOnly, let shrinkage):
                "dB offset (floor \(Self.short(floor)) dBm, penalties \(Self.short(queryOnly))/\(Self.short(referenceOnly)), offset shrinkage \(shrinkage.map(Self.short) ?? "none: no offset removed"))"
            case .pairwiseDifference(let queryOnly, let referenceOnly):
                "pairwise difference (penalties \(Self.short(queryOnly))/\(Self.short(referenceOnly)))"
            case .euclidean(let queryOnly, let referenceOnly):
                "euclidean (penalties \(Self.short(queryOnly))/\(Self.short(referenceOnly)))"
            }
        }

        private static func short(_ value: Float) -> String {
            value == value.rounded() ? String(Int(value)) : String(value)
        }
    }

    /// The metric.
    public var metric: Metric
    /// Stored survey fingerprints merged into one reference.
    public var referenceWindow: ReferenceWindow
    /// Spots or reference fingerprints as neighbours.
    public var neighbours: NeighbourLevel
    /// With spot neighbours, a spot's distance is the mean of its this many best fingerprints.
    public var spotBest: Int
    /// Neighbours the position is interpolated from.
    public var neighbourCount: Int
    /// Neighbours weigh `1 / distance^weightingPower`.
    public var weightingPower: Double
    /// A best match farther than this answers `unknown`; nil accepts any.
    public var maximumDistance: Float?
    /// The accuracy radius is `accuracyScale · sqrt(spread² + resolution²)`: the spread of the ``uncertainty``
    /// model's covariance, with the survey's resolution as a floor, scaled so that it holds the truth in 68% of the
    /// cross-validation queries (as phones' location APIs define their accuracy).
    public var accuracyScale: Double
    /// Metres: half the median distance between neighbouring spots.
    public var resolution: Double
    /// Seconds of a tracked phone's recent samples merged into its live fingerprint (0: the newest only).
    public var trackerWindow: Double
    /// The tracker's smoothing gain (1: no smoothing).
    public var trackerAlpha: Double
    /// The tracker's radius is `trackerAccuracyScale · sqrt(spread² + resolution²)`, smoothed (with a Kalman
    /// ``trackerGain``: `trackerAccuracyScale / accuracyScale` times the track's own 68% circle), calibrated on
    /// replays of the survey walk to hold 68% of the truths (smoothing makes answers better than single
    /// scans, so the single-scan scale would overstate their radius); nil (older tunings) uses
    /// ``accuracyScale``.
    public var trackerAccuracyScale: Double?
    /// Where the answer's covariance and radius come from, chosen by cross-validation; nil (older tunings)
    /// is ``UncertaintyModel/neighbourSpread``.
    public var uncertainty: UncertaintyModel?
    /// How much of each answer the tracker takes, chosen on the replayed survey; nil (older tunings) is
    /// ``SmootherGain/fixed`` at ``trackerAlpha``.
    public var trackerGain: SmootherGain?
    /// How the venue's map is searched: the strongest-beacon search where ``SurveyTuner`` measured that it
    /// keeps the recall on the venue's survey under ``metric``, the exact beacon index otherwise; nil (older
    /// tunings) is the exact beacon index.
    public var candidateSearch: CandidateSearch?

    public init(
        metric: Metric, referenceWindow: ReferenceWindow, neighbours: NeighbourLevel, spotBest: Int, neighbourCount: Int,
        weightingPower: Double, maximumDistance: Float?, accuracyScale: Double, resolution: Double, trackerWindow: Double,
        trackerAlpha: Double, trackerAccuracyScale: Double? = nil, uncertainty: UncertaintyModel? = nil, trackerGain: SmootherGain? = nil,
        candidateSearch: CandidateSearch? = nil
    ) {
        self.metric = metric
        self.referenceWindow = referenceWindow
        self.neighbours = neighbours
        self.spotBest = max(1, spotBest)
        self.neighbourCount = max(1, neighbourCount)
        self.weightingPower = weightingPower
        self.maximumDistance = maximumDistance
        self.accuracyScale = accuracyScale
        self.resolution = resolution
        self.trackerWindow = max(0, trackerWindow)
        self.trackerAlpha = trackerAlpha
        self.trackerAccuracyScale = trackerAccuracyScale
        self.uncertainty = uncertainty
        self.trackerGain = trackerGain
        self.candidateSearch = candidateSearch
    }

    /// What a venue that was never tuned uses: what `survey tune` chose most often on the shared datasets'
    /// surveys (cross-validation only; docs/accuracy.md): the dB metric with penalties 2/1 and offset
    /// shrinkage 4, whole runs as references, 16 fingerprint neighbours weighted 1/d⁴, 2 s of tracked
    /// samples with smoothing gain 0.7. No `unknown` threshold and an uncalibrated radius: both depend on
    /// the venue. The exact beacon index: the strongest-beacon search keeps too few of this metric's 32
    /// nearest spots on large synthetic venues (docs/decisions/2026-11-26-strongest-beacon-search-where-measured.md).
    public static let untuned = TunedConfiguration(
        metric: .decibelOffset(floor: -100, queryOnly: 2, referenceOnly: 1, offsetShrinkage: 4),
        referenceWindow: .wholeRun, neighbours: .fingerprints, spotBest: 1, neighbourCount: 16, weightingPower: 4,
        maximumDistance: nil, accuracyScale: 1, resolution: 1, trackerWindow: 2, trackerAlpha: 0.7, candidateSearch: .beaconIndex)

    /// The locator this describes.
    public var locator: Locator {
        Locator(
            metric: metric.make(), aggregation: spotBest <= 1 ? .best : .meanOfBest(spotBest), neighbours: neighbours,
            estimator: estimator, maximumDistance: maximumDistance, candidateSearch: candidateSearch ?? .beaconIndex)
    }

    /// The position estimator this describes.
    public var estimator: WeightedNearestSpots {
        WeightedNearestSpots(
            neighbourCount: neighbourCount, weighting: .inverseDistance(power: weightingPower, epsilon: 1e-6),
            minimumAccuracy: 0, accuracyScale: accuracyScale, resolution: resolution, uncertainty: uncertainty ?? .neighbourSpread)
    }

    /// The whole positioning configuration: this venue's choices on top of the fixed parts.
    public func positioning(base: PositioningConfiguration = PositioningConfiguration()) -> PositioningConfiguration {
        var configuration = base
        configuration.locator = locator
        configuration.referenceWindow = referenceWindow
        configuration.tracking.window = trackerWindow
        configuration.tracking.smoother.alpha = min(1, max(0.01, trackerAlpha))
        configuration.tracking.smoother.gain = trackerGain ?? .fixed
        if let trackerAccuracyScale, accuracyScale > 0 { configuration.tracking.accuracyFactor = trackerAccuracyScale / accuracyScale }
        return configuration
    }
}
