import MatcherHints

/// Vectorised loops over a radio map's compact matrix. Each SIMD lane is one reference fingerprint: a
/// block of 8 fingerprints is compared with the query beacon by beacon, visiting only the beacons the
/// query sees, and yields 8 sets of sums with no horizontal reduction. They read a third of the bytes of
/// the BLAS layout and allocate nothing (README, "Performance", for the measurements against BLAS).
enum CompactKernels {
    typealias Vector = SIMD8<Float>

    /// Sums over the beacons a query shares with 8 fingerprints (one per lane).
    struct Sums {
        /// Σ both·(q − r)², or Σ both·|q − r| for the absolute kernels.
        var first = Vector(repeating: 0)
        /// Σ both·(q − r), or Σ both·r for the union kernel.
        var second = Vector(repeating: 0)
        /// Number of shared beacons.
        var common = Vector(repeating: 0)
        /// Σ both·r: only the offset kind adds to it (the other kinds leave it 0, and the optimiser drops it).
        var commonReference = Vector(repeating: 0)
    }

    /// The kinds of sums the metrics need.
    enum Kind {
        /// `first` = Σ (q − r)², `second` = Σ (q − r), over shared beacons.
        case squaredDifferences
        /// `first` = Σ |q − r| over shared beacons.
        case absoluteDifferences
        /// `first` = Σ |q − r| over the query's beacons with absent r read as 0, `second` = Σ r there
        /// (Sørensen completes the union with the rows' value sums).
        case unionAbsoluteDifferences
        /// As ``squaredDifferences``, plus `commonReference` = Σ r over shared beacons (the dB-offset metric
        /// recovers both sides' one-sided sums from it and the value sums).
        case squaredDifferencesAndReferenceSum
    }

    /// Calls `body(block, slot, sums)` for every block of 8 rows of `map` that `blocks` selects, in order;
    /// `slot` counts the selected blocks (where a packed buffer keeps the block's distances).
    @inline(__always)
    static func forEachBlock(
        of map: RadioMap, query: QueryVector, kind: Kind, blocks: BlockSelection,
        _ body: (_ block: Int, _ slot: Int, _ sums: Sums) -> Void
    ) {
        let width = map.beaconCount, lanes = RadioMap.lanes
        let zero = Vector(repeating: 0), one = Vector(repeating: 1)
        map.compact.withUnsafeBufferPointer { compact in
            query.presentColumns.withUnsafeBufferPointer { columns in
                query.values.withUnsafeBufferPointer { values in
                    guard let base = compact.baseAddress else { return }
                    let raw = UnsafeRawPointer(base)
                    let stride = MemoryLayout<Vector>.stride
                    let blockStride = width * lanes * MemoryLayout<Float>.stride
                    var slot = 0
                    for (runIndex, run) in blocks.runs.enumerated() {
                      for block in run {
                        let blockBytes = block * blockStride
                        // The next selected block's lines are requested now, so that on a map larger than the
                        // cache they arrive while this block is computed rather than one miss at a time.
                        let next = block + 1 < run.upperBound
                            ? block + 1 : runIndex + 1 < blocks.runs.count ? blocks.runs[runIndex + 1].lowerBound : nil
                        if let next {
                            let nextBlock = raw + next * blockStride
                            for column in columns { beaconfix_prefetch(nextBlock + column * stride) }
                        }
                        var sums = Sums()
                        for column in columns {
                            let reference = raw.loadUnaligned(fromByteOffset: blockBytes + column * stride, as: Vector.self)
                            let absent = reference .< zero
                            let q = Vector(repeating: values[column])
                            switch kind {
                            case .squaredDifferences:
                                let both = one.replacing(with: 0, where: absent)
                                let difference = (q - reference).replacing(with: 0, where: absent)
                                // Not addProduct: the baseline x86-64 target has no FMA, which makes it a libm call per lane.
                                sums.first += difference * difference
                                sums.second += difference
                                sums.common += both
                            case .absoluteDifferences:
                                let both = one.replacing(with: 0, where: absent)
                                let difference = q - reference
                                sums.first += both * difference.replacing(with: -difference, where: difference .< zero)
                                sums.common += both
                            case .unionAbsoluteDifferences:
                                let present = reference.replacing(with: 0, where: absent)
                                let difference = q - present
                                sums.first += difference.replacing(with: -difference, where: difference .< zero)
                                sums.second += present
                                sums.common += one.replacing(with: 0, where: absent)
                            case .squaredDifferencesAndReferenceSum:
                                let both = one.replacing(with: 0, where: absent)
                                let difference = (q - reference).replacing(with: 0, where: absent)
                                sums.first += difference * difference
                                sums.second += difference
                                sums.common += both
                                sums.commonReference += reference.replacing(with: 0, where: absent)
                            }
                        }
                        body(block, slot, sums)
                        slot += 1
                      }
                    }
                }
            }
        }
    }

    /// Rows of `block` that exist (the last block may be partly padding).
    @inline(__always)
    static func rows(of block: Int, in map: RadioMap) -> Range<Int> {
        let first = block * RadioMap.lanes
        return first..<min(first + RadioMap.lanes, map.count)
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
