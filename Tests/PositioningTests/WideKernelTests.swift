import Foundation
@testable import Positioning
import Testing

/// The dB-offset metric's AVX2 loop (MatcherKernels), which a CPU with AVX2 runs instead of the Swift loop
/// and its finishing: the distances must be the Swift code's to the bit, or answers would depend on the
/// server's processor.
@Suite("The AVX2 loop of the dB-offset metric")
struct WideKernelTests {
    /// The bit patterns of `metric`'s distances from `query` to the blocks `blocks` selects, written into a
    /// buffer of `capacity` distances that starts as NaNs, so that -0 and 0, or a distance left unwritten,
    /// are told apart.
    static func distanceBits(
        _ metric: DecibelOffsetMetric, from query: QueryVector, in map: RadioMap, blocks: BlockSelection, capacity: Int,
        wide: Bool
    ) -> [UInt32] {
        var distances = [Float](repeating: .nan, count: capacity)
        distances.withUnsafeMutableBufferPointer { metric.distances(from: query, in: map, blocks: blocks, into: $0, wide: wide) }
        return distances.map(\.bitPattern)
    }

    @Test(
        "The AVX2 loop's distances equal the Swift loop's bit for bit, on sparse and dense blocks, whatever offset it removes",
        .enabled(if: CompactKernels.wideLoopsAvailable, "this CPU has no AVX2: the Swift loop is the only one it runs"),
        arguments: [RadioMap.BlockLayout.sparse, .dense])
    func sameDistances(layout: RadioMap.BlockLayout) throws {
        // Given the corridor survey in dB, laid out one way, and scans along it (some hearing beacons the
        // survey does not, some between spots), under the default metric, an untuned venue's (λ = 4) and one
        // that removes no offset
        let metrics = [
            DecibelOffsetMetric(),
            DecibelOffsetMetric(penalty: AbsencePenalty(queryOnly: 2, referenceOnly: 1), offsetShrinkage: 4),
            DecibelOffsetMetric(penalty: AbsencePenalty(queryOnly: 10, referenceOnly: 5), offsetShrinkage: nil),
        ]
        var generator = SeededGenerator(seed: 97)
        let (spots, references) = BlockStorageTests.corridor(using: &generator)
        // Three rows fewer than whole blocks, so that the last block is partly padding
        let map = try RadioMap(
            spots: spots, fingerprints: Array(references.dropLast(3)), representation: DecibelOffsetMetric().representation, zoneAreas: [],
            layout: layout)
        var compared = 0, finite = 0, infinite = 0
        for position in stride(from: 0.0, through: 39, by: 0.7) {
            let query = map.query(for: BlockStorageTests.fingerprint(near: position, using: &generator))
            let selections = [
                BlockSelection.all(of: map), map.candidateBlocks(for: query),
                map.strongestBeaconBlocks(for: query, queryBeacons: 3, referenceRank: 3, minimumShared: 2),
            ]
            for blocks in selections {
                // A packed buffer, and for the whole map also one distance per row, which ends inside the
                // last block
                let capacities = blocks == .all(of: map) ? [blocks.packedCount, map.count] : [blocks.packedCount]
                for metric in metrics {
                    for capacity in capacities {
                        // When both loops compute the distances
                        let wide = Self.distanceBits(metric, from: query, in: map, blocks: blocks, capacity: capacity, wide: true)
                        let narrow = Self.distanceBits(metric, from: query, in: map, blocks: blocks, capacity: capacity, wide: false)
                        // Then every distance is the same bits
                        let differing = wide.indices.filter { wide[$0] != narrow[$0] }
                        #expect(differing.isEmpty, "scan at \(position), \(metric), \(blocks.blockCount) blocks: rows \(differing.prefix(5)) differ")
                        compared += capacity
                        for bits in wide.prefix(map.count) {
                            if Float(bitPattern: bits).isFinite { finite += 1 } else if Float(bitPattern: bits) == .infinity { infinite += 1 }
                        }
                    }
                }
            }
        }
        // And the comparison covered rows that share beacons with the scans and rows that share none, and a
        // last block only partly filled
        #expect(compared > 6 * map.count && finite > map.count && infinite > map.count)
        #expect(map.count % RadioMap.lanes != 0)
        #expect(map.isBlockSparse == (layout == .sparse))
    }

    @Test("The AVX2 loop runs exactly where the operating system reports AVX2")
    func detection() throws {
        // Given the CPU flags Linux reports
        let cpuInfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = cpuInfo.split(separator: "\n").first { $0.hasPrefix("flags") }.map { $0.split(separator: " ") } ?? []
        // Then the loops are chosen by the same answer (both false off x86-64, where no flag is "avx2")
        #expect(CompactKernels.wideLoopsAvailable == flags.contains("avx2"))
    }
}
