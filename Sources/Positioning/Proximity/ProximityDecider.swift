/// The restaurant-table decision: which beacon is *significantly* nearest, from a handful of samples.
///
/// Table beacons run at minimum transmit power, so absolute RSSI says little while the difference
/// between two beacons heard by the same phone at the same moment is trustworthy. A beacon wins when
/// - it was heard in at least `minimumSamples` of the samples,
/// - its mean RSSI beats the runner-up's by at least `marginDB`, and
/// - it was the strongest beacon in at least `requiredShare` of the samples in which either was heard.
/// Otherwise the answer is the list of candidates (or nothing at all), never a coin toss.
public struct ProximityDecider: Sendable, Hashable {
    public var cleaner: ReadingCleaner
    public var marginDB: Double
    public var minimumSamples: Int
    public var requiredShare: Double
    /// How many candidates an undecided answer lists.
    public var candidateCount: Int

    public init(
        cleaner: ReadingCleaner = ReadingCleaner(), marginDB: Double = 6, minimumSamples: Int = 3,
        requiredShare: Double = 0.8, candidateCount: Int = 3
    ) {
        self.cleaner = cleaner
        self.marginDB = marginDB
        self.minimumSamples = max(1, minimumSamples)
        self.requiredShare = min(1, max(0, requiredShare))
        self.candidateCount = max(1, candidateCount)
    }

    /// A beacon's standing over the samples.
    public struct Candidate: Hashable, Sendable {
        public var beacon: BeaconID
        public var meanRSSI: Double
        /// Samples in which the beacon was heard.
        public var samples: Int
        /// Samples in which it was the strongest beacon.
        public var strongestIn: Int
    }

    public enum Decision: Hashable, Sendable {
        /// `beacon` is significantly nearest: it beats the runner-up by `marginDB` on average.
        case nearest(Candidate, marginDB: Double, runnerUp: Candidate?)
        /// No beacon stands out; the candidates, strongest first.
        case undecided([Candidate], reason: UndecidedReason)
        /// Nothing usable was heard.
        case nothing(reason: NothingReason)
    }

    /// Why no beacon stands out: which of the three conditions the strongest beacon missed.
    public enum UndecidedReason: Hashable, Sendable, CustomStringConvertible {
        /// The strongest beacon was heard in `heard` samples, fewer than the `required` ``minimumSamples``.
        case tooFewSamples(heard: Int, required: Int)
        /// The strongest beacon's mean RSSI beats the runner-up's by `margin` dB, less than the `required`
        /// ``marginDB``.
        case marginTooSmall(margin: Double, required: Double)
        /// The strongest beacon was the strongest in only `ledIn` of the `contested` samples in which it or
        /// the runner-up was heard, a smaller share than ``requiredShare``.
        case rarelyStrongest(ledIn: Int, contested: Int)

        /// The reasons' stable machine-readable codes.
        public enum Code: String, Hashable, Sendable, CaseIterable {
            case tooFewSamples = "too_few_samples"
            case marginTooSmall = "margin_too_small"
            case rarelyStrongest = "rarely_strongest"
        }

        /// A stable machine-readable code.
        public var code: Code {
            switch self {
            case .tooFewSamples: .tooFewSamples
            case .marginTooSmall: .marginTooSmall
            case .rarelyStrongest: .rarelyStrongest
            }
        }

        /// The reason for people (what the proximity route answers as `reason`).
        public var message: String {
            switch self {
            case .tooFewSamples(let heard, let required):
                "the strongest beacon was heard in \(heard) sample\(heard == 1 ? "" : "s"); \(required) needed"
            case .marginTooSmall(let margin, let required):
                "the strongest beacon leads by \(Self.rounded(margin)) dB; \(Self.rounded(required)) dB needed"
            case .rarelyStrongest(let ledIn, let contested):
                "the strongest beacon led in \(ledIn) of \(contested) samples"
            }
        }

        public var description: String { message }

        /// Decibels to one decimal, as people read them.
        private static func rounded(_ value: Double) -> String {
            String(Double((value * 10).rounded()) / 10)
        }
    }

    /// Why nothing could be decided at all.
    public enum NothingReason: Hashable, Sendable, CustomStringConvertible {
        /// The decision was asked of no sample.
        case noSamples
        /// None of the `samples` held a reading that survived cleaning.
        case noUsableReading(samples: Int)

        /// The reasons' stable machine-readable codes.
        public enum Code: String, Hashable, Sendable, CaseIterable {
            case noSamples = "no_samples"
            case noUsableReading = "no_usable_reading"
        }

        /// A stable machine-readable code.
        public var code: Code {
            switch self {
            case .noSamples: .noSamples
            case .noUsableReading: .noUsableReading
            }
        }

        /// The reason for people (what the proximity route answers as `reason`).
        public var message: String {
            switch self {
            case .noSamples: "no samples were given"
            case .noUsableReading(let samples): "no usable beacon reading in \(samples) sample\(samples == 1 ? "" : "s")"
            }
        }

        public var description: String { message }
    }

    /// Decides from `samples` (any order; typically 5 consecutive samples of one phone).
    public func decide(_ samples: [Sample]) -> Decision {
        guard !samples.isEmpty else { return .nothing(reason: .noSamples) }
        let cleaned = samples.map { cleaner.clean($0) }
        var sums: [BeaconID: (total: Double, count: Int, strongest: Int)] = [:]
        for sample in cleaned {
            let top = sample.readings.max { $0.rssi < $1.rssi }?.beacon
            for reading in sample.readings {
                var entry = sums[reading.beacon] ?? (0, 0, 0)
                entry.total += reading.rssi
                entry.count += 1
                if reading.beacon == top { entry.strongest += 1 }
                sums[reading.beacon] = entry
            }
        }
        let candidates = sums.map {
            Candidate(beacon: $0.key, meanRSSI: $0.value.total / Double($0.value.count), samples: $0.value.count,
                      strongestIn: $0.value.strongest)
        }.sorted { $0.meanRSSI != $1.meanRSSI ? $0.meanRSSI > $1.meanRSSI : $0.beacon < $1.beacon }
        guard let leader = candidates.first else {
            return .nothing(reason: .noUsableReading(samples: samples.count))
        }
        let listed = Array(candidates.prefix(candidateCount))
        guard leader.samples >= minimumSamples else {
            return .undecided(listed, reason: .tooFewSamples(heard: leader.samples, required: minimumSamples))
        }
        guard let runnerUp = candidates.dropFirst().first else {
            return .nearest(leader, marginDB: .infinity, runnerUp: nil)
        }
        let margin = leader.meanRSSI - runnerUp.meanRSSI
        guard margin >= marginDB else {
            return .undecided(listed, reason: .marginTooSmall(margin: margin, required: marginDB))
        }
        let contested = cleaned.filter { sample in
            sample.readings.contains { $0.beacon == leader.beacon || $0.beacon == runnerUp.beacon }
        }.count
        let share = Double(leader.strongestIn) / Double(max(1, contested))
        guard share >= requiredShare else {
            return .undecided(listed, reason: .rarelyStrongest(ledIn: leader.strongestIn, contested: contested))
        }
        return .nearest(leader, marginDB: margin, runnerUp: runnerUp)
    }
}
