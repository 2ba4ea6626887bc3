import Positioning
import PositioningTuning
import Testing
import TestSupport

@Suite("dB-offset metric and radio maps in dB")
struct DecibelMetricTests {
    static let spot = Spot(name: "a", x: 0, y: 0, floor: 0)

    /// Bulk distances from `query` to each of `references` (in order), through a map in the metric's
    /// representation. A last row hears the query's beacons, so that the map has a column for each of
    /// them (a beacon the survey never heard takes no part in matching); its distance is dropped.
    static func bulk(_ metric: DecibelOffsetMetric, _ query: Fingerprint, _ references: [Fingerprint]) throws -> [Float] {
        let map = try RadioMap(
            spots: [spot], fingerprints: (references + [query]).map { (0, $0) }, representation: metric.representation)
        var out = [Float](repeating: -1, count: map.count)
        out.withUnsafeMutableBufferPointer { metric.distances(from: map.query(for: query), in: map, into: $0) }
        return Array(out.dropLast())
    }

    /// Sparse and bulk distance of one pair; both must exist.
    static func both(_ metric: DecibelOffsetMetric, _ query: Fingerprint, _ reference: Fingerprint) throws -> (sparse: Float, bulk: Float) {
        (try #require(metric.distance(query, reference)), try bulk(metric, query, [reference])[0])
    }

    static let metrics: [DecibelOffsetMetric] = [
        DecibelOffsetMetric(),
        DecibelOffsetMetric(offsetShrinkage: nil),
        DecibelOffsetMetric(penalty: AbsencePenalty(queryOnly: 0.5, referenceOnly: 8), offsetShrinkage: 0.5),
        DecibelOffsetMetric(floor: -80, penalty: 3.0, offsetShrinkage: 4),
        DecibelOffsetMetric(penalty: 0.0, offsetShrinkage: 25),
    ]

    @Test("a worked example: spread after the offset, one-sided beacons by level, per union beacon")
    func workedExample() throws {
        // Given a query at -60, -70, -80 dBm on beacons 1, 2, 3 and a reference at -75, -81, -90 on 2, 3, 4
        let query = Fixtures.fingerprint(rssi: [1: -60, 2: -70, 3: -80])
        let reference = Fixtures.fingerprint(rssi: [2: -75, 3: -81, 4: -90])
        // (levels above -100: query 40, 30, 20; reference 25, 19, 10; on the common beacons e = (5, 1),
        // Σe² = 26, Σe = 6; query-only beacon 1 at 40, reference-only beacon 4 at 10; 4 beacons in all)
        let cases: [(metric: DecibelOffsetMetric, expected: Float)] = [
            // λ = 0: spread 26 − 36/2 = 8; penalty 5·40 + 2·10 = 220
            (DecibelOffsetMetric(), (8 + 220) / 4),
            // λ = 1: spread 26 − 36/3 = 14
            (DecibelOffsetMetric(offsetShrinkage: 1), (14 + 220) / 4),
            // no offset removed: spread 26
            (DecibelOffsetMetric(offsetShrinkage: nil), (26 + 220) / 4),
            // no penalty: the spread alone
            (DecibelOffsetMetric(penalty: 0.0), 8.0 / 4),
            // asymmetric penalty: 1·40 + 10·10
            (DecibelOffsetMetric(penalty: AbsencePenalty(queryOnly: 1, referenceOnly: 10)), (8 + 140) / 4),
        ]
        for (metric, expected) in cases {
            // When the distance is computed both ways
            let (sparse, bulk) = try Self.both(metric, query, reference)
            // Then both give the hand-computed value
            #expect(abs(sparse - expected) < 1e-4, "\(metric): \(sparse) vs \(expected)")
            #expect(abs(bulk - expected) < 1e-4, "\(metric): \(bulk) vs \(expected)")
        }
    }

    @Test("bulk distances agree with the plain definition on random fingerprints", arguments: metrics.indices)
    func bulkAgreesWithSparse(index: Int) throws {
        let metric = Self.metrics[index]
        var generator = SeededGenerator(seed: 7 &+ UInt64(index))
        for trial in 0..<4 {
            // Given a random map of 300 fingerprints (not a multiple of the 8-row block) over up to 24
            // beacons, some readings at or below the floor
            let beaconCount = 4 + trial * 6
            let spots = (0..<30).map { Spot(name: "s\($0)", x: Double($0), y: 0, floor: 0) }
            let references = (0..<300).map { row in
                (spot: row / 10, fingerprint: randomFingerprint(beacons: beaconCount, using: &generator))
            }
            let map = try RadioMap(spots: spots, fingerprints: references, representation: metric.representation)
            for _ in 0..<10 {
                let query = randomFingerprint(beacons: beaconCount + 2, using: &generator)
                // When distances are computed in bulk
                var bulk = [Float](repeating: -1, count: map.count)
                bulk.withUnsafeMutableBufferPointer { metric.distances(from: map.query(for: query), in: map, into: $0) }
                // Then every row matches the plain definition on the query's beacons the map knows
                let known = Fingerprint(entries: query.entries.filter { map.column(of: $0.key) != nil }, sampleCount: 1)
                for row in 0..<map.count {
                    if let expected = metric.distance(known, references[row].fingerprint) {
                        #expect(abs(bulk[row] - expected) <= 1e-4 * max(1, expected), "row \(row): \(bulk[row]) vs \(expected)")
                    } else {
                        #expect(bulk[row] == .infinity, "row \(row)")
                    }
                }
            }
        }
    }

    @Test("a phone's constant gain cancels with λ = 0 when both sides hear the same beacons")
    func constantOffsetCancels() throws {
        // Given a reference and a query over the same four beacons, all above the floor
        let reference = Fixtures.fingerprint(rssi: [1: -55, 2: -70, 3: -82, 4: -91])
        let readings: [UInt16: Double] = [1: -58, 2: -66, 3: -85, 4: -90]
        let query = Fixtures.fingerprint(rssi: readings)
        let aligned = DecibelOffsetMetric()
        let (sparse, bulk) = try Self.both(aligned, query, reference)
        #expect(sparse > 1, "the query differs from the reference beyond an offset")
        for gain in [-8.0, -4, 3, 8, 15] {
            // When a phone reads every beacon `gain` dB higher
            let shifted = Fixtures.fingerprint(rssi: readings.mapValues { $0 + gain })
            // Then the distance with λ = 0 does not change, sparse or bulk
            let (shiftedSparse, shiftedBulk) = try Self.both(aligned, shifted, reference)
            #expect(abs(shiftedSparse - sparse) <= 1e-4 * sparse, "gain \(gain)")
            #expect(abs(shiftedBulk - bulk) <= 1e-4 * bulk, "gain \(gain)")
            // And with no offset removed the gain costs, with a partial removal (λ = 2) less so
            let none = try Self.both(DecibelOffsetMetric(offsetShrinkage: nil), shifted, reference)
            let partial = try Self.both(DecibelOffsetMetric(offsetShrinkage: 2), shifted, reference)
            #expect(none.sparse > partial.sparse && partial.sparse > shiftedSparse, "gain \(gain)")
            #expect(none.bulk > partial.bulk && partial.bulk > shiftedBulk, "gain \(gain)")
        }
        // And a query that is the reference plus a gain is at distance 0
        let louder = Fixtures.fingerprint(rssi: [1: -49, 2: -64, 3: -76, 4: -85])
        let (zeroSparse, zeroBulk) = try Self.both(aligned, louder, reference)
        #expect(abs(zeroSparse) < 1e-4)
        #expect(abs(zeroBulk) < 1e-4)
    }

    @Test("a loud one-sided beacon costs more than a weak one, on either side")
    func absenceScaledByLoudness() throws {
        let metric = DecibelOffsetMetric()
        let common: [UInt16: Double] = [1: -60, 2: -70]
        let reference = Fixtures.fingerprint(rssi: common)
        // Given queries hearing a third beacon loud (-50 dBm, level 50), weak (-98, level 2) or below the floor
        let loud = Fixtures.fingerprint(rssi: common.merging([3: -50]) { $1 })
        let weak = Fixtures.fingerprint(rssi: common.merging([3: -98]) { $1 })
        let belowFloor = Fixtures.fingerprint(rssi: common.merging([3: -104]) { $1 })
        // When they are compared with a reference that does not hear it
        let distances = try Self.bulk(metric, loud, [reference]) + Self.bulk(metric, weak, [reference])
            + Self.bulk(metric, belowFloor, [reference])
        // Then the query-only penalty is 5 per dB of level, over 3 union beacons
        #expect(abs(distances[0] - 5 * 50 / 3) < 1e-4)
        #expect(abs(distances[1] - 5 * 2 / 3) < 1e-4)
        #expect(distances[2] == 0, "a beacon at the noise floor is no evidence")
        #expect(try #require(metric.distance(loud, reference)) > #require(metric.distance(weak, reference)))
        // And a reference hearing the third beacon that the query misses costs 2 per dB of its level
        let fromReferences = try Self.bulk(metric, reference, [loud, weak])
        #expect(abs(fromReferences[0] - 2 * 50 / 3) < 1e-4)
        #expect(abs(fromReferences[1] - 2 * 2 / 3) < 1e-4)
        #expect(abs(try #require(metric.distance(reference, loud)) - fromReferences[0]) < 1e-4)
    }

    @Test("no common beacon gives no distance, also in a block whose other rows match", arguments: metrics.indices)
    func noCommonBeacon(index: Int) throws {
        let metric = Self.metrics[index]
        // Given a map whose first row shares no beacon with the query and whose second row does
        let query = Fixtures.fingerprint(rssi: [1: -60, 2: -70])
        let foreign = Fixtures.fingerprint(rssi: [3: -60])
        let sharing = Fixtures.fingerprint(rssi: [2: -72, 3: -60])
        // Then the plain definition has no distance and bulk says infinity, for that row only
        #expect(metric.distance(query, foreign) == nil)
        let distances = try Self.bulk(metric, query, [foreign, sharing])
        #expect(distances[0] == .infinity)
        #expect(distances[1].isFinite)
    }

    @Test("a map in dB holds each beacon's level above the floor; a reading below it is heard at 0")
    func decibelLayout() throws {
        // Given a fingerprint at -60 dBm and -104 dBm (below the floor) laid out in dB above -100
        let map = try RadioMap(
            spots: [Self.spot], fingerprints: [(0, Fixtures.fingerprint(rssi: [1: -60, 3: -104]))],
            representation: .decibels(floor: -100))
        // Then the compact matrix holds 40 and 0 (not the absent marker), and the sums count both
        #expect(map.representation == .decibels(floor: -100))
        #expect(map.compact == [40, -1, -1, -1, -1, -1, -1, -1, 0, -1, -1, -1, -1, -1, -1, -1])
        #expect(map.presentCount == [2, 0, 0, 0, 0, 0, 0, 0])
        #expect(map.valueSum == [40, 0, 0, 0, 0, 0, 0, 0])
        #expect(map.matrix == [1, 1, 40, 0, 1600, 0], "the BLAS layout follows the compact matrix")
        // And a query is laid out in the same representation
        let query = map.query(for: Fixtures.fingerprint(rssi: [1: -70.5, 3: -90, 9: -50]))
        #expect(query.values == [29.5, 10])
        #expect(query.squares == [29.5 * 29.5, 100])
        #expect(query.mask == [1, 1])
        #expect(query.valueSum == 39.5)
        #expect(query.unmappedBeacons == [Fixtures.beacon(9)])
    }

    @Test("a map in relative powers is laid out and matched exactly as before")
    func relativePowerUnchanged() throws {
        var generator = SeededGenerator(seed: 99)
        let spots = (0..<10).map { Spot(name: "s\($0)", x: Double($0), y: 0, floor: 0) }
        let references = (0..<100).map { (spot: $0 / 10, fingerprint: randomFingerprint(beacons: 12, using: &generator)) }
        // Given the same survey as a map built the old way and one built with `.relativePower` explicitly
        let old = try RadioMap(spots: spots, fingerprints: references)
        let explicit = try RadioMap(spots: spots, fingerprints: references, representation: .relativePower)
        #expect(old.representation == .relativePower)
        // Then the compact matrix holds each entry's relative power, bit for bit
        for (row, reference) in references.enumerated() {
            for (beacon, entry) in reference.fingerprint.entries {
                let column = try #require(explicit.column(of: beacon))
                let value = explicit.compact[(row / 8) * explicit.beaconCount * 8 + column * 8 + row % 8]
                #expect(value.bitPattern == entry.relativePower.bitPattern)
            }
        }
        #expect(explicit.compact == old.compact)
        #expect(explicit.presentCount == old.presentCount)
        // And a query holds relative powers, and every relative-power metric gives identical distances
        let fingerprint = randomFingerprint(beacons: 12, using: &generator)
        let query = explicit.query(for: fingerprint)
        for (beacon, entry) in fingerprint.entries {
            let column = try #require(explicit.column(of: beacon))
            #expect(query.values[column].bitPattern == entry.relativePower.bitPattern)
            #expect(query.squares[column].bitPattern == (entry.relativePower * entry.relativePower).bitPattern)
        }
        for metric in MetricTests.metrics where metric.representation == .relativePower {
            var before = [Float](repeating: 0, count: old.count), after = before
            before.withUnsafeMutableBufferPointer { metric.distances(from: old.query(for: fingerprint), in: old, into: $0) }
            after.withUnsafeMutableBufferPointer { metric.distances(from: query, in: explicit, into: $0) }
            #expect(before.map(\.bitPattern) == after.map(\.bitPattern), "\(metric)")
        }
    }

    @Test("the dB metric refuses a map in relative powers (a programmer error)")
    func refusesMismatchedMap() async {
        await #expect(processExitsWith: .failure) {
            let reference = Fixtures.fingerprint(rssi: [1: -60])
            let map = try! RadioMap(spots: [DecibelMetricTests.spot], fingerprints: [(0, reference)])
            var out = [Float](repeating: 0, count: 1)
            out.withUnsafeMutableBufferPointer { DecibelOffsetMetric().distances(from: map.query(for: reference), in: map, into: $0) }
        }
    }

