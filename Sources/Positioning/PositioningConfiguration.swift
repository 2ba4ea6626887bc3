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
        surveyWindow: Int = 5,
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

    /// The relative-power scale that measured best.
    public static let defaultScale = DecibelScale(dynamicRange: 40, exponent: 1)

    /// The locator that measured best.
    public static let defaultLocator = Locator(
        metric: ManhattanMetric(penalty: 0.3),
        aggregation: .best,
        estimator: WeightedNearestSpots(neighbourCount: 8, weighting: .exponential(relativeScale: 0.25)),
        minimumBeacons: 1,
        maximumDistance: nil)
}
