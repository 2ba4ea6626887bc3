import Foundation
@_spi(Profiling) import Positioning
import Testing
import TestSupport

/// The dB-offset metric's AVX2 and AVX-512 VNNI loops (MatcherKernels), which a CPU with either runs instead
/// of the Swift loop and its finishing: the distances must be the Swift code's to the bit, or answers would
/// depend on the server's processor.
@Suite("The AVX2 and AVX-512 VNNI loops of the dB-offset metric")
struct WideKernelTests {
    /// The bit patterns of `metric`'s distances from `query` to the blocks `blocks` selects, written into a
    /// buffer of `capacity` distances that starts as NaNs, so that -0 and 0, or a distance left unwritten,
    /// are told apart.
    static func distanceBits(
        _ metric: DecibelOffsetMetric, from query: QueryVector, in map: RadioMap, blocks: BlockSelection, capacity: Int,
        loop: CompactKernels.LevelLoop
    ) -> [UInt32] {
        var distances = [Float](repeating: .nan, count: capacity)
        distances.withUnsafeMutableBufferPointer { metric.distances(from: query, in: map, blocks: blocks, into: $0, loop: loop) }
        return distances.map(\.bitPattern)
    }

    /// The loops in C, which this CPU runs.
    static let loopsInC = CompactKernels.LevelLoop.allCases.filter { $0 != .portable && $0.isAvailable }

    @Test(
        "The AVX2 and AVX-512 VNNI loops' distances equal the Swift loop's bit for bit, on sparse and dense blocks, whatever offset it removes",
        .enabled(if: !loopsInC.isEmpty, "this CPU has no AVX2: the Swift loop is the only one it runs"),
        arguments: loopsInC, [RadioMap.BlockLayout.sparse, .dense])
    func sameDistances(loop: CompactKernels.LevelLoop, layout: RadioMap.BlockLayout) throws {
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
                        let wide = Self.distanceBits(metric, from: query, in: map, blocks: blocks, capacity: capacity, loop: loop)
                        let narrow = Self.distanceBits(metric, from: query, in: map, blocks: blocks, capacity: capacity, loop: .portable)
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

    @Test(
        "At the extremes of the levels (the floor, 2,047.9 dB above it) the loops in C give the Swift loop's distances",
        .enabled(if: !loopsInC.isEmpty, "this CPU has no AVX2: the Swift loop is the only one it runs"),
        arguments: loopsInC, [RadioMap.BlockLayout.sparse, .dense])
    func extremeLevels(loop: CompactKernels.LevelLoop, layout: RadioMap.BlockLayout) throws {
        // Given 16 fingerprints of 6 beacons each at the floor (0 dB above it) or at the highest level kept,
        // every row another mix, and some not heard at all
        let metric = DecibelOffsetMetric(penalty: AbsencePenalty(queryOnly: 3, referenceOnly: 2), offsetShrinkage: 1)
        let floor = Double(metric.floor), highest = floor + 2_047.9375
        let spots = (0..<16).map { Spot(name: "S\($0)", x: Double($0), y: 0, floor: 0) }
        let references = (1..<17).map { row in
            var rssi: [UInt16: Double] = [:]
            for minor in UInt16(0)..<6 {
                switch (row >> (Int(minor) % 4)) & 3 {
                case 0: break
                case 1: rssi[minor] = floor
                default: rssi[minor] = highest
                }
            }
            return (spot: row - 1, fingerprint: Fixtures.fingerprint(rssi: rssi))
        }
        let map = try RadioMap(spots: spots, fingerprints: references, representation: metric.representation, zoneAreas: [], layout: layout)
        // When scans at the floor, at the highest level and mixed are compared by both loops
        let scans: [[Double]] = [[floor, floor, highest, highest, floor, highest], [highest, highest, highest, floor, floor, floor]]
        for levels in scans {
            let query = map.query(for: Fixtures.fingerprint(rssi: Dictionary(uniqueKeysWithValues: levels.enumerated().map { (UInt16($0), $1) })))
            let blocks = BlockSelection.all(of: map)
            let inC = Self.distanceBits(metric, from: query, in: map, blocks: blocks, capacity: map.count, loop: loop)
            let portable = Self.distanceBits(metric, from: query, in: map, blocks: blocks, capacity: map.count, loop: .portable)
            // Then they are the same bits, and finite where a row shares a beacon with the scan
            #expect(inC == portable)
            #expect(inC.contains { Float(bitPattern: $0).isFinite && Float(bitPattern: $0) > 1_000 })
        }
    }

    @Test("Each loop in C runs exactly where the operating system reports its instructions")
    func detection() throws {
        // Given the CPU flags Linux reports
        let cpuInfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = Set(cpuInfo.split(separator: "\n").first { $0.hasPrefix("flags") }.map { $0.split(separator: " ").map(String.init) } ?? [])
        // Then the loops are chosen by the same answer (false off x86-64, where no flag is "avx2"), and the
        // fastest one available is the one locates take
        #expect(CompactKernels.LevelLoop.avx2.isAvailable == flags.contains("avx2"))
        #expect(
            CompactKernels.LevelLoop.avx512VNNI.isAvailable
                == flags.isSuperset(of: ["avx2", "avx512f", "avx512bw", "avx512vl", "avx512_vnni"]))
        #expect(CompactKernels.fastestLevelLoop == CompactKernels.LevelLoop.allCases.last { $0.isAvailable })
    }
}
