/// The blocks of a ``RadioMap``'s compact matrix a query is compared with: ascending, disjoint runs of
/// block indices (a block is ``RadioMap/lanes`` reference fingerprints).
///
/// Bulk distances are written *packed*: the `i`-th selected block's 8 distances at `i * 8 ..< i * 8 + 8`.
/// With ``all(of:)`` that is the row order itself, so a buffer of `map.count` distances is indexed by row.
public struct BlockSelection: Sendable, Hashable {
    /// Runs of block indices, ascending and disjoint.
    public private(set) var runs: [Range<Int>]
    /// Blocks in all runs together.
    public private(set) var blockCount: Int

    /// `runs` must be ascending and disjoint.
    package init(runs: [Range<Int>]) {
        self.runs = runs
        blockCount = runs.reduce(0) { $0 + $1.count }
    }

    /// The runs array, leaving the selection empty: uniquely held, so the next selection can be laid out in
    /// its storage without allocating.
    package mutating func takeRuns() -> [Range<Int>] {
        defer {
            runs = []
            blockCount = 0
        }
        return runs
    }

    /// Every block of `map`: the exhaustive search.
    public static func all(of map: RadioMap) -> BlockSelection {
        BlockSelection(runs: map.blockCount > 0 ? [0..<map.blockCount] : [])
    }

    /// The block in the middle of the selection (half the selected blocks before it), or -1 when empty:
    /// where in the map the selection lies, to order queries that read the same blocks one after another.
    public var middleBlock: Int {
        var remaining = blockCount / 2
        for run in runs {
            if remaining < run.count { return run.lowerBound + remaining }
            remaining -= run.count
        }
        return -1
    }

    /// The selected block after `block` (which lies in the run at `runIndex`), nil after the last.
    @inline(__always)
    func block(after block: Int, inRun runIndex: Int) -> Int? {
        block + 1 < runs[runIndex].upperBound ? block + 1 : runIndex + 1 < runs.count ? runs[runIndex + 1].lowerBound : nil
    }

    /// Calls `body` with the runs as `runCount` pairs of integers, each run's first block and the block after
    /// its last: the layout MatcherKernels reads (a `Range<Int>` is those two integers, in that order).
    func withBounds<Result>(_ body: (_ bounds: UnsafePointer<Int>?, _ runCount: Int) -> Result) -> Result {
        runs.withUnsafeBufferPointer { runs in
            runs.withMemoryRebound(to: Int.self) { bounds in body(bounds.baseAddress, runs.count) }
        }
    }

    /// Distances a packed buffer of this selection holds (padding rows of a partly filled last block included).
    public var packedCount: Int { blockCount * RadioMap.lanes }

    /// Calls `body(row, slot)` for every existing row of the selected blocks, in ascending row order, with
    /// `slot` its index in a packed buffer.
    @inline(__always)
    package func forEachRow(in map: RadioMap, _ body: (_ row: Int, _ slot: Int) -> Void) {
        var slot = 0
        for run in runs {
            for block in run {
                let first = block * RadioMap.lanes
                for row in first..<min(first + RadioMap.lanes, map.count) { body(row, slot + row - first) }
                slot += RadioMap.lanes
            }
        }
    }

    /// Copies the selected blocks' rows of `full` (one distance per row of `map`) into `packed`.
    func gather(_ full: UnsafeBufferPointer<Float>, in map: RadioMap, into packed: UnsafeMutableBufferPointer<Float>) {
        packed.initialize(repeating: .infinity)
        forEachRow(in: map) { row, slot in packed[slot] = full[row] }
    }
}

