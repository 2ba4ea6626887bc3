import Positioning
import Testing
import TestSupport

@Suite("Metrics and the radio map")
struct MetricTests {
    static let metrics: [any FingerprintMetric] = [
        ManhattanMetric(penalty: 0.4),
        ManhattanMetric(penalty: AbsencePenalty(queryOnly: 0.6, referenceOnly: 0.2), normalization: .none),
        EuclideanMetric(penalty: 0.4),
        EuclideanMetric(penalty: 0.4, form: .root, kernel: .blas),
        EuclideanMetric(penalty: AbsencePenalty(queryOnly: 0.5, referenceOnly: 0.25), normalization: .none, form: .root),
        SorensenMetric(penalty: 0.4),
        SorensenMetric(),
        PairwiseDifferenceMetric(penalty: AbsencePenalty(queryOnly: 0.5, referenceOnly: 0.25)),
        PairwiseDifferenceMetric(penalty: 0.4, form: .root, kernel: .blas),
        PairwiseDifferenceMetric(penalty: AbsencePenalty(queryOnly: 0.4, referenceOnly: 0.2), kernel: .blas),
        PairwiseDifferenceMetric(penalty: 0.4, normalization: .none, form: .root),
        // dB metrics read maps built in their own representation (`metric.representation` below).
        DecibelOffsetMetric(),
        DecibelOffsetMetric(penalty: AbsencePenalty(queryOnly: 3, referenceOnly: 1), offsetShrinkage: nil),
        DecibelOffsetMetric(floor: -90, offsetShrinkage: 2),
    ]

    @Test("L1 on a worked example: common differences plus a penalty per one-sided beacon")
    func manhattanWorkedExample() throws {
        // Given a query hearing 1, 2, 3 and a reference hearing 2, 3, 4
        let query = Fixtures.fingerprint([1: 1, 2: 0.5, 3: 0.2])
        let reference = Fixtures.fingerprint([2: 1, 3: 0.4, 4: 0.3])
        // Then L1 is |0.5-1| + |0.2-0.4| + 2 one-sided beacons x 0.4
        let distance = try #require(ManhattanMetric(penalty: 0.4, normalization: .none).distance(query, reference))
        #expect(abs(distance - (0.5 + 0.2 + 0.8)) < 1e-6)
        // And per union beacon it is divided by the 4 beacons either side sees
        let averaged = try #require(ManhattanMetric(penalty: 0.4).distance(query, reference))
        #expect(abs(averaged - (0.5 + 0.2 + 0.8) / 4) < 1e-6)
        // And L2 adds squared differences and penalties (root form: their root)
        let squared = try #require(EuclideanMetric(penalty: 0.4, normalization: .none).distance(query, reference))
        #expect(abs(squared - (0.25 + 0.04 + 0.8)) < 1e-6)
        let root = try #require(EuclideanMetric(penalty: 0.4, normalization: .none, form: .root).distance(query, reference))
        #expect(abs(root - (0.25 + 0.04 + 2 * 0.16).squareRoot()) < 1e-6)
        // And the pairwise metric sees the differences e = (-0.5, -0.2) around their mean -0.35
        let pairwise = try #require(PairwiseDifferenceMetric(penalty: 0.4, normalization: .none).distance(query, reference))
        #expect(abs(pairwise - (0.0225 + 0.0225 + 0.8)) < 1e-6)
        // And asymmetric penalties charge query-only and reference-only beacons differently
        let asymmetric = ManhattanMetric(penalty: AbsencePenalty(queryOnly: 1, referenceOnly: 0.1), normalization: .none)
        #expect(abs(try #require(asymmetric.distance(query, reference)) - (0.7 + 1 + 0.1)) < 1e-6)
    }

    @Test("no common beacon means no distance, never a guess", arguments: metrics.indices)
    func noCommonBeacon(index: Int) throws {
        let metric = Self.metrics[index]
        let query = Fixtures.fingerprint([1: 1])
        let reference = Fixtures.fingerprint([2: 1])
        #expect(metric.distance(query, reference) == nil)
        let map = try RadioMap(
            spots: [Spot(name: "a", x: 0, y: 0, floor: 0)], fingerprints: [(0, reference)], representation: metric.representation)
        var out = [Float](repeating: 0, count: 1)
        out.withUnsafeMutableBufferPointer { metric.distances(from: map.query(for: query), in: map, into: $0) }
        #expect(out == [.infinity])
    }

    @Test("identical fingerprints are at distance 0 and distance grows with difference", arguments: metrics.indices)
    func identityAndMonotony(index: Int) throws {
        let metric = Self.metrics[index]
        let reference = Fixtures.fingerprint([1: 1, 2: 0.6, 3: 0.3])
        let same = try #require(metric.distance(reference, reference))
        let near = try #require(metric.distance(Fixtures.fingerprint([1: 1, 2: 0.5, 3: 0.3]), reference))
        let far = try #require(metric.distance(Fixtures.fingerprint([1: 1, 2: 0.1, 3: 0.9]), reference))
        let missing = try #require(metric.distance(Fixtures.fingerprint([1: 1, 2: 0.6]), reference))
        #expect(abs(same) < 1e-5)
        #expect(near > same)
        #expect(far > near)
        #expect(missing > same, "a beacon present on one side only costs something")
    }

