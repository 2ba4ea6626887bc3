import Foundation
@testable import Positioning
import Testing

/// The dB-offset metric's AVX2 loop (MatcherKernels), which a CPU with AVX2 runs instead of the Swift loop:
/// the sums must be the Swift loop's to the bit, or answers would depend on the server's processor.
@Suite("The AVX2 loop of the dB-offset metric")
struct WideKernelTests {
    /// Every selected block's sums under `wide`, in order.
    static func sums(of query: QueryVector, in map: RadioMap, blocks: BlockSelection, wide: Bool) -> [CompactKernels.Sums] {
        var all: [CompactKernels.Sums] = []
        CompactKernels.forEachBlock(
            of: map, query: query, kind: CompactKernels.SquaredDifferencesAndReferenceSum.self, blocks: blocks, wide: wide
        ) { _, _, sums in all.append(sums) }
        return all
    }

    /// The sums' bit patterns, so that -0 and 0 (or two NaNs) are told apart.
    static func bits(_ sums: [CompactKernels.Sums]) -> [[UInt32]] {
        sums.map { sums in
            [sums.first, sums.second, sums.common, sums.commonReference].flatMap { vector in
                (0..<vector.scalarCount).map { vector[$0].bitPattern }
            }
        }
    }

    @Test(
        "The AVX2 loop's sums equal the Swift loop's bit for bit, on sparse and dense blocks",
        .enabled(if: CompactKernels.wideLoopsAvailable, "this CPU has no AVX2: the Swift loop is the only one it runs"),
        arguments: [RadioMap.BlockLayout.sparse, .dense])
    func sameSums(layout: RadioMap.BlockLayout) throws {
        // Given the corridor survey in dB, laid out one way, and scans along it (some hearing beacons the
        // survey does not, some between spots)
        let metric = DecibelOffsetMetric()
        var generator = SeededGenerator(seed: 97)
        let (spots, references) = BlockStorageTests.corridor(using: &generator)
        let map = try RadioMap(
            spots: spots, fingerprints: references, representation: metric.representation, zoneAreas: [], layout: layout)
        var compared = 0
        for position in stride(from: 0.0, through: 39, by: 0.7) {
            let query = map.query(for: BlockStorageTests.fingerprint(near: position, using: &generator))
            for blocks in [BlockSelection.all(of: map), map.candidateBlocks(for: query)] {
                // When both loops sum every selected block
                let wide = Self.sums(of: query, in: map, blocks: blocks, wide: true)
                let narrow = Self.sums(of: query, in: map, blocks: blocks, wide: false)
                // Then every block's sums are the same bits
                let (wideBits, narrowBits) = (Self.bits(wide), Self.bits(narrow))
                let differing = wideBits.indices.filter { $0 >= narrowBits.count || wideBits[$0] != narrowBits[$0] }
                #expect(wideBits.count == narrowBits.count && differing.isEmpty, "scan at \(position): blocks \(differing.prefix(5)) differ")
                compared += wide.count
            }
        }
        // And the comparison covered the blocks that share beacons with the scans and those that do not
        #expect(compared > 2 * map.blockCount)
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
