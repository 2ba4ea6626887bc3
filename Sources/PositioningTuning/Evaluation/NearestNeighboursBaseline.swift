public import Positioning

/// The simplest fingerprinting there is, kept as a yardstick: k nearest neighbours on raw RSSI.
///
/// Every reference fingerprint becomes a vector of its mean RSSI over all the survey's beacons, with
/// ``missingRSSI`` where it did not hear one; a query likewise (beacons the survey never heard are left
/// out). The answer is the unweighted mean of the spot coordinates of the k references nearest in
/// Euclidean distance, on the floor most of them are on. This is the published baseline of the
/// fingerprinting literature (and scikit-learn's `KNeighborsRegressor` with missing = -105 dBm), so its
/// figures say whether the matcher earns its complexity.
public struct RSSINearestNeighbours: Sendable {
    /// What a beacon that was not heard counts as, in dBm: below anything a phone reports.
    public static let defaultMissingRSSI = -105.0

    /// The venue's spots; references point into this array.
    public let spots: [Spot]
    /// The vectors' columns: every beacon some reference heard, sorted.
    public let beacons: [BeaconID]
    public let missingRSSI: Double
    /// For each reference, the index of its spot in ``spots``.
    public let spotOfReference: [Int]
    /// `spotOfReference.count × beacons.count` mean RSSIs, row-major.
    private let vectors: [Double]
    private let columnOfBeacon: [BeaconID: Int]

    /// Lays out the references (each attached to an index into `spots`).
    ///
    /// - Throws: ``RadioMapError/spotOutOfRange(row:)`` when a reference points at no spot.
    public init(
        spots: [Spot], fingerprints: [(spot: Int, fingerprint: Fingerprint)], missingRSSI: Double = defaultMissingRSSI
    ) throws(RadioMapError) {
        var beaconSet = Set<BeaconID>()
        for (index, reference) in fingerprints.enumerated() {
            guard spots.indices.contains(reference.spot) else { throw .spotOutOfRange(row: index) }
            beaconSet.formUnion(reference.fingerprint.entries.keys)
        }
        let beacons = beaconSet.sorted()
        var columnOfBeacon: [BeaconID: Int] = [:]
        for (column, beacon) in beacons.enumerated() { columnOfBeacon[beacon] = column }
        var vectors = [Double](repeating: missingRSSI, count: fingerprints.count * beacons.count)
        for (row, reference) in fingerprints.enumerated() {
            for (beacon, entry) in reference.fingerprint.entries {
                vectors[row * beacons.count + columnOfBeacon[beacon]!] = entry.meanRSSI
            }
        }
        self.spots = spots
        self.beacons = beacons
        self.missingRSSI = missingRSSI
        self.spotOfReference = fingerprints.map(\.spot)
        self.vectors = vectors
        self.columnOfBeacon = columnOfBeacon
    }

    /// Number of reference fingerprints.
    public var count: Int { spotOfReference.count }

    /// The answer for every k from 1 to `maximumK` (element `k - 1`), from one sort of the distances.
    ///
    /// A query that hears no beacon of the survey is `unknown` (``UnknownReason/noKnownBeacon``) for
    /// every k, as the matcher answers it. k beyond the number of references uses them all.
    public func outcomes(for fingerprint: Fingerprint, upTo maximumK: Int) -> [LocationResult.Outcome] {
        let maximumK = max(1, maximumK)
        var query = [Double](repeating: missingRSSI, count: beacons.count)
        var known = 0
        for (beacon, entry) in fingerprint.entries {
            guard let column = columnOfBeacon[beacon] else { continue }
            query[column] = entry.meanRSSI
            known += 1
        }
        guard known > 0, count > 0 else {
            return Array(repeating: .unknown(.noKnownBeacon), count: maximumK)
        }
        let width = beacons.count
        var distances = [(distance: Double, row: Int)]()
        distances.reserveCapacity(count)
        for row in 0..<count {
            var sum = 0.0
            for column in 0..<width {
                let difference = vectors[row * width + column] - query[column]
                sum += difference * difference
            }
            distances.append((sum, row))
        }
        // Ties are broken by reference order, so the answer never depends on the sort's whims.
        distances.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.row < $1.row }

