import MatcherHints
import MatcherKernels

/// Vectorised loops over a radio map's blocks. Each SIMD lane is one reference fingerprint: a block of 8
/// fingerprints is compared with the query beacon by beacon, visiting only the beacons the query sees (a
/// dense block) or the block stores (a sparse one, ``BlockStorage``), and yields 8 sets of sums with no
/// horizontal reduction. They read a third of the bytes of
/// the BLAS layout and allocate nothing (docs/decisions/2026-11-22-simd-kernel-over-blas.md).
@_spi(Profiling) public enum CompactKernels {
    typealias Vector = SIMD8<Float>

    /// Sums over the beacons a query shares with 8 fingerprints (one per lane).
    struct Sums {
        /// Σ both·(q − r)², or Σ both·|q − r| for the absolute kernels.
        var first = Vector(repeating: 0)
        /// Σ both·(q − r), or Σ both·r for the union kernel.
        var second = Vector(repeating: 0)
        /// Number of shared beacons: set by the loop over a block's columns from the lanes it counted absent
        /// (an integer count, one instruction a column, where the kinds would add a masked 1.0).
        var common = Vector(repeating: 0)
    }

    /// The kinds of sums the metrics need, one type each so that every kernel is compiled for its own kind
    /// alone (a kind passed as a value left a switch per column where the optimiser would not inline it).
    protocol Kind {
        /// Adds one column of 8 rows to `sums` (all but ``Sums/common``, which the loop counts): `reference`
        /// the rows' values, `q` the query's value broadcast, `absent` the lanes that count as not heard.
        static func add(_ reference: Vector, query q: Vector, absent: SIMDMask<SIMD8<Int32>>, to sums: inout Sums)
        /// Whether `first` sums over all the query's beacons, also those a reference does not hear.
        static var sumsOverQueryBeacons: Bool { get }
    }

    /// The loops that sum the dB-offset metric (the one every tuned and untuned venue uses) over
    /// ``DecibelLevels``, each giving the same distances and bounds to the bit: which instruction set's table
    /// of MatcherKernels a metric calls through (``DecibelOffsetMetric/init(floor:penalty:offsetShrinkage:loop:)``).
    @_spi(Profiling) public enum LevelLoop: CaseIterable, Sendable {
        /// Swift's SIMD types for the exact distances and MatcherKernels' plain C for the coarse pass, on any CPU.
        case portable
        /// MatcherKernels' AVX2 loops.
        case avx2
        /// MatcherKernels' AVX-512 VNNI loops: the AVX2 ones with multiplications, additions and sums in
        /// one instruction, 11 vector instructions a pair of columns instead of 14.
        case avx512VNNI

        /// Whether this CPU runs the loop: asked once per process.
        @_spi(Profiling) public var isAvailable: Bool { kernels != nil }

        /// MatcherKernels' table of the loop's functions, nil where this CPU does not run them.
        var kernels: LevelKernels? {
            switch self {
            case .portable: LevelKernels.portable
            case .avx2: LevelKernels.avx2
            case .avx512VNNI: LevelKernels.avx512VNNI
            }
        }
    }

    /// MatcherKernels' table of one instruction set's loops (`beaconfix_level_kernels`). The table is static C
    /// data, never freed or changed, so sharing its address across threads is safe.
    struct LevelKernels: @unchecked Sendable {
        let table: UnsafePointer<beaconfix_level_kernels>

        /// The table of `level`, nil where this CPU does not run it.
        private init?(_ level: beaconfix_instruction_level) {
            guard let table = beaconfix_level_kernels_at(level) else { return nil }
            self.table = table
        }

        // Each asked of the CPU once per process: CPUID is slow on a virtual machine.
        static let portable = LevelKernels(BEACONFIX_LEVEL_PORTABLE)!
        static let avx2 = LevelKernels(BEACONFIX_LEVEL_AVX2)
        static let avx512VNNI = LevelKernels(BEACONFIX_LEVEL_AVX512_VNNI)
    }

    /// The fastest of the loops this CPU runs, which every locate takes unless told otherwise.
    package static let fastestLevelLoop = LevelLoop.allCases.last(where: \.isAvailable) ?? .portable

    /// This CPU's last-level cache in bytes, nil where unknown: asked once per process.
    static let lastLevelCacheBytes: Int? = {
        let bytes = beaconfix_last_level_cache_bytes()
        return bytes > 0 ? bytes : nil
    }()

    /// `first` = Σ (q − r)², `second` = Σ (q − r), over shared beacons.
    enum SquaredDifferences: Kind {
        @inline(__always)
        static func add(_ reference: Vector, query q: Vector, absent: SIMDMask<SIMD8<Int32>>, to sums: inout Sums) {
            let difference = (q - reference).replacing(with: 0, where: absent)
            // Not addProduct: the baseline x86-64 target has no FMA, which makes it a libm call per lane.
            sums.first += difference * difference
            sums.second += difference
        }
        static var sumsOverQueryBeacons: Bool { false }
    }