/// How a ``Locator`` picks the reference fingerprints it compares a query with.
public enum CandidateSearch: Hashable, Sendable, Codable {
    /// Every reference fingerprint of the map.
    case exhaustive
    /// Only the blocks of 8 fingerprints in which some fingerprint hears a beacon the query hears
    /// (``RadioMap/candidateBlocks(for:)``). Exact: a fingerprint that shares no beacon with the query has
    /// no distance to it under every metric, so the answer is the exhaustive search's, while a large venue
    /// (several floors, hundreds of beacons) reads only the neighbourhood of what the phone hears.
    case beaconIndex
    /// Only the blocks in which at least `minimumShared` of the query's `queryBeacons` strongest beacons are
    /// each ranked by some fingerprint among its own `referenceRank` strongest (at most
    /// ``RadioMap/rankedBeacons``). Approximate: a fingerprint that shares too few of its strongest beacons
    /// with the query's strongest is taken to be far away. Only large venues are ever searched this way:
    /// - a map of fewer than `exactBelowBlocks` blocks is searched by the exact ``beaconIndex``: it is read
    ///   whole in well under a millisecond, too little to trade any answer for;
    /// - where the selection keeps more than `maximumShare` of the map's blocks (every fingerprint hears
    ///   the same few strong beacons) the saving is small, and the exact ``beaconIndex`` is read instead.
    ///
    /// Its recall depends on the metric (``CandidateSearchRecall``): a venue is searched this way only where
    /// the recall measured on its own survey under its own metric clears the bar, which ``SurveyTuner``
    /// checks when it tunes the venue.
    case strongestBeacons(queryBeacons: Int, referenceRank: Int, minimumShared: Int, maximumShare: Double, exactBelowBlocks: Int)
    /// Spots first, then their fingerprints: `coarse` selects rows of the map's ``RadioMap/spotCentroids``
    /// (one per spot, ten times fewer than fingerprints in a survey of ten per spot), the metric ranks
    /// them, and only the blocks of the `keep` nearest spots' fingerprints are read. A survey's selection
    /// then stays the size of a neighbourhood of spots however densely the venue is surveyed, where
    /// ``strongestBeacons(queryBeacons:referenceRank:minimumShared:maximumShare:exactBelowBlocks:)`` grows
    /// with the fingerprints around the scan. Approximate twice over: the coarse search's recall, and a
    /// spot whose centroid is far while one of its fingerprints is near. So it is measured like the
    /// strongest-beacon search (``CandidateSearchRecall``). A map without centroids (small, or one
    /// fingerprint per spot) is searched by `coarse` itself. It takes a metric to rank spots, so only
    /// ``Locator/candidateBlocks(for:in:)`` selects it.
    indirect case spotsFirst(keep: Int, coarse: CandidateSearch)
}

extension RadioMap {
    /// The blocks holding a fingerprint that hears one of the beacons `query` hears: the union of those
    /// beacons' block runs (``blockRuns(ofColumn:)``), merged through a bitmap of the map's blocks. One
    /// array is allocated, for the runs.
    public func candidateBlocks(for query: QueryVector) -> BlockSelection {
        candidateBlocks(for: query, reservingRuns: 0)
    }