    @Test("a phone reading every beacon 8 dB high still locates at its spot; cross-validation builds dB maps")
    func locatesThroughAGain() throws {
        // Given three spots on a line surveyed in dB
        let spots = [
            Spot(name: "west", x: 0, y: 0, floor: 0), Spot(name: "middle", x: 4, y: 0, floor: 0),
            Spot(name: "east", x: 8, y: 0, floor: 0),
        ]
        let survey: [(spot: Int, fingerprint: Fingerprint)] = [
            (0, Fixtures.fingerprint(rssi: [1: -55, 2: -72, 3: -88])),
            (1, Fixtures.fingerprint(rssi: [1: -70, 2: -58, 3: -71])),
            (2, Fixtures.fingerprint(rssi: [1: -89, 2: -73, 3: -56])),
        ]
        let metric = DecibelOffsetMetric()
        let map = try RadioMap(spots: spots, fingerprints: survey, representation: metric.representation)
        let locator = Locator(metric: metric, estimator: WeightedNearestSpots(neighbourCount: 1))
        // When a phone 8 dB hotter than the survey phone stands at the middle spot
        let result = locator.locate(Fixtures.fingerprint(rssi: [1: -61, 2: -49, 3: -64]), in: map)
        // Then it is located there
        #expect(result.position?.spot == "middle")
        // And leave-one-spot-out cross-validation runs with the dB metric (its maps follow the metric)
        let report = try Evaluator(builder: PositioningConfiguration().builder, locator: locator)
            .crossValidate(spots: spots, fingerprints: survey)
        #expect(report.queries == 3)
        #expect(report.located == 3)
    }

    /// Readings between -105 and -40 dBm on about half the beacons (at least one).
    private func randomFingerprint(beacons: Int, using generator: inout SeededGenerator) -> Fingerprint {
        var readings: [UInt16: Double] = [:]
        for minor in 0..<beacons where generator.unit() < 0.55 {
            readings[UInt16(minor)] = -105 + 65 * generator.unit()
        }
        if readings.isEmpty { readings[UInt16(generator.next() % UInt64(beacons))] = -70 }
        return Fixtures.fingerprint(rssi: readings)
    }
}
