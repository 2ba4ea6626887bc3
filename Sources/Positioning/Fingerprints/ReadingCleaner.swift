/// Removes readings that cannot describe a real signal and merges duplicates, one sample at a time.
///
/// Thresholds, and why:
/// - RSSI 0 is iOS's "unknown" (the beacon was heard but not measured): dropped.
/// - NaN and infinities come from broken clients: dropped.
/// - Values outside `validRange` (default -110...-1 dBm) are reported but not trusted: below -110 dBm no
///   phone demodulates a packet reliably, and a positive RSSI is not a beacon's received power (beacons
///   transmit at +4 dBm at most). Strong readings such as -14 dBm (a phone a hand's width from a beacon)
///   are real and kept. What a radio cannot report at all is refused earlier, by ``SampleValidation``.
/// - Several readings of one beacon in one sample (some Android stacks report every advertisement)
///   are merged into their mean, so a chatty beacon does not weigh more than the others.
public struct ReadingCleaner: Sendable, Hashable {
    public var validRange: ClosedRange<Double>

    public init(validRange: ClosedRange<Double> = -110 ... -1) {
        self.validRange = validRange
    }

    /// The readings of `sample` that survive cleaning, one per beacon.
    public func clean(_ sample: Sample) -> Sample {
        var report = CleaningReport()
        return clean(sample, report: &report)
    }

    /// Cleans `sample` and counts what was dropped into `report`. Readings keep their order (that of
    /// each beacon's first reading), which carries no meaning.
    public func clean(_ sample: Sample, report: inout CleaningReport) -> Sample {
        var readings: [Reading] = []
        readings.reserveCapacity(sample.readings.count)
        // Counts of merged duplicates, parallel to `readings` (rare: most samples have none).
        var counts: [Int] = []
        for reading in sample.readings {
            guard reading.rssi.isFinite else {
                report.nonFinite += 1
                continue
            }
            guard reading.rssi != 0 else {
                report.unknownRSSI += 1
                continue
            }
            guard validRange.contains(reading.rssi) else {
                report.outOfRange += 1
                continue
            }
            // A sample holds a few dozen beacons at most: a linear search beats hashing.
            if let index = readings.firstIndex(where: { $0.beacon == reading.beacon }) {
                report.duplicatesMerged += 1
                if counts.isEmpty { counts = [Int](repeating: 1, count: readings.count) }
                readings[index].rssi += reading.rssi
                counts[index] += 1
            } else {
                readings.append(reading)
                if !counts.isEmpty { counts.append(1) }
            }
        }
        for (index, count) in counts.enumerated() where count > 1 {
            readings[index].rssi /= Double(count)
        }
        return Sample(device: sample.device, time: sample.time, readings: readings)
    }
}

/// What cleaning dropped, by reason.
public struct CleaningReport: Hashable, Sendable, Codable {
    public var unknownRSSI = 0
    public var nonFinite = 0
    public var outOfRange = 0
    public var duplicatesMerged = 0

    public init() {}

    /// Readings removed outright (duplicates are merged, not removed).
    public var dropped: Int { unknownRSSI + nonFinite + outOfRange }

    public mutating func add(_ other: CleaningReport) {
        unknownRSSI += other.unknownRSSI
        nonFinite += other.nonFinite
        outOfRange += other.outOfRange
        duplicatesMerged += other.duplicatesMerged
    }
}
