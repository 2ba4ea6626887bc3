/// What a fingerprint knows about one beacon.
public struct FingerprintEntry: Hashable, Sendable, Codable {
    /// Power relative to the strongest beacon of the window, 0...1; what matching compares.
    public var relativePower: Float
    /// Mean RSSI in dBm over the samples in which the beacon appeared.
    public var meanRSSI: Double
    /// Standard deviation of those readings in dB (0 for a single reading).
    public var dispersion: Double
    /// Share of the window's samples in which the beacon appeared, 0...1.
    public var visibility: Double

    public init(relativePower: Float, meanRSSI: Double, dispersion: Double, visibility: Double) {
        self.relativePower = relativePower
        self.meanRSSI = meanRSSI
        self.dispersion = dispersion
        self.visibility = visibility
    }

    enum CodingKeys: String, CodingKey {
        case relativePower = "relative_power"
        case meanRSSI = "mean_rssi"
        case dispersion, visibility
    }
}

/// The radio signature of one place as seen by one device over a window of samples.
public struct Fingerprint: Hashable, Sendable {
    /// One entry per visible beacon.
    public var entries: [BeaconID: FingerprintEntry]
    /// Samples the window held (including those in which no beacon survived cleaning).
    public var sampleCount: Int

    public init(entries: [BeaconID: FingerprintEntry], sampleCount: Int) {
        self.entries = entries
        self.sampleCount = sampleCount
    }

    /// The visible beacons, sorted.
    public var beacons: [BeaconID] { entries.keys.sorted() }

    /// Mean RSSI of the strongest beacon, nil for an empty fingerprint.
    public var strongestRSSI: Double? { entries.values.map(\.meanRSSI).max() }

    /// The same fingerprint with every relative power recomputed from the mean RSSIs with `scale`.
    public func rescaled(with scale: some RelativePowerScale) -> Fingerprint {
        guard let strongest = strongestRSSI else { return self }
        var copy = self
        for (beacon, entry) in entries {
            copy.entries[beacon]?.relativePower = scale.relativePower(rssi: entry.meanRSSI, strongest: strongest)
        }
        return copy
    }
}

/// Why no fingerprint could be built.
public enum FingerprintError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The window held no sample at all.
    case noSamples
    /// Samples were given, but no reading survived cleaning (all 0, out of range, NaN or stuck).
    case noValidReadings(samples: Int)

    public var description: String {
        switch self {
        case .noSamples: "no samples were given"
        case .noValidReadings(let samples): "none of the \(samples) samples holds a usable beacon reading"
        }
    }
}

/// Builds fingerprints from windows of consecutive samples of one device at one place.
public struct FingerprintBuilder: Sendable {
    public var cleaner: ReadingCleaner
    public var scale: any RelativePowerScale
    /// Beacons seen in a smaller share of the window's samples are left out (0 keeps every beacon).
    public var minimumVisibility: Double

    public init(
        cleaner: ReadingCleaner = ReadingCleaner(),
        scale: any RelativePowerScale = DecibelScale(),
        minimumVisibility: Double = 0
    ) {
        self.cleaner = cleaner
        self.scale = scale
        self.minimumVisibility = minimumVisibility
    }

    /// Cleans `samples` and summarises them into one fingerprint.
    ///
    /// Cleaning only removes impossible readings; stuck beacons need a device's history and are the
    /// caller's business (``StuckBeaconDetector``, ``DeviceTracker``).
    public func fingerprint(of samples: [Sample]) throws(FingerprintError) -> Fingerprint {
        var report = CleaningReport()
        return try fingerprint(of: samples, report: &report)
    }

    /// As ``fingerprint(of:)``, counting what cleaning dropped into `report`.
    public func fingerprint(of samples: [Sample], report: inout CleaningReport) throws(FingerprintError) -> Fingerprint {
        guard !samples.isEmpty else { throw .noSamples }
        return try fingerprint(ofCleaned: samples.map { cleaner.clean($0, report: &report) })
    }

    /// Summarises samples that are already cleaned (one reading per beacon per sample).
    public func fingerprint(ofCleaned samples: [Sample]) throws(FingerprintError) -> Fingerprint {
        guard !samples.isEmpty else { throw .noSamples }
        // Welford's running mean and variance per beacon: one pass, numerically stable. A window holds a few
        // dozen beacons at most, so a linear search beats hashing.
        var beacons: [BeaconID] = []
        var moments: [(count: Int, mean: Double, m2: Double)] = []
        for sample in samples {
            for reading in sample.readings {
                let index: Int
                if let known = beacons.firstIndex(of: reading.beacon) {
                    index = known
                } else {
                    index = beacons.count
                    beacons.append(reading.beacon)
                    moments.append((0, 0, 0))
                }
                var m = moments[index]
                m.count += 1
                let delta = reading.rssi - m.mean
                m.mean += delta / Double(m.count)
                m.m2 += delta * (reading.rssi - m.mean)
                moments[index] = m
            }
        }
        let windowSize = Double(samples.count)
        var strongest = -Double.infinity
        for m in moments where Double(m.count) / windowSize >= minimumVisibility { strongest = max(strongest, m.mean) }
        guard strongest.isFinite else { throw .noValidReadings(samples: samples.count) }
        var entries: [BeaconID: FingerprintEntry] = [:]
        entries.reserveCapacity(beacons.count)
        for (beacon, m) in zip(beacons, moments) where Double(m.count) / windowSize >= minimumVisibility {
            entries[beacon] = FingerprintEntry(
                relativePower: scale.relativePower(rssi: m.mean, strongest: strongest),
                meanRSSI: m.mean,
                dispersion: m.count > 1 ? (m.m2 / Double(m.count)).squareRoot() : 0,
                visibility: Double(m.count) / windowSize
            )
        }
        return Fingerprint(entries: entries, sampleCount: samples.count)
    }
}
