/// Removes readings that cannot describe a real signal and merges duplicates, one sample at a time.
///
/// Thresholds, and why:
/// - RSSI 0 is iOS's "unknown" (the beacon was heard but not measured): dropped.
/// - NaN and infinities come from broken clients: dropped.
/// - Values outside `validRange` (default -110...-20 dBm) are not physical for BLE at body distance:
///   below -110 dBm no phone demodulates a packet, above -20 dBm the phone would touch the beacon.
/// - Several readings of one beacon in one sample (some Android stacks report every advertisement)
///   are merged into their mean, so a chatty beacon does not weigh more than the others.
public struct ReadingCleaner: Sendable, Hashable {
    public var validRange: ClosedRange<Double>

    public init(validRange: ClosedRange<Double> = -110 ... -20) {
        self.validRange = validRange
    }

    /// The readings of `sample` that survive cleaning, one per beacon, in a stable order (by beacon).
    public func clean(_ sample: Sample) -> Sample {
        var report = CleaningReport()
        return clean(sample, report: &report)
    }

    /// Cleans `sample` and counts what was dropped into `report`.
    public func clean(_ sample: Sample, report: inout CleaningReport) -> Sample {
        var sums: [BeaconID: (total: Double, count: Int)] = [:]
        sums.reserveCapacity(sample.readings.count)
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
            if let previous = sums[reading.beacon] {
                report.duplicatesMerged += 1
                sums[reading.beacon] = (previous.total + reading.rssi, previous.count + 1)
            } else {
                sums[reading.beacon] = (reading.rssi, 1)
            }
        }
        let readings = sums.map { Reading(beacon: $0.key, rssi: $0.value.total / Double($0.value.count)) }
            .sorted { $0.beacon < $1.beacon }
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
