import CBLAS

/// Whether the squared-Euclidean family takes the square root.
public enum EuclideanForm: Hashable, Sendable {
    /// `Σ d² + Σ penalties`: the penalties add linearly to the squared differences. Measured better on
    /// the shared datasets (a missing beacon costs the same whatever the other differences are).
    case squared
    /// `sqrt(Σ d² + Σ penalties²)`: the textbook L2 norm.
    case root
}

/// How the squared-Euclidean family computes its per-row sums.
public enum DenseKernel: Hashable, Sendable {
    /// One `sgemm` over the `[mask | value | value²]` matrix (BLAS; OpenBLAS can replace netlib's without
    /// relinking).
    case blas
    /// A vectorised loop over the compact matrix: a third of the bytes, no library call. The default: it
    /// measured fastest here with netlib's BLAS and with OpenBLAS (docs/decisions/2026-11-22-simd-kernel-over-blas.md).
    case simd
}

/// L2 distance: `Σ_common (q − r)² + Σ_one-sided penalty` (``EuclideanForm/squared``, the default) or
/// `sqrt(Σ_common (q − r)² + Σ_one-sided penalty²)` (``EuclideanForm/root``), per union beacon by default.
///
/// The bulk form is one matrix product. With the radio map's row layout `[mask | value | value²]`,
/// the common-beacon squared distance and the common count of every row are
///
///     Σ_common (q − r)² = mask · q²  − 2 value · q  + value² · m_q
///     common            = mask · m_q
///
/// so one `sgemm` of the map with a 3-column operand built from the query gives them for every row,
/// reading the map once (see `SquaredDifferenceSums`). The SIMD kernel computes the same sums on the
/// compact matrix.
public struct EuclideanMetric: FingerprintMetric, Hashable {
    public var penalty: AbsencePenalty
    public var normalization: DistanceNormalization
    public var form: EuclideanForm
    public var kernel: DenseKernel

    public init(
        penalty: AbsencePenalty = AbsencePenalty(0.5), normalization: DistanceNormalization = .perUnionBeacon,
        form: EuclideanForm = .squared, kernel: DenseKernel = .simd
    ) {
        self.penalty = penalty
        self.normalization = normalization
        self.form = form
        self.kernel = kernel
    }

    public func distance(_ query: Fingerprint, _ reference: Fingerprint) -> Float? {
        let overlap = Overlap(query, reference)
        guard overlap.common > 0 else { return nil }
        var sum: Float = 0
        for (beacon, entry) in query.entries {
            if let other = reference.entries[beacon] {
                let difference = entry.relativePower - other.relativePower
                sum += difference * difference
            }
        }
        return finish(SquaredDifferenceSums(
            squares: sum, differences: 0, common: Float(overlap.common), queryPresent: Float(query.entries.count),
            referencePresent: Float(reference.entries.count)))[0]
    }

    /// Distances of 8 rows (or one, broadcast) from their sums.
    @inline(__always)
    func finish(_ sums: SquaredDifferenceSums) -> SIMD8<Float> {
        let onlyQ = sums.queryPresent - sums.common, onlyR = sums.referencePresent - sums.common
        // Rounding can leave a tiny negative sum of squares for identical fingerprints.
        let squares = sums.squares.replacing(with: 0, where: sums.squares .< 0)
        let distance = switch form {
        case .squared: squares + penalty.cost(queryOnly: onlyQ, referenceOnly: onlyR)
        case .root: (squares + penalty.squaredCost(queryOnly: onlyQ, referenceOnly: onlyR)).squareRoot()
        }
        return normalization.apply(distance, union: onlyQ + onlyR + sums.common)
            .replacing(with: .infinity, where: sums.common .< 0.5)
    }

    public func distances(
        from query: QueryVector, in map: RadioMap, blocks: BlockSelection, into distances: UnsafeMutableBufferPointer<Float>
    ) {
        SquaredDifferenceSums.compute(query, map, kernel: kernel, blocks: blocks, into: distances, finish: finish)
    }

    public func distances(from queries: [QueryVector], in map: RadioMap, into distances: UnsafeMutableBufferPointer<Float>) {
        SquaredDifferenceSums.compute(queries, map, kernel: kernel, into: distances, finish: finish)
    }
}

/// Pairwise-difference distance: compares the *differences* between beacons rather than their levels,
/// so any offset common to all beacons of one side (device gain, a different strongest beacon, body
/// attenuation of the whole scene) cancels.
///
/// Over the common beacons with `e = q − r`, the mean over all pairs of `((q_i − q_j) − (r_i − r_j))²`
/// equals `2 · Σ (e − ē)² / c`; this metric is `Σ_common (e − ē)² + Σ_one-sided penalty` (or its root form,
/// as ``EuclideanMetric``), per union beacon by default. The sums it needs, `Σ e²`, `Σ e` and `c`, come
/// from the same single matrix product as ``EuclideanMetric``.
public struct PairwiseDifferenceMetric: FingerprintMetric, Hashable {
    public var penalty: AbsencePenalty
    public var normalization: DistanceNormalization
    public var form: EuclideanForm
    public var kernel: DenseKernel