    /// ``candidateBlocks(for:)`` with room for at least `reservingRuns` runs in its array.
    func candidateBlocks(for query: QueryVector, reservingRuns: Int) -> BlockSelection {
        let words = (blockCount + 63) / 64
        guard words > 0 else { return BlockSelection(runs: []) }
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: words) { bits in
            bits.initialize(repeating: 0)
            for column in query.presentColumns {
                for run in columnRuns[columnRunStart[column]..<columnRunStart[column + 1]] { Self.set(run, in: bits) }
            }
            return Self.runs(of: bits, blockCount: blockCount, reserving: reservingRuns)
        }
    }

    /// The blocks `search` selects for `query`, for the searches that need no metric: a
    /// ``CandidateSearch/spotsFirst(keep:coarse:)`` search ranks spots under one, and
    /// ``Locator/candidateBlocks(for:in:)`` selects with every search.
    ///
    /// The runs array has room for at least `reservingRuns` runs: a spots-first search lays its spots' runs
    /// out in the array of its centroids' selection.
    package func candidateBlocks(for query: QueryVector, search: CandidateSearch, reservingRuns: Int = 0) -> BlockSelection {
        switch search {
        case .exhaustive: return .all(of: self)
        case .beaconIndex: return candidateBlocks(for: query, reservingRuns: reservingRuns)
        case .spotsFirst(_, let coarse):
            // Unreachable from Locator, which ranks the spots itself; the coarse search is the nearest answer.
            return candidateBlocks(for: query, search: coarse, reservingRuns: reservingRuns)
        case .strongestBeacons(let queryBeacons, let referenceRank, let minimumShared, let maximumShare, let exactBelowBlocks):
            let words = (blockCount + 63) / 64
            guard words > 0 else { return BlockSelection(runs: []) }
            guard blockCount >= exactBelowBlocks else { return candidateBlocks(for: query, reservingRuns: reservingRuns) }
            let narrow: BlockSelection? = withStrongestBeaconScratch(minimumShared: minimumShared) { bits, counts in
                let selected = markStrongestBeaconBlocks(
                    for: query, queryBeacons: queryBeacons, referenceRank: referenceRank, minimumShared: minimumShared,
                    in: bits, counts: counts)
                // Too wide a selection saves little: the exact index is read instead, without laying this one out.
                guard selected > 0, Double(selected) <= maximumShare * Double(blockCount) else { return nil }
                return Self.runs(of: bits, blockCount: blockCount, reserving: reservingRuns)
            }
            return narrow ?? candidateBlocks(for: query, reservingRuns: reservingRuns)
        }
    }

    /// The blocks in which at least `minimumShared` of `query`'s `queryBeacons` strongest beacons are each
    /// ranked by some fingerprint among its own `referenceRank` strongest.
    public func strongestBeaconBlocks(
        for query: QueryVector, queryBeacons: Int, referenceRank: Int, minimumShared: Int = 1
    ) -> BlockSelection {
        let words = (blockCount + 63) / 64
        guard words > 0 else { return BlockSelection(runs: []) }
        return withStrongestBeaconScratch(minimumShared: minimumShared) { bits, counts in
            markStrongestBeaconBlocks(
                for: query, queryBeacons: queryBeacons, referenceRank: referenceRank, minimumShared: minimumShared,
                in: bits, counts: counts)
            return Self.runs(of: bits, blockCount: blockCount)
        }
    }

    /// Calls `body` with a bit per block and, where more than one chosen beacon must be shared, a count per
    /// block, in one temporary allocation: on a large map both outgrow the stack's share, and two would be
    /// two allocations a locate.
    private func withStrongestBeaconScratch<Result>(
        minimumShared: Int, _ body: (_ bits: UnsafeMutableBufferPointer<UInt64>, _ counts: UnsafeMutableBufferPointer<UInt8>) -> Result
    ) -> Result {
        let bitBytes = (blockCount + 63) / 64 * MemoryLayout<UInt64>.stride
        let countBytes = minimumShared > 1 ? blockCount : 0
        return withUnsafeTemporaryAllocation(byteCount: bitBytes + countBytes, alignment: MemoryLayout<UInt64>.alignment) { scratch in
            body(
                UnsafeMutableRawBufferPointer(rebasing: scratch[..<bitBytes]).bindMemory(to: UInt64.self),
                UnsafeMutableRawBufferPointer(rebasing: scratch[bitBytes...]).bindMemory(to: UInt8.self))
        }
    }

    /// Sets the bits of ``strongestBeaconBlocks(for:queryBeacons:referenceRank:minimumShared:)``'s blocks in
    /// `bits` (one per block, cleared first) and returns how many are set. `counts` holds a byte per block
    /// where more than one chosen beacon must be shared (cleared first), and may be empty otherwise.
    @discardableResult
    private func markStrongestBeaconBlocks(
        for query: QueryVector, queryBeacons: Int, referenceRank: Int, minimumShared: Int, in bits: UnsafeMutableBufferPointer<UInt64>,
        counts: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        let wanted = max(1, min(queryBeacons, 8)), rank = UInt8(max(1, min(referenceRank, Self.rankedBeacons)))
        let shared = UInt8(max(1, min(minimumShared, wanted)))
        bits.initialize(repeating: 0)
        var selected = 0
        // How many of the chosen beacons each block ranks, where more than one must be: one byte per block.
        precondition(shared == 1 || counts.count >= blockCount, "a count per block is needed where more than one beacon must be shared")
        counts.initialize(repeating: 0)
        withUnsafeTemporaryAllocation(of: Int.self, capacity: wanted) { chosen in
            // The query's strongest columns, strongest first (ties: the lower column), by insertion.
            var count = 0
            for column in query.presentColumns {
                let value = query.values[column]
                var position = count
                while position > 0, query.values[chosen[position - 1]] < value { position -= 1 }
                guard position < wanted else { continue }
                var index = min(count, wanted - 1)
                while index > position {
                    chosen[index] = chosen[index - 1]
                    index -= 1
                }
                chosen[position] = column
                count = min(count + 1, wanted)
            }
            for column in chosen.prefix(count) {
                let first = column * Self.rankedBeacons
                for entry in strongBlocks[strongStart[first]..<strongStart[first + Int(rank)]] {
                    let block = Int(entry)
                    if shared > 1 {
                        // A column lists a block once, so a block's count is the number of chosen beacons it ranks.
                        counts[block] += 1
                        guard counts[block] == shared else { continue }
                    }
                    let bit: UInt64 = 1 << UInt64(block % 64)
                    if bits[block / 64] & bit == 0 {
                        bits[block / 64] |= bit
                        selected += 1
                    }
                }
            }
        }
        return selected
    }

    /// The blocks holding the fingerprints of `spots` (indices into ``spots``, any order, repeats allowed),
    /// as runs.
    package func blocks(ofSpots spots: some Sequence<Int>) -> BlockSelection {
        let ascending = spots.map { Int32($0) }.sorted()
        return ascending.withUnsafeBufferPointer { blocks(ofAscendingSpots: $0) }
    }

    /// The blocks holding the fingerprints of `spots` (ascending, repeats allowed), as runs laid out with no
    /// bitmap: rows are ordered by spot, so their blocks come in order too. The runs go into `storage`'s
    /// array, emptied: held uniquely and with room for a run a spot, it allocates nothing.
    package func blocks(ofAscendingSpots spots: UnsafeBufferPointer<Int32>, reusing storage: consuming [Range<Int>] = []) -> BlockSelection {
        var runs = consume storage
        runs.removeAll(keepingCapacity: true)
        runs.reserveCapacity(spots.count)
        for spot in spots {
            let rows = spotRanges[Int(spot)]
            guard !rows.isEmpty else { continue }
            let blocks = (rows.lowerBound / Self.lanes)..<((rows.upperBound + Self.lanes - 1) / Self.lanes)
            if let last = runs.last, blocks.lowerBound <= last.upperBound {
                runs[runs.count - 1] = last.lowerBound..<max(last.upperBound, blocks.upperBound)
            } else {
                runs.append(blocks)
            }
        }
        return BlockSelection(runs: runs)
    }

    /// The runs of blocks in which at least one fingerprint hears the beacon of `column`, ascending.
    public func blockRuns(ofColumn column: Int) -> ArraySlice<Range<Int>> {
        columnRuns[columnRunStart[column]..<columnRunStart[column + 1]]
    }

    /// The runs of set bits, as a selection: one array, allocated once at its final size, or at
    /// `reserving` runs where that is more.
    package static func runs(of bits: UnsafeMutableBufferPointer<UInt64>, blockCount: Int, reserving: Int = 0) -> BlockSelection {
        var runs: [Range<Int>] = []
        runs.reserveCapacity(max(reserving, runCount(of: bits)))
        var open: Int?
        for word in 0..<bits.count {
            let value = bits[word]
            if value == 0 || value == .max {
                // Whole words: the common case away from run edges.
                if value == 0, let start = open {
                    runs.append(start..<(word * 64))
                    open = nil
                } else if value == .max, open == nil {
                    open = word * 64
                }
                continue
            }
            for bit in 0..<64 {
                let set = value & (1 << UInt64(bit)) != 0
                if set, open == nil { open = word * 64 + bit }
                if !set, let start = open {
                    runs.append(start..<(word * 64 + bit))
                    open = nil
                }
            }
        }
        if let start = open { runs.append(start..<min(bits.count * 64, blockCount)) }
        return BlockSelection(runs: runs)
    }

    /// How many runs of set bits `bits` holds: the set bits whose lower neighbour (the previous word's top
    /// bit for bit 0) is clear, counted a word at a time.
    package static func runCount(of bits: UnsafeMutableBufferPointer<UInt64>) -> Int {
        var count = 0, previousTop: UInt64 = 0
        for word in bits {
            count += (word & ~((word << 1) | previousTop)).nonzeroBitCount
            previousTop = word >> 63
        }
        return count
    }

    private static func set(_ run: Range<Int>, in bits: UnsafeMutableBufferPointer<UInt64>) {
        var block = run.lowerBound
        while block < run.upperBound {
            let word = block / 64, bit = block % 64
            let span = min(64 - bit, run.upperBound - block)
            let mask: UInt64 = span == 64 ? .max : ((1 << UInt64(span)) - 1) << UInt64(bit)
            bits[word] |= mask
            block += span
        }
    }

    /// Builds the per-beacon block runs from the blocks' columns: `(runStart, runs)` where column `c`'s runs
    /// are `runs[runStart[c] ..< runStart[c + 1]]`.
    static func blockRunIndex(storage: BlockStorage, blockCount: Int, beaconCount: Int) -> (start: [Int], runs: [Range<Int>]) {
        var perColumn = [[Range<Int>]](repeating: [], count: beaconCount)
        let values = storage.values
        for block in 0..<blockCount {
            storage.forEachColumn(ofBlock: block, beaconCount: beaconCount) { column, offset in
                // A dense block stores every column: only those some row hears count.
                guard (0..<Self.lanes).contains(where: { values[offset + $0] != Self.absent }) else { return }
                if let last = perColumn[column].last, last.upperBound == block {
                    perColumn[column][perColumn[column].count - 1] = last.lowerBound..<(block + 1)
                } else {
                    perColumn[column].append(block..<(block + 1))
                }
            }
        }
        var start = [Int](repeating: 0, count: beaconCount + 1)
        var runs: [Range<Int>] = []
        runs.reserveCapacity(perColumn.reduce(0) { $0 + $1.count })
        for (column, list) in perColumn.enumerated() {
            start[column] = runs.count
            runs.append(contentsOf: list)
        }
        start[beaconCount] = runs.count
        return (start, runs)
    }
}

