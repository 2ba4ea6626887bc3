/// Everything that decides how beaconfix positions, in one value: what the store, the daemon, the CLI
/// and the benchmarks share.
///
/// ``init()`` gives the defaults that measured best on the shared UJI datasets (see README, "Accuracy").
public struct PositioningConfiguration: Sendable {
    /// How samples become fingerprints (cleaning, relative-power scale).
    public var builder: FingerprintBuilder
    /// How fingerprints become positions (metric, aggregation, neighbours, unknown thresholds).
    public var locator: Locator
    /// Consecutive survey samples summarised into one reference fingerprint.
    public var surveyWindow: Int
    /// Per-device merging, smoothing and zone hysteresis.
    public var tracking: TrackerConfiguration
    /// The table decision.
    public var proximity: ProximityDecider

    public init(
        builder: FingerprintBuilder = FingerprintBuilder(scale: PositioningConfiguration.defaultScale),
        locator: Locator = PositioningConfiguration.defaultLocator,
        surveyWindow: Int = 3,
        tracking: TrackerConfiguration = TrackerConfiguration(),
        proximity: ProximityDecider = ProximityDecider()
    ) {
        precondition(surveyWindow >= 1, "a survey window holds at least one sample")
        self.builder = builder
        self.locator = locator
        self.surveyWindow = surveyWindow
        self.tracking = tracking
        self.proximity = proximity
    }

    /// The relative-power scale that measured best: linear in dB over 35 dB below the strongest beacon,
    /// squared ("powed"), so near beacons dominate.
    public static let defaultScale = DecibelScale(dynamicRange: 35, exponent: 2)

    /// The locator that measured best on average over uji-geo-p4, -p12 and -p20, single scans and
    /// 5-sample windows (README, "Accuracy"): the pairwise-difference metric with a query-only penalty
    /// twice the reference-only one, the mean of each spot's 2 best fingerprints, and the 8 nearest
    /// spots weighted by inverse squared distance.
    ///
    /// Real UJI test scans have a best distance of at most 0.178 with this metric; 0.25 answers
    /// `unknown` for scans that share almost nothing with the survey (e.g. 1 beacon in common, 4 foreign).
    public static let defaultLocator = Locator(
        metric: PairwiseDifferenceMetric(penalty: AbsencePenalty(queryOnly: 0.4, referenceOnly: 0.2)),
        aggregation: .meanOfBest(2),
        estimator: WeightedNearestSpots(neighbourCount: 8, weighting: .inverseDistance(power: 2, epsilon: 1e-6)),
        minimumBeacons: 1,
        maximumDistance: 0.25)
}
