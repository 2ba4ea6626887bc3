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
    /// measured fastest here with netlib's BLAS and with OpenBLAS (README, "Performance").
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
/// reading the map once (see `SquaredDifferenceSums`).
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
        return finish(sum, onlyQ: Float(overlap.onlyInQuery), onlyR: Float(overlap.onlyInReference), union: overlap.union)
    }

    @inline(__always)
    func finish(_ squares: Float, onlyQ: Float, onlyR: Float, union: Float) -> Float {
        let distance = switch form {
        case .squared: squares + penalty.cost(queryOnly: onlyQ, referenceOnly: onlyR)
        case .root: (squares + penalty.squaredCost(queryOnly: onlyQ, referenceOnly: onlyR)).squareRoot()
        }
        return normalization.apply(distance, union: union)
    }

    public func distances(from query: QueryVector, in map: RadioMap, into distances: UnsafeMutableBufferPointer<Float>) {
        self.distances(from: [query], in: map, into: distances)
    }

    public func distances(from queries: [QueryVector], in map: RadioMap, into distances: UnsafeMutableBufferPointer<Float>) {
        SquaredDifferenceSums.compute(queries, map, kernel: kernel, into: distances) { query, sums in
            guard sums.common > 0.5 else { return .infinity }
            let onlyQ = query.presentCount - sums.common, onlyR = sums.referencePresent - sums.common
            // Rounding can leave a tiny negative sum of squares for identical fingerprints.
            return finish(max(0, sums.squares), onlyQ: onlyQ, onlyR: onlyR, union: onlyQ + onlyR + sums.common)
        }
    }
}

/// Pairwise-difference distance: compares the *differences* between beacons rather than their levels,
/// so any offset common to all beacons of one side (device gain, a different strongest beacon, body
/// attenuation of the whole scene) cancels.
///
/// Over the common beacons with `e = q − r`, the mean over all pairs of `((q_i − q_j) − (r_i − r_j))²`
/// equals `2 · Σ (e − ē)² / c`; this metric is `Σ_common (e − ē)² + Σ_one-sided penalty` (or its root form,
/// as ``EuclideanMetric``), per union beacon by default. The sums it needs, `Σ e²`, `Σ e` and `c`, come from the same single matrix
/// product as ``EuclideanMetric``.
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
        return finish(spread, onlyQ: Float(overlap.onlyInQuery), onlyR: Float(overlap.onlyInReference), union: overlap.union)
    }

    @inline(__always)
    func finish(_ spread: Float, onlyQ: Float, onlyR: Float, union: Float) -> Float {
        let distance = switch form {
        case .squared: spread + penalty.cost(queryOnly: onlyQ, referenceOnly: onlyR)
        case .root: (spread + penalty.squaredCost(queryOnly: onlyQ, referenceOnly: onlyR)).squareRoot()
        }
        return normalization.apply(distance, union: union)
    }

    public func distances(from query: QueryVector, in map: RadioMap, into distances: UnsafeMutableBufferPointer<Float>) {
        self.distances(from: [query], in: map, into: distances)
    }

    public func distances(from queries: [QueryVector], in map: RadioMap, into distances: UnsafeMutableBufferPointer<Float>) {
        SquaredDifferenceSums.compute(queries, map, kernel: kernel, into: distances) { query, sums in
            guard sums.common > 0.5 else { return .infinity }
            let onlyQ = query.presentCount - sums.common, onlyR = sums.referencePresent - sums.common
            // S − D²/c cancels catastrophically when the differences are all alike; below a relative
            // 1e-5 of S the spread is rounding noise (and exactly 0 for a single common beacon).
            var spread = sums.squares - sums.differences * sums.differences / sums.common
            if sums.common < 1.5 || spread <= 1e-5 * sums.squares { spread = 0 }
            return finish(spread, onlyQ: onlyQ, onlyR: onlyR, union: onlyQ + onlyR + sums.common)
        }
    }
}

/// Per-row sums over the beacons a query shares with each reference fingerprint.
struct SquaredDifferenceSums {
    /// Σ_common (q − r)²
    var squares: Float
    /// Σ_common (q − r)
    var differences: Float
    /// Number of common beacons.
    var common: Float
    /// Beacons the reference row sees.
    var referencePresent: Float

    /// Computes the sums for every row of `map` and every query, and writes `finish(query, sums)` at
    /// `output[queryIndex * map.count + row]`. The map is read once for the whole batch.
    ///
    /// BLAS path: `[mask | value | value²] (rows × 3B) × X (3B × 3Q)`; for query `q`, columns `3q ..< 3q + 3` of
    /// `X` are `[[q², m_q, q], [−2q, 0, −m_q], [m_q, 0, 0]]`, so the product's columns are `Σ(q−r)²`, `c` and
    /// `Σ(q−r)` over the beacons the query and the row share. SIMD path: each row is loaded once and compared
    /// with every query while it is in cache.
    @inline(__always)
    static func compute(
        _ queries: [QueryVector], _ map: RadioMap, kernel: DenseKernel, into output: UnsafeMutableBufferPointer<Float>,
        finish: (QueryVector, SquaredDifferenceSums) -> Float
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
                                output[index * rows + row] = finish(query, SquaredDifferenceSums(
                                    squares: sums[0], differences: sums[2], common: sums[1], referencePresent: present[row]))
                            }
                        }
                    }
                }
            case .simd:
                if queries.count == 1 {
                    let query = queries[0]
                    CompactKernels.forEachRow(of: map, query: query) { row, values, q, mask, blocks in
                        let sums = CompactKernels.squaredDifferences(values, q, mask, blocks: blocks)
                        output[row] = finish(query, SquaredDifferenceSums(
                            squares: sums.squares, differences: sums.differences, common: sums.common,
                            referencePresent: present[row]))
                    }
                    return
                }
                let blocks = map.paddedWidth / CompactKernels.Vector.scalarCount
                let rowBytes = map.paddedWidth * MemoryLayout<Float>.stride
                map.compact.withUnsafeBytes { compact in
                    guard let base = compact.baseAddress else { return }
                    for row in 0..<rows {
                        let values = base + row * rowBytes
                        for (index, query) in queries.enumerated() {
                            query.paddedValues.withUnsafeBytes { q in
                                query.paddedMask.withUnsafeBytes { mask in
                                    let sums = CompactKernels.squaredDifferences(values, q.baseAddress!, mask.baseAddress!, blocks: blocks)
                                    output[index * rows + row] = finish(query, SquaredDifferenceSums(
                                        squares: sums.squares, differences: sums.differences, common: sums.common,
                                        referencePresent: present[row]))
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
