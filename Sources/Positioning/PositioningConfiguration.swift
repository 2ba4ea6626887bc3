/// Everything that decides how beaconfix positions, in one value: what the store, the daemon, the CLI
/// and the benchmarks share.
///
/// ``init()`` gives the configuration of a venue that was never tuned; a tuned venue's configuration is
/// ``TunedConfiguration/positioning(base:)`` (docs/accuracy.md).
public struct PositioningConfiguration: Sendable {
    /// How samples become fingerprints (cleaning, relative-power scale).
    public var builder: FingerprintBuilder
    /// How fingerprints become positions (metric, aggregation, neighbours, unknown thresholds).
    public var locator: Locator
    /// Consecutive survey samples `survey record` stores as one fingerprint: 1 keeps every scan, so the
    /// reference window can be chosen per venue afterwards (``referenceWindow``).
    public var surveyWindow: Int
    /// Stored survey fingerprints merged into one reference of the radio map.
    public var referenceWindow: ReferenceWindow
    /// Per-device merging, smoothing and zone hysteresis.
    public var tracking: TrackerConfiguration
    /// The table decision.
    public var proximity: ProximityDecider

    public init(
        builder: FingerprintBuilder = FingerprintBuilder(scale: PositioningConfiguration.defaultScale),
        locator: Locator = PositioningConfiguration.defaultLocator,
        surveyWindow: Int = 1,
        referenceWindow: ReferenceWindow = TunedConfiguration.untuned.referenceWindow,
        tracking: TrackerConfiguration = TrackerConfiguration(),
        proximity: ProximityDecider = ProximityDecider()
    ) {
        precondition(surveyWindow >= 1, "a survey window holds at least one sample")
        self.builder = builder
        self.locator = locator
        self.surveyWindow = surveyWindow
        self.referenceWindow = referenceWindow
        self.tracking = tracking
        self.proximity = proximity
    }

    /// The relative-power scale that measured best: linear in dB over 35 dB below the strongest beacon,
    /// squared ("powed"), so near beacons dominate.
    public static let defaultScale = DecibelScale(dynamicRange: 35, exponent: 2)

    /// The locator of a venue that was never tuned (``TunedConfiguration/untuned``).
    public static var defaultLocator: Locator { TunedConfiguration.untuned.locator }
}
