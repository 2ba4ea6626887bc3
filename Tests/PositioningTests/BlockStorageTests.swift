@_spi(Profiling) import Positioning
import Testing
import TestSupport

/// The two ways a radio map stores its blocks (``BlockStorage``): a survey whose fingerprints hear a few
/// of many beacons is stored sparse, and every kernel must then give what it gives on the dense layout.
@Suite("Sparse and dense block storage")
struct BlockStorageTests {
    /// A venue along a corridor: 64 beacons, 40 spots, 8 fingerprints each; a fingerprint hears the 10
    /// beacons nearest its spot (now and then missing one), so a block hears about 12 of the 64.
    static func corridor(using generator: inout SeededGenerator) -> (spots: [Spot], references: [(spot: Int, fingerprint: Fingerprint)]) {
        let spots = (0..<40).map { Spot(name: "s\($0)", x: Double($0), y: 0, floor: 0) }
        let references = (0..<320).map { row in
            (spot: row / 8, fingerprint: fingerprint(near: Double(row / 8), using: &generator))
        }
        return (spots, references)
    }

    /// What a phone at `position` along the corridor hears.
    static func fingerprint(near position: Double, using generator: inout SeededGenerator) -> Fingerprint {
        let first = Int(position * 1.4)
        var readings: [UInt16: Double] = [:]
        for minor in first..<min(64, first + 10) where generator.unit() < 0.9 {
            readings[UInt16(minor)] = -50 - 4 * abs(Double(minor) / 1.4 - position) - 8 * generator.unit()
        }
        if readings.isEmpty { readings[UInt16(min(63, first))] = -80 }
        return Fixtures.fingerprint(rssi: readings)
    }

    @Test("A survey hearing a few of many beacons is stored sparse, and lays out the same matrices")
    func sparseLayout() throws {
        // Given a corridor survey, laid out as the map chooses and forced dense
        var generator = SeededGenerator(seed: 41)
        let (spots, references) = Self.corridor(using: &generator)
        let chosen = try RadioMap(spots: spots, fingerprints: references)
        let dense = try RadioMap(spots: spots, fingerprints: references, representation: .relativePower, zoneAreas: [], layout: .dense)
        // Then the map chose the sparse layout, which keeps a fraction of the dense one's bytes
        #expect(chosen.isBlockSparse)
        #expect(!dense.isBlockSparse)
        #expect(chosen.compactBytes * 3 < dense.compactBytes, "\(chosen.compactBytes) bytes sparse, \(dense.compactBytes) dense")
        // And the dense matrix it expands to, the BLAS matrix and the row sums are the dense layout's, bit for bit
        #expect(chosen.compact == dense.compact)
        #expect(chosen.matrix == dense.matrix)
        #expect(chosen.presentCount == dense.presentCount)
        #expect(chosen.valueSum == dense.valueSum)
        // And every candidate search selects the same blocks
        for position in stride(from: 0.0, through: 39, by: 1.5) {
            let query = chosen.query(for: Self.fingerprint(near: position, using: &generator))
            #expect(chosen.candidateBlocks(for: query) == dense.candidateBlocks(for: query))
            #expect(
                chosen.strongestBeaconBlocks(for: query, queryBeacons: 4, referenceRank: 4)
                    == dense.strongestBeaconBlocks(for: query, queryBeacons: 4, referenceRank: 4))
        }
    }

    @Test("A survey hearing most beacons everywhere stays dense")
    func denseLayout() throws {
        // Given a hall: every fingerprint hears 8 to 12 of 12 beacons
        var generator = SeededGenerator(seed: 7)
        let spots = (0..<10).map { Spot(name: "s\($0)", x: Double($0), y: 0, floor: 0) }
        let references = (0..<80).map { row in
            var readings: [UInt16: Double] = [:]
            for minor in 0..<12 where minor < 8 || generator.unit() < 0.5 { readings[UInt16(minor)] = -90 + 40 * generator.unit() }
            return (spot: row / 8, fingerprint: Fixtures.fingerprint(rssi: readings))
        }
        // When the map is laid out
        let map = try RadioMap(spots: spots, fingerprints: references)
        // Then its blocks are dense: the column lists would cost more than the few absent values they save
        #expect(!map.isBlockSparse)
        #expect(map.compactBytes == map.blockCount * map.beaconCount * RadioMap.lanes * MemoryLayout<Float>.stride)
    }

    @Test("Every metric gives the same distances and answers on the sparse layout as on the dense one", arguments: MetricTests.metrics.indices)
    func sameDistances(metricIndex: Int) throws {
        // Given the corridor laid out both ways in the metric's representation, and scans along it
        let metric = MetricTests.metrics[metricIndex]
        var generator = SeededGenerator(seed: 43)
        let (spots, references) = Self.corridor(using: &generator)
        let sparse = try RadioMap(
            spots: spots, fingerprints: references, representation: metric.representation, zoneAreas: [], layout: .sparse)
        let dense = try RadioMap(
            spots: spots, fingerprints: references, representation: metric.representation, zoneAreas: [], layout: .dense)
        let scans = stride(from: 0.25, through: 39, by: 0.8).map { Self.fingerprint(near: $0, using: &generator) }
        // A union metric (Sørensen) completes its sum differently on the sparse layout: the same to rounding.
        let tolerance: Float = metric is SorensenMetric ? 1e-5 : 0
        for scan in scans {
            // When the query is compared with every block of both maps
            let query = sparse.query(for: scan)
            var fromSparse = [Float](repeating: 0, count: sparse.count)
            var fromDense = fromSparse
            fromSparse.withUnsafeMutableBufferPointer { metric.distances(from: query, in: sparse, into: $0) }
            fromDense.withUnsafeMutableBufferPointer { metric.distances(from: query, in: dense, into: $0) }
            // Then the distances agree: bit for bit, but for the union metric's rounding
            for row in 0..<sparse.count {
                let (a, b) = (fromSparse[row], fromDense[row])
                #expect(a == b || abs(a - b) <= tolerance * max(1, abs(b)), "row \(row): \(a) sparse, \(b) dense")
            }
            // And a locator, searching by the beacon index, answers the same
            let locator = Locator(metric: metric, estimator: WeightedNearestSpots(neighbourCount: 4), candidateSearch: .beaconIndex)
            let (onSparse, onDense) = (locator.locate(query, in: sparse), locator.locate(query, in: dense))
            if tolerance == 0 {
                #expect(onSparse == onDense)
            } else {
                #expect(onSparse.candidates.first?.spotIndex == onDense.candidates.first?.spotIndex)
            }
        }
        // And a batch equals the scans one by one on the sparse map
        let queries = scans.map { sparse.query(for: $0) }
        var batch = [Float](repeating: 0, count: queries.count * sparse.count)
        batch.withUnsafeMutableBufferPointer { metric.distances(from: queries, in: sparse, into: $0) }
        for (index, query) in queries.enumerated() {
            var single = [Float](repeating: 0, count: sparse.count)
            single.withUnsafeMutableBufferPointer { metric.distances(from: query, in: sparse, into: $0) }
            for row in 0..<sparse.count {
                let (a, b) = (batch[index * sparse.count + row], single[row])
                #expect(a == b || abs(a - b) <= 1e-5 * max(1, abs(b)), "query \(index), row \(row)")
            }
        }
    }
}
