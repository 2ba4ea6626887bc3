import Positioning
import Testing
import TestSupport

/// Ranking the rows and spots of a selection passes over whole blocks that cannot change the answer
/// (``Locator/nearestSpots(_:blocks:in:limit:)``, ``Locator/nearestRows(_:blocks:in:limit:)``). These
/// compare both with the plain definitions, computed here over every row with no block in sight, on
/// distances full of ties and rows that share no beacon, for selections with gaps inside spots and a
/// partly filled last block.
@Suite("Ranking rows and spots of a selection")
struct RankingTests {
    /// Spots of 1 to 13 fingerprints each, so spots start and end anywhere inside blocks of 8, and a row
    /// count that leaves the last block partly filled.
    static func map(seed: UInt64) throws -> RadioMap {
        var random = SeededGenerator(seed: seed)
        let spots = (0..<40).map { Spot(name: "s\($0)", x: Double($0), y: 0, floor: 0) }
        var fingerprints: [(spot: Int, fingerprint: Fingerprint)] = []
        for spot in spots.indices {
            for _ in 0..<Int.random(in: 1...13, using: &random) {
                fingerprints.append((spot, Fixtures.fingerprint([1: 0.5, UInt16(2 + spot % 5): 0.3])))
            }
        }
        if fingerprints.count % RadioMap.lanes == 0 { fingerprints.append((0, Fixtures.fingerprint([1: 0.4]))) }
        return try RadioMap(spots: spots, fingerprints: fingerprints)
    }

    /// Random runs of blocks, ascending and disjoint: gaps cut spots in two.
    static func selection(in map: RadioMap, using random: inout SeededGenerator) -> BlockSelection {
        var runs: [Range<Int>] = []
        var block = Int.random(in: 0...2, using: &random)
        while block < map.blockCount {
            let end = min(map.blockCount, block + Int.random(in: 1...4, using: &random))
            runs.append(block..<end)
            block = end + Int.random(in: 1...3, using: &random)
        }
        if Bool.random(using: &random), let last = runs.last, last.upperBound < map.blockCount {
            runs.append(map.blockCount - 1..<map.blockCount)
        }
        return BlockSelection(runs: runs)
    }

    /// Packed distances from a handful of values (ties everywhere), a tenth infinite (no shared beacon).
    static func distances(for selection: BlockSelection, using random: inout SeededGenerator) -> [Float] {
        (0..<selection.packedCount).map { _ in
            Int.random(in: 0..<10, using: &random) == 0 ? .infinity : Float(Int.random(in: 0..<12, using: &random)) * 0.25
        }
    }

    /// The selected rows with their packed distances, in row order.
    static func selectedRows(_ distances: [Float], _ selection: BlockSelection, in map: RadioMap) -> [(row: Int, distance: Float)] {
        var rows: [(row: Int, distance: Float)] = []
        selection.forEachRow(in: map) { row, slot in rows.append((row, distances[slot])) }
        return rows
    }

    /// Every finite row, nearest first, a row before a later one at the same distance.
    static func plainNearestRows(_ rows: [(row: Int, distance: Float)], in map: RadioMap, limit: Int) -> [(spot: Int, distance: Float)] {
        Array(rows.filter(\.distance.isFinite).enumerated()
            .sorted { ($0.element.distance, $0.offset) < ($1.element.distance, $1.offset) }
            .prefix(limit).map { (map.spotOfRow[$0.element.row], $0.element.distance) })
    }

    /// Every spot's distance over its selected rows (the least, or the mean of its `kept` least, summed
    /// least first), nearest first, a spot before a later one at the same distance.
    static func plainNearestSpots(
        _ rows: [(row: Int, distance: Float)], in map: RadioMap, kept: Int, limit: Int
    ) -> [(spot: Int, distance: Float)] {
        var spots: [(spot: Int, distance: Float)] = []
        for spot in map.spots.indices {
            let best = rows.filter { map.spotOfRow[$0.row] == spot && $0.distance.isFinite }.map(\.distance).sorted().prefix(kept)
            guard !best.isEmpty else { continue }
            spots.append((spot, best.reduce(0, +) / Float(best.count)))
        }
        return Array(spots.enumerated()
            .sorted { ($0.element.distance, $0.offset) < ($1.element.distance, $1.offset) }
            .prefix(limit).map(\.element))
    }