    public init(
        penalty: AbsencePenalty = AbsencePenalty(0.5), normalization: DistanceNormalization = .perUnionBeacon,
        form: EuclideanForm = .squared, kernel: DenseKernel = .simd
    ) {
        self.penalty = penalty
        self.normalization = normalization
        self.form = form
        self.kernel = kernel
    }

    public func distance(_ query: Fingerprint, _ reference: Fingerprint) -> Float? {
        let overlap = Overlap(query, reference)
        guard overlap.common > 0 else { return nil }
        var differences: [Float] = []
        for (beacon, entry) in query.entries {
            if let other = reference.entries[beacon] { differences.append(entry.relativePower - other.relativePower) }
        }
        let mean = differences.reduce(0, +) / Float(differences.count)
        let spread = differences.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        let distance = switch form {
        case .squared: spread + penalty.cost(queryOnly: Float(overlap.onlyInQuery), referenceOnly: Float(overlap.onlyInReference))
        case .root:
            (spread + penalty.squaredCost(queryOnly: Float(overlap.onlyInQuery), referenceOnly: Float(overlap.onlyInReference)))
                .squareRoot()
        }
        return normalization.apply(distance, union: overlap.union)
    }

    /// Distances of 8 rows from their sums.
    @inline(__always)
    func finish(_ sums: SquaredDifferenceSums) -> SIMD8<Float> {
        let onlyQ = sums.queryPresent - sums.common, onlyR = sums.referencePresent - sums.common
        let common = sums.common.replacing(with: 1, where: sums.common .< 1)
        // S − D²/c cancels catastrophically when the differences are all alike; below a relative 1e-5 of S
        // the spread is rounding noise (and exactly 0 for a single common beacon).
        var spread = sums.squares - sums.differences * sums.differences / common
        spread.replace(with: 0, where: (sums.common .< 1.5) .| (spread .<= 1e-5 * sums.squares))
        let distance = switch form {
        case .squared: spread + penalty.cost(queryOnly: onlyQ, referenceOnly: onlyR)
        case .root: (spread + penalty.squaredCost(queryOnly: onlyQ, referenceOnly: onlyR)).squareRoot()
        }
        return normalization.apply(distance, union: onlyQ + onlyR + sums.common)
            .replacing(with: .infinity, where: sums.common .< 0.5)
    }

    public func distances(
        from query: QueryVector, in map: RadioMap, blocks: BlockSelection, into distances: UnsafeMutableBufferPointer<Float>
    ) {
        SquaredDifferenceSums.compute(query, map, kernel: kernel, blocks: blocks, into: distances, finish: finish)
    }

    public func distances(from queries: [QueryVector], in map: RadioMap, into distances: UnsafeMutableBufferPointer<Float>) {
        SquaredDifferenceSums.compute(queries, map, kernel: kernel, into: distances, finish: finish)
    }
}

/// Sums over the beacons a query shares with 8 rows at a time (one per lane; scalar callers broadcast).
struct SquaredDifferenceSums {
    typealias Vector = SIMD8<Float>
    /// Σ_common (q − r)²
    var squares: Vector
    /// Σ_common (q − r)
    var differences: Vector
    /// Number of common beacons.
    var common: Vector
    /// Beacons the query sees.
    var queryPresent: Vector
    /// Beacons each row sees.
    var referencePresent: Vector

    init(squares: Vector, differences: Vector, common: Vector, queryPresent: Vector, referencePresent: Vector) {
        self.squares = squares
        self.differences = differences
        self.common = common
        self.queryPresent = queryPresent
        self.referencePresent = referencePresent
    }

    /// One row's sums, broadcast to every lane.
    init(squares: Float, differences: Float, common: Float, queryPresent: Float, referencePresent: Float) {
        self.init(
            squares: Vector(repeating: squares), differences: Vector(repeating: differences), common: Vector(repeating: common),
            queryPresent: Vector(repeating: queryPresent), referencePresent: Vector(repeating: referencePresent))
    }