    /// `first` = Σ |q − r| over shared beacons.
    enum AbsoluteDifferences: Kind {
        @inline(__always)
        static func add(_ reference: Vector, query q: Vector, absent: SIMDMask<SIMD8<Int32>>, to sums: inout Sums) {
            let both = Vector(repeating: 1).replacing(with: 0, where: absent)
            let difference = q - reference
            sums.first += both * difference.replacing(with: -difference, where: difference .< 0)
        }
        static var sumsOverQueryBeacons: Bool { false }
    }

    /// `first` = Σ |q − r| over the query's beacons with absent r read as 0, `second` = Σ r there
    /// (Sørensen completes the union with the rows' value sums).
    enum UnionAbsoluteDifferences: Kind {
        @inline(__always)
        static func add(_ reference: Vector, query q: Vector, absent: SIMDMask<SIMD8<Int32>>, to sums: inout Sums) {
            let present = reference.replacing(with: 0, where: absent)
            let difference = q - present
            sums.first += difference.replacing(with: -difference, where: difference .< 0)
            sums.second += present
        }
        static var sumsOverQueryBeacons: Bool { true }
    }

    /// Calls `body(block, slot, sums)` for every block of 8 rows of `map` that `blocks` selects, in order;
    /// `slot` counts the selected blocks (where a packed buffer keeps the block's distances).
    @inline(__always)
    static func forEachBlock<K: Kind>(
        of map: RadioMap, query: QueryVector, kind: K.Type, blocks: BlockSelection,
        _ body: (_ block: Int, _ slot: Int, _ sums: Sums) -> Void
    ) {
        switch map.storage {
        case .dense(let values):
            forEachDenseBlock(values: values, width: map.beaconCount, query: query, kind: kind, blocks: blocks, body)
        case .sparse(let columnStart, let columns, let values):
            forEachSparseBlock(
                columnStart: columnStart, columns: columns, values: values, query: query, kind: kind, blocks: blocks, body)
        }
    }

    /// Dense blocks: the query's columns of each block, at fixed offsets.
    @inline(__always)
    private static func forEachDenseBlock<K: Kind>(
        values blockValues: [Float], width: Int, query: QueryVector, kind: K.Type, blocks: BlockSelection,
        _ body: (_ block: Int, _ slot: Int, _ sums: Sums) -> Void
    ) {
        let lanes = RadioMap.lanes
        blockValues.withUnsafeBufferPointer { compact in
            query.presentColumns.withUnsafeBufferPointer { columns in
                query.values.withUnsafeBufferPointer { values in
                    guard let base = compact.baseAddress else { return }
                    let raw = UnsafeRawPointer(base)
                    let stride = MemoryLayout<Vector>.stride
                    let blockStride = width * lanes * MemoryLayout<Float>.stride
                    // The bytes from the query's first column to the end of its last, in a block.
                    let spanStart = (columns.first ?? 0) * stride
                    let spanBytes = columns.last.map { ($0 + 1) * stride - spanStart } ?? 0
                    let prefetchSpan = columns.count * stride * 2 >= spanBytes
                    var slot = 0
                    for (runIndex, run) in blocks.runs.enumerated() {
                      for block in run {
                        let blockBytes = block * blockStride
                        // After a gap, the next selected block's lines are requested now, so that on a map
                        // larger than the cache they arrive while this block is computed rather than one miss
                        // at a time; an adjacent block the processor's own prefetcher brings (requesting it too
                        // measured slower). Where the query's columns cover most of the block's span, the span
                        // goes as one request a cache line (two columns) rather than one per column.
                        if let next = blocks.block(after: block, inRun: runIndex), next != block + 1 {
                            let nextBlock = raw + next * blockStride
                            if prefetchSpan {
                                beaconfix_prefetch_range(nextBlock + spanStart, spanBytes)
                            } else {
                                for column in columns { beaconfix_prefetch(nextBlock + column * stride) }
                            }
                        }
                        var sums = Sums()
                        var absentLanes = SIMD8<Int32>()
                        for column in columns {
                            let reference = raw.loadUnaligned(fromByteOffset: blockBytes + column * stride, as: Vector.self)
                            let absent = reference .< 0
                            K.add(reference, query: Vector(repeating: values[column]), absent: absent, to: &sums)
                            countAbsent(absent, into: &absentLanes)
                        }
                        sums.common = Vector(repeating: Float(columns.count)) - Vector(absentLanes)
                        body(block, slot, sums)
                        slot += 1
                      }
                    }
                }
            }
        }
    }

