/// How a ``DeviceTracker`` merges, smooths and zones a device's samples.
public struct TrackerConfiguration: Sendable, Hashable {
    /// Seconds of recent samples merged into the live fingerprint: one reading is never enough.
    public var window: Double
    /// At most this many recent samples are merged.
    public var maximumWindowSamples: Int
    /// Equal consecutive readings after which a beacon counts as stuck (see ``StuckBeaconDetector``).
    public var stuckRepeats: Int
    /// The position filter; each device starts with a copy.
    public var smoother: AlphaBetaSmoother
    /// The zone decision; each device starts with a copy.
    public var zones: ZoneHysteresis
    /// Seconds without a sample (or without a located one, for the smoother) after which the device's past
    /// is forgotten: the merged window is emptied and the smoother restarts at the next measurement.
    /// A phone silent that long may have walked anywhere; extrapolating its last velocity over the gap
    /// is what threw answers hundreds of metres out of the building.
    public var silenceReset: Double
    /// Metres by which the bounding box of a floor's surveyed spots is enlarged to give the area answers
    /// must fall in: fingerprinting cannot tell anything about places beyond the survey, so the tracker
    /// never answers there.
    public var extentMargin: Double
    /// The tracker's radius over the single-scan one (``TunedConfiguration/trackerAccuracyScale`` over
    /// ``TunedConfiguration/accuracyScale``): the smoothed radius is scaled by it so that it holds the truth
    /// 68% of the time for tracked answers too.
    public var accuracyFactor: Double

    public init(
        window: Double = 5, maximumWindowSamples: Int = 10, stuckRepeats: Int = 8,
        smoother: AlphaBetaSmoother = AlphaBetaSmoother(), zones: ZoneHysteresis = ZoneHysteresis(),
        silenceReset: Double = 10, extentMargin: Double = 3, accuracyFactor: Double = 1
    ) {
        self.window = max(0, window)
        self.maximumWindowSamples = max(1, maximumWindowSamples)
        self.stuckRepeats = stuckRepeats
        self.smoother = smoother
        self.zones = zones
        self.silenceReset = silenceReset.isNaN ? 10 : max(0, silenceReset)
        self.extentMargin = extentMargin.isNaN ? 3 : max(0, extentMargin)
        self.accuracyFactor = accuracyFactor.isFinite && accuracyFactor > 0 ? accuracyFactor : 1
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

    private var recent: RecentSamples
    private var stuckDetector: StuckBeaconDetector
    private var smoother: AlphaBetaSmoother
    private var zones: ZoneHysteresis
    /// Time of the last measurement given to the smoother, to tell when its track has gone stale.
    private var smoothedAt: Double?
    /// The last update, for "where is this device now" queries.
    public private(set) var lastUpdate: TrackingUpdate?

    public init(device: String, configuration: TrackerConfiguration = TrackerConfiguration()) {
        self.device = device
        self.configuration = configuration
        self.recent = RecentSamples(
            window: configuration.window, maximumSamples: configuration.maximumWindowSamples,
            silenceReset: configuration.silenceReset)
        self.stuckDetector = StuckBeaconDetector(minimumRepeats: configuration.stuckRepeats)
        self.smoother = configuration.smoother
        self.zones = configuration.zones
    }

    /// The zone the device is in, after hysteresis.
    public var currentZone: String? { zones.currentZone }

    /// Adds a sample, re-locates the device from its recent window and updates smoothing and zones.
    ///
    /// After more than ``TrackerConfiguration/silenceReset`` seconds of silence the window starts afresh
    /// with this sample and the smoother restarts at its measurement. A sample more than that *older*
    /// than the newest one restarts the whole track (docs/api.md, the tracker's clock): one wrong time
    /// must not freeze a device. Positions (raw and smoothed) are
    /// kept inside the bounding box of the floor's spots enlarged by ``TrackerConfiguration/extentMargin``.
    ///
    /// - Throws: ``FingerprintError`` when the window holds no usable reading (the state still records
    ///   the sample, so a later sample can succeed).
    public mutating func update(
        with sample: Sample, builder: FingerprintBuilder, locator: Locator, map: RadioMap
    ) throws(FingerprintError) -> TrackingUpdate {
        let cleaned = builder.cleaner.clean(sample)
        if let newest = recent.newest?.time, newest - sample.time > configuration.silenceReset {
            // Time went back by more than a silence: the earlier time was wrong (a phone that once sent
            // milliseconds, a clock set back). Keeping the newest time would discard every later correct
            // sample as too old and freeze the device; the device's own clock now rules, so its track
            // restarts from this sample.
            restart()
        }
        stuckDetector.observe(cleaned)
        // Samples from before a silence describe another moment, perhaps another place: `add` forgets them.
        recent.add(cleaned)

        let stuck = Set(stuckDetector.stuckBeacons)
        let window = stuck.isEmpty
            ? recent.samples
            : recent.samples.map { sample in
                var kept = sample
                kept.readings.removeAll { stuck.contains($0.beacon) }
                return kept
            }
        let fingerprint = try builder.fingerprint(ofCleaned: window)
        var raw = locator.locate(fingerprint, in: map)

        var position = lastUpdate?.position
        var events: [ZoneEvent] = []
        if case .located(let located) = raw.outcome {
            let measured = bounded(located, in: map)
            raw.outcome = .located(measured)
            if let smoothedAt, sample.time - smoothedAt > configuration.silenceReset { smoother.reset() }
            smoothedAt = max(smoothedAt ?? sample.time, sample.time)
            var smoothed = bounded(smoother.smooth(measured, at: sample.time), in: map)
            smoothed.accuracy *= configuration.accuracyFactor
            smoothed.covariance = smoothed.covariance?.scaled(toRadius: smoothed.accuracy)
            let nearest = map.spotGrid.nearest(toX: smoothed.x, y: smoothed.y, floor: smoothed.floor).map { map.spots[$0] }
            let zone = map.zones.zone(atX: smoothed.x, y: smoothed.y, floor: smoothed.floor, nearest: nearest)
            if let nearest {
                smoothed.spot = nearest.name
                smoothed.zone = zone
            }
            events = zones.update(x: smoothed.x, y: smoothed.y, floor: smoothed.floor, zone: zone, zones: map.zones, time: sample.time)
            position = smoothed
        }
        let update = TrackingUpdate(
            time: sample.time, raw: raw, position: position, events: events,
            stuckBeacons: stuck.sorted(), windowSamples: window.count)
        lastUpdate = update
        return update
    }

    /// Forgets the device's past (window, stuck-beacon history, smoothing, zone) as if it were new.
    private mutating func restart() {
        self = DeviceTracker(device: device, configuration: configuration)
    }

    /// `position` moved into the surveyed extent of its floor plus the margin; its spot and zone are
    /// refreshed when it moved. A floor without spots leaves it as it is.
    private func bounded(_ position: Position, in map: RadioMap) -> Position {
        guard let extent = map.spotGrid.extent(ofFloor: position.floor)?.enlarged(by: configuration.extentMargin),
              !extent.contains(x: position.x, y: position.y)
        else { return position }
        var moved = position
        (moved.x, moved.y) = extent.clamped(x: position.x, y: position.y)
        if let nearest = map.spotGrid.nearest(toX: moved.x, y: moved.y, floor: moved.floor).map({ map.spots[$0] }) {
            moved.spot = nearest.name
            moved.zone = map.zones.zone(atX: moved.x, y: moved.y, floor: moved.floor, nearest: nearest)
        }
        return moved
    }
}
