/// How a ``DeviceTracker`` merges, smooths and zones a device's samples.
public struct TrackerConfiguration: Sendable {
    /// Seconds of recent samples merged into the live fingerprint: one reading is never enough.
    public var window: Double
    /// At most this many recent samples are merged.
    public var maximumWindowSamples: Int
    /// Equal consecutive readings after which a beacon counts as stuck (see ``StuckBeaconDetector``).
    public var stuckRepeats: Int
    public var smoother: AlphaBetaSmoother
    public var zones: ZoneHysteresis

    public init(
        window: Double = 5, maximumWindowSamples: Int = 10, stuckRepeats: Int = 8,
        smoother: AlphaBetaSmoother = AlphaBetaSmoother(), zones: ZoneHysteresis = ZoneHysteresis()
    ) {
        self.window = max(0, window)
        self.maximumWindowSamples = max(1, maximumWindowSamples)
        self.stuckRepeats = stuckRepeats
        self.smoother = smoother
        self.zones = zones
    }
}

/// What one new sample changed for a device.
public struct TrackingUpdate: Hashable, Sendable {
    /// Time of the sample, seconds since the Unix epoch.
    public var time: Double
    /// The unsmoothed answer for the merged window.
    public var raw: LocationResult
    /// The smoothed position; nil until the device has been located once.
    public var position: Position?
    /// Zone enter and exit events this sample caused.
    public var events: [ZoneEvent]
    /// Beacons ignored because their RSSI is frozen.
    public var stuckBeacons: [BeaconID]
    /// Samples merged into the live fingerprint.
    public var windowSamples: Int
}

/// The positioning state of one device: recent samples, stuck-beacon history, smoothed position and zone.
///
/// A value type with no references: the daemon keeps one per phone and mutates it under its own lock.
public struct DeviceTracker: Sendable {
    public let device: String
    public var configuration: TrackerConfiguration

    private var recent: [Sample] = []
    private var stuckDetector: StuckBeaconDetector
    private var smoother: AlphaBetaSmoother
    private var zones: ZoneHysteresis
    /// The last update, for "where is this device now" queries.
    public private(set) var lastUpdate: TrackingUpdate?

    public init(device: String, configuration: TrackerConfiguration = TrackerConfiguration()) {
        self.device = device
        self.configuration = configuration
        self.stuckDetector = StuckBeaconDetector(minimumRepeats: configuration.stuckRepeats)
        self.smoother = configuration.smoother
        self.zones = configuration.zones
    }

    /// The zone the device is in, after hysteresis.
    public var currentZone: String? { zones.currentZone }

    /// Adds a sample, re-locates the device from its recent window and updates smoothing and zones.
    ///
    /// - Throws: ``FingerprintError`` when the window holds no usable reading (the state still records
    ///   the sample, so a later sample can succeed).
    public mutating func update(
        with sample: Sample, builder: FingerprintBuilder, locator: Locator, map: RadioMap
    ) throws(FingerprintError) -> TrackingUpdate {
        let cleaned = builder.cleaner.clean(sample)
        stuckDetector.observe(cleaned)
        insert(cleaned)

        let stuck = Set(stuckDetector.stuckBeacons)
        let window = stuck.isEmpty
            ? recent
            : recent.map { sample in
                var kept = sample
                kept.readings.removeAll { stuck.contains($0.beacon) }
                return kept
            }
        let fingerprint = try builder.fingerprint(ofCleaned: window)
        let raw = locator.locate(fingerprint, in: map)

        var position = lastUpdate?.position
        var events: [ZoneEvent] = []
        if let measured = raw.position {
            var smoothed = smoother.smooth(measured, at: sample.time)
            if let nearest = map.spots.nearest(toX: smoothed.x, y: smoothed.y, floor: smoothed.floor) {
                smoothed.spot = nearest.name
                smoothed.zone = nearest.zone
            }
            events = zones.update(x: smoothed.x, y: smoothed.y, floor: smoothed.floor, spots: map.spots, time: sample.time)
            position = smoothed
        }
        let update = TrackingUpdate(
            time: sample.time, raw: raw, position: position, events: events,
            stuckBeacons: stuck.sorted(), windowSamples: window.count)
        lastUpdate = update
        return update
    }

    /// Keeps the samples of the last `window` seconds (by the newest sample time), at most
    /// `maximumWindowSamples`, in time order.
    private mutating func insert(_ sample: Sample) {
        let index = recent.lastIndex { $0.time <= sample.time }.map { $0 + 1 } ?? 0
        recent.insert(sample, at: index)
        let newest = recent.last!.time
        recent.removeAll { newest - $0.time > configuration.window }
        if recent.count > configuration.maximumWindowSamples {
            recent.removeFirst(recent.count - configuration.maximumWindowSamples)
        }
    }
}
