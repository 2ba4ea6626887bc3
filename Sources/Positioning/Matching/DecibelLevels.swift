import MatcherKernels

/// The dB-offset metric's copy of a decibel map's blocks: every level as a 16-bit integer in 1/16 dB
/// (``SignalRepresentation/decibels(floor:)`` rounds levels to 1/16 dB, so the copy is exact), two columns
/// interleaved lane by lane. One AVX2 instruction (`_mm256_madd_epi16`) then squares and adds two columns
/// for a block's 8 rows into exact 32-bit sums: a column takes 16 bytes of levels instead of 32 bytes of
/// floats, and a pair of columns about 20 instructions instead of 30 (docs/decisions/2026-11-28-levels-in-16-bits.md).
///
/// Sums of integers are exact in any order, so the AVX2 loop and the Swift loop for other CPUs agree to
/// the bit by construction. 32-bit sums hold at least 800 beacons in common at 100 dB of difference each.
@_spi(Profiling) public struct DecibelLevels: Sendable {
    /// Levels per dB.
    static let steps: Float = 16
    /// A row that does not hear the column.
    static let absent: Int16 = -1
    /// The query level of a column the query does not hear (`BEACONFIX_UNHEARD`): ``absent``, so that the
    /// kernels find the lanes both sides hear from the lower of the two levels alone.
    static let unheard: Int16 = absent
    /// The highest level kept, 2,047.9 dB above the floor, far beyond any radio's range.
    static let highest = Int16.max - 1
    /// The most beacons a map of levels holds: its columns and the padding column after them are 16-bit.
    static let widest = Int(UInt16.max)

    /// How the pairs of columns are laid out.
    @_spi(Profiling) public enum Pairs: Sendable {
        /// Pair `p` of every block is columns `2p` and `2p + 1` (the last one's second column, for an odd
        /// width, is the padding column `beaconCount`, never heard), `pairsPerBlock` pairs a block.
        case dense(pairsPerBlock: Int)
        /// Block `b` keeps pairs `pairStart[b] ..< pairStart[b + 1]` of the columns it stores, pair `p`
        /// being columns `pairColumns[2p]` and `pairColumns[2p + 1]` (the padding column `beaconCount` for an
        /// odd count). Columns are 16-bit (``widest``): the coarse pass over a large map waits on memory,
        /// and a pair's two columns are 4 bytes of its 20 instead of 8 of 24.
        case sparse(pairStart: [Int], pairColumns: [UInt16])
    }

    @_spi(Profiling) public let pairs: Pairs
    /// 16 a pair: row 0 of the first column, row 0 of the second, row 1 of the first, and so on; ``absent``
    /// where the row does not hear the beacon.
    let levels: [Int16]
    /// Whether the levels and column lists take more than half the CPU's last-level cache (or its size is
    /// unknown): a selection's blocks then mostly come from memory, and the AVX2 loop requests every one of
    /// them ahead, not only the first of each run (MatcherKernels' `BEACONFIX_BLOCKS_AHEAD`; the VNNI loops
    /// request every block, a line at a time, in any map: `BEACONFIX_VNNI_BLOCKS_AHEAD`); the map then
    /// keeps coarse levels too where the CPU runs a loop in C (``RadioMap/CoarsePass``). Half, because
    /// the cache is shared with the rest of the process, other processes and, on a virtual machine, other
    /// tenants: this machine reports 260 MB, and the 1,000,000-fingerprint map (about 250 MB) still waits on
    /// memory unless every block is requested, while the 100,000 one (25 MB) runs faster without.
    let outgrowsCache: Bool
    /// The levels rounded to 1/2 dB, for a first pass that reads half the bytes
    /// (``DecibelOffsetMetric/distanceBounds(from:in:blocks:lower:upper:)``); nil where the map does not keep
    /// them (``RadioMap/CoarsePass``).
    @_spi(Profiling) public let coarse: CoarseLevels?

    /// A sparse map's levels a byte each, in the same layout: 0 where the row does not hear the beacon, `b`
    /// for the level `(b − 1) / 2` dB (`8 (b − 1)` in 1/16 dB), the nearest to the exact one up to 127 dB.
    @_spi(Profiling) public struct CoarseLevels: Sendable {
        let bytes: [UInt8]
        /// The largest difference between a level and its coarse one, in 1/16 dB: 4 (1/4 dB) unless a level
        /// lies beyond 127 dB, where the coarse levels stop. Measured, so the bounds hold for any map.
        @_spi(Profiling) public let error: Int16

        init(levels: [Int16]) {
            var largest = 0
            bytes = levels.map { level in
                guard level >= 0 else { return 0 }
                let step = min(254, (Int(level) + 4) / 8)
                largest = max(largest, abs(Int(level) - 8 * step))
                return UInt8(step + 1)
            }
            error = Int16(largest)
        }
    }

    /// The level of a stored or query value (dB above the floor, at least 0, rounded to 1/16 dB already).
    @inline(__always)
    static func level(_ value: Float) -> Int16 {
        value < 0 ? absent : Int16(min(Float(highest), (value * steps).rounded()))
    }

