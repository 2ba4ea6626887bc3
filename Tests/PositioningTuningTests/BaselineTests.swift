import Positioning
import PositioningTuning
import Testing
import TestSupport

@Suite("The k-NN baseline on raw RSSI")
struct BaselineTests {
    static let builder = FingerprintBuilder()

    /// A fingerprint whose mean RSSIs are `readings` (one scan).
    static func reference(_ readings: [UInt16: Double]) -> Fingerprint {
        try! builder.fingerprint(of: [Fixtures.sample(readings)])
    }

    /// Four spots, the last upstairs, one reference each; beacon 2 is not heard at c, beacon 1 not at d.
    static let spots = [
        Spot(name: "a", x: 0, y: 0, floor: 0), Spot(name: "b", x: 4, y: 0, floor: 0),
        Spot(name: "c", x: 0, y: 4, floor: 0), Spot(name: "d", x: 10, y: 10, floor: 1),
    ]
    static let references = [
        (spot: 0, fingerprint: reference([1: -50, 2: -80])), (spot: 1, fingerprint: reference([1: -60, 2: -70])),
        (spot: 2, fingerprint: reference([1: -80])), (spot: 3, fingerprint: reference([2: -50])),
    ]

    @Test("positions are the plain mean of the k nearest references, missing beacons at -105 dBm")
    func handComputed() throws {
        // Given the four references
        let knn = try RSSINearestNeighbours(spots: Self.spots, fingerprints: Self.references)
        #expect(knn.count == 4)
        #expect(knn.beacons == [Fixtures.beacon(1), Fixtures.beacon(2)])
        // When a scan hears beacon 1 at -55 and beacon 2 at -75: squared distances 50 (a), 50 (b),
        // 25² + 30² = 1525 (c, whose beacon 2 counts as -105), 50² + 25² = 3125 (d)
        let outcomes = knn.outcomes(for: Self.reference([1: -55, 2: -75]), upTo: 5)
        let positions = try outcomes.map { outcome in
            guard case .located(let position) = outcome else { throw Unlocated() }
            return position
        }
        // Then k = 1 is a (the tie with b goes to the first reference), k = 2 halfway to b, k = 3 the
        // centroid of a, b and c, k = 4 the mean of all four on the floor of the majority
        #expect(positions.map(\.x) == [0, 2, 4.0 / 3, 3.5, 3.5])
        #expect(positions.map(\.y) == [0, 0, 4.0 / 3, 3.5, 3.5])
        #expect(positions.map(\.floor) == [0, 0, 0, 0, 0])
        #expect(positions[0].spot == "a")
        #expect(positions[0].accuracy == 0)
        #expect(abs(positions[1].accuracy - 2) < 1e-12)
        // And k = 5 with four references uses them all
        #expect(positions[4] == positions[3])
        #expect(knn.locate(Self.reference([1: -55, 2: -75]), k: 2) == outcomes[1])
    }

    @Test("the floor is the majority's; a tie goes to the nearest reference's floor")
    func floorVote() throws {
        let knn = try RSSINearestNeighbours(spots: Self.spots, fingerprints: Self.references)
        // Given a scan that hears only beacon 2 at -50: d (0), then b (45² + 20²), c, a
        let outcomes = knn.outcomes(for: Self.reference([2: -50]), upTo: 3)
        // Then k = 1 is upstairs at d; k = 2 ties one floor each, and d is nearer; k = 3 is downstairs
        guard case .located(let first) = outcomes[0], case .located(let second) = outcomes[1],
              case .located(let third) = outcomes[2] else { Issue.record("not located"); return }
        #expect(first.floor == 1 && first.x == 10)
        #expect(second.floor == 1 && second.x == 7 && second.y == 5)
        #expect(third.floor == 0)
    }