        var outcomes: [LocationResult.Outcome] = []
        outcomes.reserveCapacity(maximumK)
        var sumX = 0.0, sumY = 0.0
        var floorVotes: [Int: Int] = [:]
        var neighbours: [Spot] = []
        for k in 1...maximumK {
            if k <= distances.count {
                let spot = spots[spotOfReference[distances[k - 1].row]]
                neighbours.append(spot)
                sumX += spot.x
                sumY += spot.y
                floorVotes[spot.floor, default: 0] += 1
            }
            outcomes.append(.located(position(of: neighbours, sumX: sumX, sumY: sumY, floorVotes: floorVotes)))
        }
        return outcomes
    }

    /// The answer with the `k` nearest references.
    public func locate(_ fingerprint: Fingerprint, k: Int) -> LocationResult.Outcome {
        outcomes(for: fingerprint, upTo: max(1, k)).last!
    }

    /// The mean of `neighbours` (nearest first), on the floor most of them are on (ties go to the floor of
    /// the nearest among the tied), with their spread as the accuracy radius.
    private func position(of neighbours: [Spot], sumX: Double, sumY: Double, floorVotes: [Int: Int]) -> Position {
        let most = floorVotes.values.max()!
        let floor = neighbours.first { floorVotes[$0.floor] == most }!.floor
        let x = sumX / Double(neighbours.count), y = sumY / Double(neighbours.count)
        var spread = 0.0
        for spot in neighbours {
            spread += (spot.x - x) * (spot.x - x) + (spot.y - y) * (spot.y - y)
        }
        let nearest = spots.nearest(toX: x, y: y, floor: floor) ?? neighbours[0]
        return Position(
            x: x, y: y, floor: floor, accuracy: (spread / Double(neighbours.count)).squareRoot(), spot: nearest.name,
            zone: nearest.zone)
    }

    /// Evaluates a test walk for every k in `neighbourCounts` in one pass and picks the k with the lowest
    /// mean error (the smallest such k on a tie).
    ///
    /// The queries are exactly ``Evaluator/evaluate(_:windowSize:in:)``'s: samples with no beacon are
    /// skipped and counted, the rest grouped into windows of `windowSize` consecutive samples of one
    /// device at one place, each summarised by `builder` (mean RSSI per beacon over the window); a window
    /// with no usable reading counts as unknown.
    ///
    /// Choosing k on the test walk flatters the baseline, never the matcher: a fair yardstick.
    public func evaluate(
        _ test: [LabelledSample], windowSize: Int, builder: FingerprintBuilder, neighbourCounts: ClosedRange<Int> = 1...20
    ) -> NearestNeighboursEvaluation {
        let heard = test.filter { !$0.sample.readings.isEmpty }
        let windows = SampleWindows.windows(of: heard, size: windowSize)
        return evaluate(
            queries: windows.map { ($0.map(\.sample), $0[0].truth) }, emptySamples: test.count - heard.count, builder: builder,
            neighbourCounts: neighbourCounts)
    }

    /// The smoothed baseline a tracker must beat: every sample of `test`, in order, answered from the
    /// samples of its device's last `window` seconds (``RecentSamples``: at most `maximumSamples`,
    /// forgotten after `silenceReset` seconds of silence), as ``Evaluator/replay(_:tracking:in:)`` asks the
    /// tracker, with the k of `neighbourCounts` of the lowest mean error (chosen on the walk, which flatters
    /// the baseline). A sample whose window holds no usable reading is `unknown`, as the tracker answers it.
    public func replay(
        _ test: [LabelledSample], window: Double, maximumSamples: Int, silenceReset: Double, builder: FingerprintBuilder,
        neighbourCounts: ClosedRange<Int> = 1...20
    ) -> NearestNeighboursEvaluation {
        var recent: [String: RecentSamples] = [:]
        var queries: [(samples: [Sample], truth: GroundTruth)] = []
        queries.reserveCapacity(test.count)
        for labelled in test {
            let device = labelled.sample.device
            var samples = recent[device] ?? RecentSamples(window: window, maximumSamples: maximumSamples, silenceReset: silenceReset)
            samples.add(labelled.sample)
            recent[device] = samples
            queries.append((samples.samples, labelled.truth))
        }
        return evaluate(
            queries: queries, emptySamples: test.count { $0.sample.readings.isEmpty }, builder: builder, neighbourCounts: neighbourCounts)
    }

    /// Every query (samples to summarise, and the truth) answered for every k, the best k kept.
    private func evaluate(
        queries: [(samples: [Sample], truth: GroundTruth)], emptySamples: Int, builder: FingerprintBuilder,
        neighbourCounts: ClosedRange<Int>
    ) -> NearestNeighboursEvaluation {
        let counts = max(1, neighbourCounts.lowerBound)...max(1, neighbourCounts.upperBound)
        var tallies = [Tally](repeating: Tally(spots: spots), count: counts.upperBound)
        for query in queries {
            let fingerprint: Fingerprint
            do {
                fingerprint = try builder.fingerprint(of: query.samples)
            } catch {
                for k in counts { tallies[k - 1].unusable() }
                continue
            }
            let outcomes = outcomes(for: fingerprint, upTo: counts.upperBound)
            for k in counts { tallies[k - 1].add(outcomes[k - 1], truth: query.truth) }
        }
        let reports = counts.map { (k: $0, report: tallies[$0 - 1].report(emptySamples: emptySamples)) }
        let best = reports.min { lhs, rhs in
            let l = lhs.report.errors?.mean ?? .infinity, r = rhs.report.errors?.mean ?? .infinity
            return l != r ? l < r : lhs.k < rhs.k
        }!
        return NearestNeighboursEvaluation(
            bestK: best.k, report: best.report,
            byK: reports.map { NearestNeighboursEvaluation.Row(k: $0.k, meanError: $0.report.errors?.mean) },
            errors: tallies[best.k - 1].queryErrors)
    }
}

/// What ``RSSINearestNeighbours/evaluate(_:windowSize:builder:neighbourCounts:)`` found.
public struct NearestNeighboursEvaluation: Hashable, Sendable {
    /// One k's mean error.
    public struct Row: Hashable, Sendable, Codable {
        public var k: Int
        /// Mean error of the located queries; nil when none was located.
        public var meanError: Double?

        public init(k: Int, meanError: Double?) {
            self.k = k
            self.meanError = meanError
        }
    }

    /// The k with the lowest mean error.
    public var bestK: Int
    /// The evaluation at ``bestK``.
    public var report: EvaluationReport
    /// Every k tried, ascending.
    public var byK: [Row]
    /// The error of every query at ``bestK``, in query order (nil: unknown), for a ``PairedComparison``.
    public var errors: [Double?]

    public init(bestK: Int, report: EvaluationReport, byK: [Row], errors: [Double?]) {
        self.bestK = bestK
        self.report = report
        self.byK = byK
        self.errors = errors
    }
}