    static func locator(_ aggregation: SpotAggregation) -> Locator {
        Locator(metric: DecibelOffsetMetric(), aggregation: aggregation, estimator: WeightedNearestSpots())
    }

    @Test("the nearest spots are the plain definition's, in the same order on ties",
          arguments: [SpotAggregation.best, .meanOfBest(2), .meanOfBest(3)])
    func nearestSpots(aggregation: SpotAggregation) throws {
        let kept = if case .meanOfBest(let count) = aggregation { count } else { 1 }
        for seed in UInt64(1)...40 {
            // Given a map whose spots straddle blocks, a selection with gaps, and distances with ties
            let map = try Self.map(seed: seed)
            var random = SeededGenerator(seed: seed &* 7919)
            let selection = Self.selection(in: map, using: &random)
            let distances = Self.distances(for: selection, using: &random)
            let rows = Self.selectedRows(distances, selection, in: map)
            for limit in [1, 3, 5, 8, 32] {
                // When the locator ranks the spots
                let ranked = distances.withUnsafeBufferPointer {
                    Self.locator(aggregation).nearestSpots($0, blocks: selection, in: map, limit: limit)
                }
                // Then they are the plain definition's, spot for spot and distance for distance
                let expected = Self.plainNearestSpots(rows, in: map, kept: kept, limit: limit)
                #expect(ranked.map(\.spotIndex) == expected.map(\.spot), "seed \(seed), limit \(limit)")
                #expect(ranked.map(\.distance) == expected.map(\.distance), "seed \(seed), limit \(limit)")
            }
        }
    }

    @Test("the nearest rows are the plain definition's, in the same order on ties")
    func nearestRows() throws {
        for seed in UInt64(1)...40 {
            // Given a map, a selection with gaps, and distances with ties
            let map = try Self.map(seed: seed)
            var random = SeededGenerator(seed: seed &* 104_729)
            let selection = Self.selection(in: map, using: &random)
            let distances = Self.distances(for: selection, using: &random)
            let rows = Self.selectedRows(distances, selection, in: map)
            for limit in [1, 4, 16, 64] {
                // When the locator ranks the rows
                let ranked = distances.withUnsafeBufferPointer {
                    Locator.nearestRows($0, blocks: selection, in: map, limit: limit)
                }
                // Then they are the plain definition's
                let expected = Self.plainNearestRows(rows, in: map, limit: limit)
                #expect(ranked.map(\.spotIndex) == expected.map(\.spot), "seed \(seed), limit \(limit)")
                #expect(ranked.map(\.distance) == expected.map(\.distance), "seed \(seed), limit \(limit)")
            }
        }
    }

    @Test("a buffer of one distance per row, ending inside the last block, is ranked whole")
    func unpaddedRowBuffer() throws {
        // Given a map whose last block is partly filled and one distance per row, the nearest in that block
        let map = try Self.map(seed: 3)
        #expect(map.count % RadioMap.lanes != 0)
        var distances = [Float](repeating: 5, count: map.count)
        distances[map.count - 1] = 1
        // When the rows and spots are ranked over the whole map
        let rows = distances.withUnsafeBufferPointer { Locator.nearestRows($0, in: map, limit: 2) }
        let spots = distances.withUnsafeBufferPointer {
            Self.locator(.best).nearestSpots($0, blocks: .all(of: map), in: map, limit: 2)
        }
        // Then the last row leads both
        #expect(rows.first?.distance == 1)
        #expect(rows.first?.spotIndex == map.spotOfRow[map.count - 1])
        #expect(spots.first?.spotIndex == map.spotOfRow[map.count - 1])
    }
}