/// A block of a ``RadioMap`` in which some fingerprint ranks a beacon among its strongest.
struct StrongBlock: Sendable {
    var block: Int32
    /// The best rank of the beacon in the block's fingerprints, 0 the strongest.
    var rank: UInt8
}

/// Collects, row by row, each row's strongest beacons into per-beacon lists of blocks.
struct StrongIndexBuilder {
    private var perColumn: [[StrongBlock]]
    private let ranked: Int

    init(beaconCount: Int, ranked: Int) {
        perColumn = Array(repeating: [], count: beaconCount)
        self.ranked = ranked
    }

    /// Adds `row`'s `ranked` strongest beacons (reordering `levels`, the row's columns and values; ties by column).
    /// Rows must come in ascending order.
    mutating func add(row: Int, levels: inout [(column: Int, value: Float)]) {
        levels.sort { ($0.value, -$0.column) > ($1.value, -$1.column) }
        let block = Int32(row / RadioMap.lanes)
        for (rank, level) in levels.prefix(ranked).enumerated() {
            let rank = UInt8(rank)
            if let last = perColumn[level.column].last, last.block == block {
                if rank < last.rank { perColumn[level.column][perColumn[level.column].count - 1].rank = rank }
            } else {
                perColumn[level.column].append(StrongBlock(block: block, rank: rank))
            }
        }
    }

    /// The lists laid out as ``RadioMap``'s `strongStart` and `strongBlocks`: per column, its blocks grouped by
    /// best rank, ascending blocks within a group.
    func finish() -> (start: [Int], blocks: [Int32]) {
        var start = [Int](repeating: 0, count: perColumn.count * ranked + 1)
        var blocks: [Int32] = []
        blocks.reserveCapacity(perColumn.reduce(0) { $0 + $1.count })
        for (column, list) in perColumn.enumerated() {
            for rank in 0..<ranked {
                start[column * ranked + rank] = blocks.count
                for entry in list where Int(entry.rank) == rank { blocks.append(entry.block) }
            }
        }
        start[perColumn.count * ranked] = blocks.count
        return (start, blocks)
    }
}