    /// The levels of `storage`'s blocks, and their coarse copy for a sparse map as `coarsePass` says.
    init(storage: BlockStorage, beaconCount width: Int, blockCount: Int, coarsePass: RadioMap.CoarsePass) {
        let lanes = RadioMap.lanes
        var levels: [Int16] = []
        /// Appends the pair of columns whose first lanes are at `first` and `second` in the stored values
        /// (nil: the padding column).
        func appendPair(_ values: [Float], _ first: Int, _ second: Int?) {
            for lane in 0..<lanes {
                levels.append(Self.level(values[first + lane]))
                levels.append(second.map { Self.level(values[$0 + lane]) } ?? Self.absent)
            }
        }
        switch storage {
        case .dense(let values):
            let pairsPerBlock = (width + 1) / 2
            levels.reserveCapacity(blockCount * pairsPerBlock * 2 * lanes)
            for block in 0..<blockCount {
                let base = block * width * lanes
                for pair in 0..<pairsPerBlock {
                    let second = 2 * pair + 1 < width ? base + (2 * pair + 1) * lanes : nil
                    appendPair(values, base + 2 * pair * lanes, second)
                }
            }
            pairs = .dense(pairsPerBlock: pairsPerBlock)
        case .sparse(let columnStart, let columns, let values):
            var pairStart = [Int](repeating: 0, count: blockCount + 1)
            var pairColumns: [UInt16] = []
            pairColumns.reserveCapacity(columns.count + blockCount)
            levels.reserveCapacity((columns.count + blockCount) * lanes)
            for block in 0..<blockCount {
                pairStart[block] = pairColumns.count / 2
                var index = columnStart[block]
                while index < columnStart[block + 1] {
                    let hasSecond = index + 1 < columnStart[block + 1]
                    pairColumns.append(UInt16(columns[index]))
                    pairColumns.append(UInt16(hasSecond ? Int(columns[index + 1]) : width))
                    appendPair(values, index * lanes, hasSecond ? (index + 1) * lanes : nil)
                    index += 2
                }
            }
            pairStart[blockCount] = pairColumns.count / 2
            pairs = .sparse(pairStart: pairStart, pairColumns: pairColumns)
        }
        self.levels = levels
        let columnBytes = if case .sparse(_, let pairColumns) = pairs { pairColumns.count * MemoryLayout<UInt16>.size } else { 0 }
        let bytes = levels.count * MemoryLayout<Int16>.size + columnBytes
        outgrowsCache = CompactKernels.lastLevelCacheBytes.map { bytes > $0 / 2 } ?? true
        let keepsCoarse = switch (coarsePass, pairs) {
        case (_, .dense), (.never, _): false
        case (.always, _): true
        // The pass is measured a gain with the AVX2 and VNNI loops only; elsewhere a map keeps coarse levels
        // where asked (`.always`), and the portable loop reads them.
        case (.automatic, _): outgrowsCache && CompactKernels.LevelLoop.avx2.isAvailable
        }
        coarse = keepsCoarse ? CoarseLevels(levels: levels) : nil
    }

    /// Calls `body` with the map as MatcherKernels' loops read it: pointers into these arrays, valid during
    /// the call only.
    @inline(__always)
    func withKernelMap<Result>(_ body: (UnsafePointer<beaconfix_level_map>) -> Result) -> Result {
        let prefetchAdjacent: Int32 = outgrowsCache ? 1 : 0
        // An empty array for a map without coarse levels: a shared empty buffer, nothing allocated.
        return levels.withUnsafeBufferPointer { levels in
            (coarse?.bytes ?? []).withUnsafeBufferPointer { coarseBytes in
                switch pairs {
                case .dense(let pairsPerBlock):
                    var map = beaconfix_level_map(
                        levels: levels.baseAddress, pair_start: nil, pair_columns: nil, pairs_per_block: pairsPerBlock,
                        coarse_levels: nil, coarse_error: 0, prefetch_adjacent: prefetchAdjacent)
                    return withUnsafePointer(to: &map, body)
                case .sparse(let pairStart, let pairColumns):
                    return pairStart.withUnsafeBufferPointer { pairStart in
                        pairColumns.withUnsafeBufferPointer { pairColumns in
                            var map = beaconfix_level_map(
                                levels: levels.baseAddress, pair_start: pairStart.baseAddress, pair_columns: pairColumns.baseAddress,
                                pairs_per_block: 0, coarse_levels: coarse == nil ? nil : coarseBytes.baseAddress,
                                coarse_error: coarse?.error ?? 0, prefetch_adjacent: prefetchAdjacent)
                            return withUnsafePointer(to: &map, body)
                        }
                    }
                }
            }
        }
    }

    /// Calls `body` with the query's level per column (and ``unheard`` for the padding column after the
    /// last), on the stack: nothing is allocated per locate.
    @inline(__always)
    static func withQueryLevels<Result>(_ query: QueryVector, _ body: (UnsafeBufferPointer<Int16>) -> Result) -> Result {
        let width = query.mask.count
        return withUnsafeTemporaryAllocation(of: Int16.self, capacity: width + 1) { table in
            table.initialize(repeating: unheard)
            for column in query.presentColumns { table[column] = level(query.values[column]) }
            return body(UnsafeBufferPointer(table))
        }
    }
}
