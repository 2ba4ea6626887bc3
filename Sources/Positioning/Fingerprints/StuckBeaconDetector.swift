/// Recognises beacons whose RSSI is frozen: a hung BLE stack keeps reporting a beacon that has been
/// switched off, always with the same value.
///
/// A beacon is stuck once its last `minimumRepeats` readings, in consecutive samples no more than
/// `maximumGap` seconds apart, are exactly equal. Live beacons fluctuate by several dB from one
/// second to the next: over 16,000 survey readings of the shared UJI and WMU datasets the longest
/// run of equal values is 6, so the default of 8 never drops a live beacon there.
///
/// One detector holds the recent history of one device.
public struct StuckBeaconDetector: Sendable {
    public var minimumRepeats: Int
    public var maximumGap: Double

    private struct Run: Sendable {
        var rssi: Double
        var length: Int
        var lastTime: Double
    }

    private var runs: [BeaconID: Run] = [:]

    /// - Parameters:
    ///   - minimumRepeats: equal consecutive readings after which a beacon counts as stuck (at least 2).
    ///   - maximumGap: seconds between two samples beyond which a run starts over.
    public init(minimumRepeats: Int = 8, maximumGap: Double = 10) {
        self.minimumRepeats = max(2, minimumRepeats)
        self.maximumGap = maximumGap
    }

    /// Records a cleaned sample. Beacons missing from it lose their run: a hung stack reports them every time.
    public mutating func observe(_ sample: Sample) {
        var next: [BeaconID: Run] = [:]
        next.reserveCapacity(sample.readings.count)
        for reading in sample.readings {
            if let run = runs[reading.beacon], run.rssi == reading.rssi, sample.time - run.lastTime <= maximumGap,
                sample.time >= run.lastTime
            {
                next[reading.beacon] = Run(rssi: run.rssi, length: run.length + 1, lastTime: sample.time)
            } else {
                next[reading.beacon] = Run(rssi: reading.rssi, length: 1, lastTime: sample.time)
            }
        }
        runs = next
    }

    /// Whether `beacon` is currently reporting a frozen value.
    public func isStuck(_ beacon: BeaconID) -> Bool {
        (runs[beacon]?.length ?? 0) >= minimumRepeats
    }

    /// The beacons currently stuck, sorted.
    public var stuckBeacons: [BeaconID] {
        runs.filter { $0.value.length >= minimumRepeats }.map(\.key).sorted()
    }

    /// Runs `samples` (already cleaned, in time order) through a fresh detector and removes every
    /// reading of a beacon from the moment it is recognised as stuck.
    public static func removingStuckReadings(
        from samples: [Sample], minimumRepeats: Int = 8, maximumGap: Double = 10
    ) -> (samples: [Sample], stuck: Set<BeaconID>) {
        var detector = StuckBeaconDetector(minimumRepeats: minimumRepeats, maximumGap: maximumGap)
        // Fewer samples than the run it takes cannot show a frozen beacon (a locate body usually holds 5).
        guard samples.count >= detector.minimumRepeats else { return (samples, []) }
        var stuck = Set<BeaconID>()
        var result: [Sample] = []
        result.reserveCapacity(samples.count)
        for sample in samples {
            detector.observe(sample)
            var kept = sample
            kept.readings.removeAll { reading in
                let frozen = detector.isStuck(reading.beacon)
                if frozen { stuck.insert(reading.beacon) }
                return frozen
            }
            result.append(kept)
        }
        return (result, stuck)
    }
}