    @Test("a scan with no surveyed beacon is unknown, not a guess")
    func unknownBeacons() throws {
        let knn = try RSSINearestNeighbours(spots: Self.spots, fingerprints: Self.references)
        #expect(knn.locate(Self.reference([9: -60]), k: 3) == .unknown(.noKnownBeacon))
        #expect(throws: RadioMapError.spotOutOfRange(row: 0)) {
            try RSSINearestNeighbours(spots: [], fingerprints: Self.references)
        }
    }

    @Test("evaluating every k picks the best one and uses the matcher's windows")
    func kSelection() throws {
        // Given a walk standing at (2, 0), halfway between a and b, heard alternately like a and like b,
        // with one empty scan
        let knn = try RSSINearestNeighbours(spots: Self.spots, fingerprints: Self.references)
        let truth = GroundTruth(spot: "between", x: 2, y: 0, floor: 0)
        let walk = [
            Fixtures.sample([1: -50, 2: -80], time: 0), Fixtures.sample([1: -60, 2: -70], time: 1),
            Fixtures.sample([:], time: 2),
            Fixtures.sample([1: -50, 2: -80], time: 3), Fixtures.sample([1: -60, 2: -70], time: 4),
        ].map { LabelledSample(sample: $0, truth: truth) }
        // When evaluated one scan at a time for k = 1...4
        let single = knn.evaluate(walk, windowSize: 1, builder: Self.builder, neighbourCounts: 1...4)
        // Then k = 2 (a and b, whose mean is the truth) wins with no error; k = 1 is 2 m off, k = 3 the
        // centroid of a, b and c
        #expect(single.bestK == 2)
        #expect(single.byK.map(\.k) == [1, 2, 3, 4])
        #expect(single.byK[0].meanError == 2)
        #expect(single.byK[1].meanError == 0)
        #expect(try #require(single.byK[2].meanError) > 0)
        #expect(single.report.errors?.mean == 0)
        #expect(single.report.queries == 4)
        #expect(single.report.emptySamples == 1)
        // And with windows of 2 the two scans are averaged per beacon into one query per window, as the
        // matcher's evaluation groups them
        let windowed = knn.evaluate(walk, windowSize: 2, builder: Self.builder, neighbourCounts: 1...4)
        let map = try RadioMap(spots: Self.spots, fingerprints: Self.references)
        let matcher = Evaluator(
            builder: Self.builder, locator: Locator(metric: ManhattanMetric(), estimator: WeightedNearestSpots())
        ).evaluate(walk, windowSize: 2, in: map)
        #expect(windowed.report.queries == matcher.queries)
        #expect(windowed.report.emptySamples == matcher.emptySamples)
        #expect(windowed.report.queries == 2)
        #expect(windowed.byK[0].meanError == 2, "the mean (-55, -75) is as near a as b; a comes first")
        #expect(windowed.bestK == 2)
    }

    @Test("the paired comparison counts one-sided unknowns apart and divides over the queries both located")
    func pairedComparison() throws {
        // Given five queries: three both located, one only the matcher, one only the baseline
        let matcher: [Double?] = [1, 2, 3, 4, nil]
        let baseline: [Double?] = [2, 4, 6, nil, 0.5]
        // When they are paired
        let paired = PairedComparison(matcher: matcher, baseline: baseline)
        // Then the baseline's easy query the matcher missed, and the matcher's extra one, stay out of the ratio
        #expect(paired.queries == 5)
        #expect(paired.bothLocated == 3)
        #expect(paired.onlyMatcherLocated == 1)
        #expect(paired.onlyBaselineLocated == 1)
        #expect(paired.neitherLocated == 0)
        #expect(paired.matcher?.mean == 2)
        #expect(paired.baseline?.mean == 4)
        #expect(paired.ratio?.mean == 0.5)
        // And with nothing both located there is no ratio
        #expect(PairedComparison(matcher: [1, nil], baseline: [nil, 1]).ratio == nil)
    }

    @Test("the smoothed baseline answers every sample from its device's trailing window")
    func trailingWindow() throws {
        // Given a phone standing at b, heard one scan a second alternately like a (-50, -80) and between
        // (-70, -60), whose mean (-60, -70) is b's reference; and a second phone at a, heard like a at the
        // same moments
        let knn = try RSSINearestNeighbours(spots: Self.spots, fingerprints: Self.references)
        let atB = GroundTruth(spot: "b", x: 4, y: 0, floor: 0), atA = GroundTruth(spot: "a", x: 0, y: 0, floor: 0)
        let walk = (0..<4).flatMap { second in
            [
                LabelledSample(
                    sample: Fixtures.sample(second.isMultiple(of: 2) ? [1: -50, 2: -80] : [1: -70, 2: -60], time: Double(second)),
                    truth: atB),
                LabelledSample(sample: Fixtures.sample([1: -50, 2: -80], time: Double(second), device: "other"), truth: atA),
            ]
        }
        // When each sample is answered by 1-NN from its device's last 1.5 s
        let replay = knn.replay(walk, window: 1.5, maximumSamples: 10, silenceReset: 10, builder: Self.builder, neighbourCounts: 1...1)
        // Then every sample is a query; the phone's first scan stands alone and looks like a (4 m off), each
        // later one is averaged with the scan before into b's reference; the other phone's scans are never
        // mixed in (they would pull the second phone towards b)
        #expect(replay.report.queries == 8)
        #expect(replay.errors == [4, 0, 0, 0, 0, 0, 0, 0])
        #expect(replay.report.errors?.mean == 0.5)
        // And one scan at a time the phone's third scan is 4 m off again
        let single = knn.evaluate(walk, windowSize: 1, builder: Self.builder, neighbourCounts: 1...1)
        #expect(single.errors == [4, 0, 0, 0, 4, 0, 0, 0])
    }

    struct Unlocated: Error {}
}