    @Test("the dense (and BLAS) path agrees with the plain definition to a relative 1e-4 on random maps", arguments: metrics.indices)
    func denseAgreesWithReference(index: Int) throws {
        let metric = Self.metrics[index]
        var generator = SeededGenerator(seed: 42 &+ UInt64(index))
        for trial in 0..<5 {
            // Given a random map of 300 fingerprints over up to 24 beacons, with many gaps
            let beaconCount = 4 + trial * 5
            let spots = (0..<30).map { Spot(name: "s\($0)", x: Double($0), y: 0, floor: 0) }
            // (in spot order: the map keeps rows ordered by spot, so rows and references line up)
            let references = (0..<300).map { row in
                (spot: row / 10, fingerprint: randomFingerprint(beacons: beaconCount, using: &generator))
            }
            let map = try RadioMap(spots: spots, fingerprints: references, representation: metric.representation)
            for _ in 0..<10 {
                let query = randomFingerprint(beacons: beaconCount + 2, using: &generator)
                // When distances are computed in bulk
                var bulk = [Float](repeating: -1, count: map.count)
                bulk.withUnsafeMutableBufferPointer { metric.distances(from: map.query(for: query), in: map, into: $0) }
                // Then every row matches the plain definition (beacons unknown to the map are ignored
                // in bulk, so the plain definition sees the query restricted to the map's beacons)
                let known = Fingerprint(
                    entries: query.entries.filter { map.column(of: $0.key) != nil }, sampleCount: 1)
                for row in 0..<map.count {
                    let expected = metric.distance(known, references[row].fingerprint) ?? .infinity
                    if expected.isInfinite {
                        #expect(bulk[row].isInfinite, "row \(row)")
                    } else {
                        // Relative beyond 1: dB metrics give distances in dB², far above 1.
                        #expect(abs(bulk[row] - expected) <= 1e-4 * max(1, expected), "row \(row): \(bulk[row]) vs \(expected)")
                    }
                }
            }
        }
    }

    @Test("the radio map lays fingerprints out as [mask | value | value²] rows")
    func radioMapLayout() throws {
        let map = try RadioMap(
            spots: [Spot(name: "a", x: 0, y: 0, floor: 0)],
            fingerprints: [(0, Fixtures.fingerprint([1: 1, 3: 0.5]))])
        #expect(map.beacons == [Fixtures.beacon(1), Fixtures.beacon(3)])
        #expect(map.matrix == [1, 1, 1, 0.5, 1, 0.25])
        #expect(map.presentCount == [2, 0, 0, 0, 0, 0, 0, 0], "padded to a block of 8 rows")
        // And the compact matrix holds, beacon by beacon, the values of a block of 8 rows (-1 where absent)
        #expect(map.blockCount == 1)
        #expect(map.compact == [1, -1, -1, -1, -1, -1, -1, -1, 0.5, -1, -1, -1, -1, -1, -1, -1])
        let query = map.query(for: Fixtures.fingerprint([3: 1, 9: 0.2]))
        #expect(query.mask == [0, 1])
        #expect(query.unmappedBeacons == [Fixtures.beacon(9)])
    }

    @Test("a radio map refuses empty fingerprints and dangling spots")
    func radioMapErrors() {
        let spot = Spot(name: "a", x: 0, y: 0, floor: 0)
        #expect(throws: RadioMapError.emptyFingerprint(row: 0)) {
            try RadioMap(spots: [spot], fingerprints: [(0, Fingerprint(entries: [:], sampleCount: 1))])
        }
        #expect(throws: RadioMapError.spotOutOfRange(row: 0)) {
            try RadioMap(spots: [spot], fingerprints: [(3, Fixtures.fingerprint([1: 1]))])
        }
    }

    @Test("a radio map in decibels refuses more beacons than its 16-bit columns number, and says how many it heard")
    func tooManyBeaconsForLevels() throws {
        // Given two fingerprints that together hear every one of the 65,536 minors of one UUID and major
        let spot = Spot(name: "a", x: 0, y: 0, floor: 0)
        let halves = [UInt32(0)..<32_768, 32_768..<65_536].map { minors in
            Fixtures.fingerprint(rssi: Dictionary(uniqueKeysWithValues: minors.map { (UInt16($0), -70.0) }))
        }
        // When a map in decibels is built from them
        // Then it is refused with the count and the limit
        let error = #expect(throws: RadioMapError.self) {
            try RadioMap(spots: [spot], fingerprints: halves.map { (0, $0) }, representation: DecibelOffsetMetric().representation)
        }
        #expect(error == .tooManyBeacons(count: 65_536, limit: RadioMap.mostBeaconsInDecibels))
        #expect(error?.description.contains("65536 beacons") == true)
    }

    private func randomFingerprint(beacons: Int, using generator: inout SeededGenerator) -> Fingerprint {
        var powers: [UInt16: Float] = [:]
        for minor in 0..<beacons where generator.unit() < 0.55 {
            powers[UInt16(minor)] = Float(generator.unit())
        }
        if powers.isEmpty { powers[UInt16(generator.next() % UInt64(beacons))] = 1 }
        return Fixtures.fingerprint(powers)
    }
}
