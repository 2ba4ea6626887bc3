import Positioning
import Testing
import TestSupport

@Suite("Locator and estimator")
struct LocatorTests {
    /// Three spots on a line on floor 0 and one on floor 1, each with a distinct fingerprint.
    static func corridor() throws -> RadioMap {
        let spots = [
            Spot(name: "west", x: 0, y: 0, floor: 0, zone: "hall"),
            Spot(name: "middle", x: 4, y: 0, floor: 0, zone: "hall"),
            Spot(name: "east", x: 8, y: 0, floor: 0, zone: "bar"),
            Spot(name: "upstairs", x: 4, y: 0, floor: 1, zone: "gallery"),
        ]
        return try RadioMap(spots: spots, fingerprints: [
            (0, Fixtures.fingerprint([1: 1, 2: 0.5, 3: 0.1])),
            (0, Fixtures.fingerprint([1: 1, 2: 0.6])),
            (1, Fixtures.fingerprint([1: 0.6, 2: 1, 3: 0.6])),
            (2, Fixtures.fingerprint([1: 0.1, 2: 0.5, 3: 1])),
            (3, Fixtures.fingerprint([4: 1, 5: 0.8, 2: 0.2])),
        ])
    }

    let locator = Locator(metric: ManhattanMetric(penalty: 0.5), estimator: WeightedNearestSpots(neighbourCount: 1))

    @Test("an exact match locates at its spot with the spot's zone")
    func exactMatch() throws {
        let map = try Self.corridor()
        let result = locator.locate(Fixtures.fingerprint([1: 0.1, 2: 0.5, 3: 1]), in: map)
        let position = try #require(result.position)
        #expect(position.spot == "east")
        #expect(position.zone == "bar")
        #expect(position.x == 8)
        #expect(result.candidates.first?.distance == 0)
        #expect(result.matchedBeacons == 3)
    }

    @Test("the best fingerprint of a spot stands for the spot")
    func bestFingerprintPerSpot() throws {
        let map = try Self.corridor()
        let result = locator.locate(Fixtures.fingerprint([1: 1, 2: 0.6]), in: map)
        #expect(result.candidates.first?.spot.name == "west")
        #expect(result.candidates.first?.distance == 0)
        #expect(Set(result.candidates.map(\.spot.name)).count == result.candidates.count, "one candidate per spot")
    }

    @Test("no beacon known to the survey gives unknown, not a guess")
    func noKnownBeacon() throws {
        let result = locator.locate(Fixtures.fingerprint([77: 1]), in: try Self.corridor())
        #expect(result.outcome == .unknown(.noKnownBeacon))
        #expect(result.unmappedBeacons == [Fixtures.beacon(77)])
    }

    @Test("too few beacons and too far a match give unknown with the reason")
    func unknownReasons() throws {
        let map = try Self.corridor()
        let strict = Locator(
            metric: ManhattanMetric(penalty: 0.5), estimator: WeightedNearestSpots(), minimumBeacons: 2)
        #expect(strict.locate(Fixtures.fingerprint([1: 1]), in: map).outcome
            == .unknown(.tooFewBeacons(heard: 1, required: 2)))
        let picky = Locator(
            metric: ManhattanMetric(penalty: 0.5), estimator: WeightedNearestSpots(), maximumDistance: 0.1)
        let result = picky.locate(Fixtures.fingerprint([1: 0.2, 2: 0.2, 3: 0.2, 5: 1]), in: map)
        guard case .unknown(.tooFar(let distance, let threshold)) = result.outcome else {
            Issue.record("expected tooFar, got \(result.outcome)")
            return
        }
        #expect(distance > threshold)
        #expect(!result.candidates.isEmpty, "candidates are still listed for diagnosis")
    }

    @Test("weighted neighbours interpolate between spots")
    func interpolation() {
        // Given two candidates at x = 0 and x = 4, the first three times closer in signal space
        let estimator = WeightedNearestSpots(neighbourCount: 2, weighting: .inverseDistance(power: 1, epsilon: 0))
        let spots = [Spot(name: "a", x: 0, y: 0, floor: 0), Spot(name: "b", x: 4, y: 0, floor: 0)]
        let position = estimator.estimate(from: [
            SpotCandidate(spotIndex: 0, spot: spots[0], distance: 1),
            SpotCandidate(spotIndex: 1, spot: spots[1], distance: 3),
        ], spots: SpotGrid(spots: spots))
        // Then the estimate is a quarter of the way, with the spread as accuracy
        #expect(abs(position.x - 1) < 1e-9)
        #expect(position.spot == "a")
        #expect(abs(position.accuracy - (0.75 * 1 + 0.25 * 9).squareRoot()) < 1e-9)
    }

    @Test("the floor is voted by weight and only that floor's neighbours place the dot")
    func floorVote() {
        let estimator = WeightedNearestSpots(neighbourCount: 3, weighting: .uniform)
        let spots = [
            Spot(name: "up", x: 100, y: 100, floor: 1),
            Spot(name: "a", x: 0, y: 0, floor: 0),
            Spot(name: "b", x: 2, y: 0, floor: 0),
        ]
        let position = estimator.estimate(
            from: spots.enumerated().map { SpotCandidate(spotIndex: $0.offset, spot: $0.element, distance: 1) },
            spots: SpotGrid(spots: spots))
        #expect(position.floor == 0)
        #expect(position.x == 1)
    }

    @Test("a batch gives the same answers as one query at a time, with either kernel", arguments: [DenseKernel.simd, .blas])
    func batchEqualsSingle(kernel: DenseKernel) throws {
        let map = try Self.corridor()
        let locator = Locator(
            metric: PairwiseDifferenceMetric(penalty: AbsencePenalty(queryOnly: 0.4, referenceOnly: 0.2), kernel: kernel),
            aggregation: .meanOfBest(2), estimator: WeightedNearestSpots(neighbourCount: 2))
        let queries = [
            Fixtures.fingerprint([1: 1, 2: 0.5]), Fixtures.fingerprint([77: 1]), Fixtures.fingerprint([1: 0.1, 2: 0.5, 3: 1]),
            Fixtures.fingerprint([4: 1, 5: 0.7]),
        ].map { map.query(for: $0) }
        let batch = locator.locate(batch: queries, in: map)
        let single = queries.map { locator.locate($0, in: map) }
        #expect(batch.count == single.count)
        for (a, b) in zip(batch, single) {
            #expect(a.outcome == b.outcome)
            #expect(zip(a.candidates, b.candidates).allSatisfy { $0.spotIndex == $1.spotIndex && abs($0.distance - $1.distance) < 1e-5 })
        }
    }
}