    /// One query's distances to the rows of the blocks `blocks` selects, packed (``BlockSelection``). The
    /// BLAS kernel multiplies the whole matrix and keeps the selected rows.
    @inline(__always)
    static func compute(
        _ query: QueryVector, _ map: RadioMap, kernel: DenseKernel, blocks: BlockSelection,
        into output: UnsafeMutableBufferPointer<Float>, finish: (SquaredDifferenceSums) -> Vector
    ) {
        guard map.count > 0 else { return }
        switch kernel {
        case .blas:
            withUnsafeTemporaryAllocation(of: Float.self, capacity: map.count) { full in
                compute([query], map, kernel: .blas, into: full, finish: finish)
                blocks.gather(UnsafeBufferPointer(full), in: map, into: output)
            }
        case .simd:
            map.presentCount.withUnsafeBytes { present in
                let queryPresent = Vector(repeating: query.presentCount)
                CompactKernels.forEachBlock(of: map, query: query, kind: CompactKernels.SquaredDifferences.self, blocks: blocks) { block, slot, sums in
                    let referencePresent = present.loadUnaligned(fromByteOffset: block * MemoryLayout<Vector>.stride, as: Vector.self)
                    let distances = finish(SquaredDifferenceSums(
                        squares: sums.first, differences: sums.second, common: sums.common, queryPresent: queryPresent,
                        referencePresent: referencePresent))
                    CompactKernels.store(distances, slot: slot, capacity: output.count, into: output.baseAddress!)
                }
            }
        }
    }

    /// Computes the sums for every row of `map` and every query, and writes the distances `finish` makes of
    /// them at `output[queryIndex * map.count + row]`.
    ///
    /// BLAS path: `[mask | value | value²] (rows × 3B) × X (3B × 3Q)`; for query `q`, columns `3q ..< 3q + 3` of
    /// `X` are `[[q², m_q, q], [−2q, 0, −m_q], [m_q, 0, 0]]`, so the product's columns are `Σ(q−r)²`, `c` and
    /// `Σ(q−r)` over the beacons the query and the row share; the map is read once for the whole batch.
    /// SIMD path: 8 rows at a time, one per lane, distances finished and stored 8 at a time.
    @inline(__always)
    static func compute(
        _ queries: [QueryVector], _ map: RadioMap, kernel: DenseKernel, into output: UnsafeMutableBufferPointer<Float>,
        finish: (SquaredDifferenceSums) -> Vector
    ) {
        guard map.count > 0, !queries.isEmpty else { return }
        let width = map.beaconCount, stride = map.rowStride, rows = map.count
        map.presentCount.withUnsafeBufferPointer { present in
            switch kernel {
            case .blas:
                let columns = 3 * queries.count
                withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * width * columns) { operand in
                    for (index, query) in queries.enumerated() {
                        for column in 0..<width {
                            let maskRow = column * columns, valueRow = (width + column) * columns
                            let squareRow = (2 * width + column) * columns
                            let first = 3 * index
                            operand[maskRow + first] = query.squares[column]
                            operand[maskRow + first + 1] = query.mask[column]
                            operand[maskRow + first + 2] = query.values[column]
                            operand[valueRow + first] = -2 * query.values[column]
                            operand[valueRow + first + 1] = 0
                            operand[valueRow + first + 2] = -query.mask[column]
                            operand[squareRow + first] = query.mask[column]
                            operand[squareRow + first + 1] = 0
                            operand[squareRow + first + 2] = 0
                        }
                    }
                    withUnsafeTemporaryAllocation(of: Float.self, capacity: columns * rows) { product in
                        map.matrix.withUnsafeBufferPointer { matrix in
                            cblas_sgemm(
                                CblasRowMajor, CblasNoTrans, CblasNoTrans,
                                Int32(rows), Int32(columns), Int32(stride),
                                1, matrix.baseAddress, Int32(stride),
                                operand.baseAddress, Int32(columns),
                                0, product.baseAddress, Int32(columns))
                        }
                        for (index, query) in queries.enumerated() {
                            let first = 3 * index
                            for row in 0..<rows {
                                let sums = product.baseAddress! + row * columns + first
                                output[index * rows + row] = finish(SquaredDifferenceSums(
                                    squares: sums[0], differences: sums[2], common: sums[1], queryPresent: query.presentCount,
                                    referencePresent: present[row]))[0]
                            }
                        }
                    }
                }
            case .simd:
                let presentBlocks = UnsafeRawPointer(present.baseAddress!)
                for (index, query) in queries.enumerated() {
                    let queryPresent = Vector(repeating: query.presentCount)
                    let target = output.baseAddress! + index * rows
                    CompactKernels.forEachBlock(of: map, query: query, kind: CompactKernels.SquaredDifferences.self, blocks: .all(of: map)) { block, slot, sums in
                        let referencePresent = presentBlocks.loadUnaligned(
                            fromByteOffset: block * MemoryLayout<Vector>.stride, as: Vector.self)
                        let distances = finish(SquaredDifferenceSums(
                            squares: sums.first, differences: sums.second, common: sums.common, queryPresent: queryPresent,
                            referencePresent: referencePresent))
                        CompactKernels.store(distances, slot: slot, capacity: rows, into: target)
                    }
                }
            }
        }
    }
}