    /// Sparse blocks: each block's own columns, read as one stream; a column the query does not hear adds
    /// nothing (all its lanes count as absent). Picking out the shared columns first, without a branch, was
    /// measured no faster.
    @inline(__always)
    private static func forEachSparseBlock<K: Kind>(
        columnStart: [Int], columns: [Int32], values blockValues: [Float], query: QueryVector, kind: K.Type,
        blocks: BlockSelection, _ body: (_ block: Int, _ slot: Int, _ sums: Sums) -> Void
    ) {
        let stride = MemoryLayout<Vector>.stride
        columnStart.withUnsafeBufferPointer { starts in
            columns.withUnsafeBufferPointer { columns in
                blockValues.withUnsafeBufferPointer { compact in
                    query.values.withUnsafeBufferPointer { queryValues in
                        query.mask.withUnsafeBufferPointer { queryMask in
                            guard let base = compact.baseAddress else { return }
                            let raw = UnsafeRawPointer(base)
                            var slot = 0
                            for (runIndex, run) in blocks.runs.enumerated() {
                                for block in run {
                                    if let next = blocks.block(after: block, inRun: runIndex), next != block + 1 {
                                        // The whole next block after a gap, and its column list (an adjacent one
                                        // the processor's prefetcher brings: an eighth of a large locate went into
                                        // requesting it line by line).
                                        let stored = starts[next + 1] - starts[next]
                                        beaconfix_prefetch_range(raw + starts[next] * stride, stored * stride)
                                        beaconfix_prefetch_range(
                                            UnsafeRawPointer(columns.baseAddress! + starts[next]), stored * MemoryLayout<Int32>.stride)
                                    }
                                    var sums = Sums()
                                    var absentLanes = SIMD8<Int32>()
                                    for index in starts[block]..<starts[block + 1] {
                                        let column = Int(columns[index])
                                        let reference = raw.loadUnaligned(fromByteOffset: index * stride, as: Vector.self)
                                        let value = Vector(repeating: queryValues[column])
                                        // Every lane is absent in a column the query does not hear (values are at least 0).
                                        let absentBelow = Vector(repeating: queryMask[column] > 0 ? 0 : .infinity)
                                        let absent = reference .< absentBelow
                                        K.add(reference, query: value, absent: absent, to: &sums)
                                        countAbsent(absent, into: &absentLanes)
                                        // The union kind sums over all the query's beacons, also those the block does
                                        // not store: each stored one adds |q − r| − q, and Σ q (values are at least 0)
                                        // completes it.
                                        if K.sumsOverQueryBeacons { sums.first -= value }
                                    }
                                    sums.common = Vector(repeating: Float(starts[block + 1] - starts[block])) - Vector(absentLanes)
                                    if K.sumsOverQueryBeacons { sums.first += Vector(repeating: query.valueSum) }
                                    body(block, slot, sums)
                                    slot += 1
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Adds 1 to each lane of `count` that `absent` sets: a mask lane is all ones, -1 as an integer.
    @inline(__always)
    private static func countAbsent(_ absent: SIMDMask<SIMD8<Int32>>, into count: inout SIMD8<Int32>) {
        count &-= unsafeBitCast(absent, to: SIMD8<Int32>.self)
    }

    /// Rows of `block` that exist (the last block may be partly padding).
    @inline(__always)
    static func rows(of block: Int, in map: RadioMap) -> Range<Int> {
        let first = block * RadioMap.lanes
        return first..<min(first + RadioMap.lanes, map.count)
    }
}

extension RadioMap {
    /// Calls `body` with the rows MatcherKernels' loops finish distances with (each row's beacon count and
    /// value sum), writing into `distances`.
    @inline(__always)
    func withKernelRows<Result>(
        into distances: UnsafeMutableBufferPointer<Float>, _ body: (beaconfix_offset_rows) -> Result
    ) -> Result {
        presentCount.withUnsafeBufferPointer { present in
            valueSum.withUnsafeBufferPointer { valueSum in
                body(beaconfix_offset_rows(
                    present_count: present.baseAddress, value_sum: valueSum.baseAddress, distances: distances.baseAddress,
                    capacity: distances.count))
            }
        }
    }
}

extension CompactKernels {
    /// Writes the 8 distances of the `slot`-th selected block to `target` at `slot * 8 ..< slot * 8 + 8`,
    /// fewer where `target` holds fewer than that (a buffer of one distance per row ends inside the last block).
    @inline(__always)
    static func store(_ distances: Vector, slot: Int, capacity: Int, into target: UnsafeMutablePointer<Float>) {
        let first = slot * RadioMap.lanes
        if first + RadioMap.lanes <= capacity {
            UnsafeMutableRawPointer(target + first).storeBytes(of: distances, as: Vector.self)
        } else {
            for lane in 0..<max(0, capacity - first) { target[first + lane] = distances[lane] }
        }
    }
}
