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
    /// One `sgemm` over the whole map (BLAS; OpenBLAS can replace netlib's without relinking).
    case blas
    /// A plain loop over the rows: the reference the BLAS path is measured against.
    case loop
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
        form: EuclideanForm = .squared, kernel: DenseKernel = .blas
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
        SquaredDifferenceSums.compute(query, map, kernel: kernel, into: distances) { sums in
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
        form: EuclideanForm = .squared, kernel: DenseKernel = .blas
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
        SquaredDifferenceSums.compute(query, map, kernel: kernel, into: distances) { sums in
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

    /// Computes the sums for every row of `map` and writes `finish(sums)` into `output`.
    ///
    /// BLAS path: `[mask | value | value²] (rows × 3B) × X (3B × 3)` with
    /// `X = [[q², m_q, q], [−2q, 0, −m_q], [m_q, 0, 0]]`, so the columns of the product are
    /// `Σ(q−r)²`, `c` and `Σ(q−r)` over common beacons.
    @inline(__always)
    static func compute(
        _ query: QueryVector, _ map: RadioMap, kernel: DenseKernel, into output: UnsafeMutableBufferPointer<Float>,
        finish: (SquaredDifferenceSums) -> Float
    ) {
        guard map.count > 0 else { return }
        let width = map.beaconCount, stride = map.rowStride
        map.matrix.withUnsafeBufferPointer { matrix in
            map.presentCount.withUnsafeBufferPointer { present in
                switch kernel {
                case .blas:
                    withUnsafeTemporaryAllocation(of: Float.self, capacity: 9 * width) { operand in
                        for column in 0..<width {
                            let maskRow = 3 * column, valueRow = 3 * (width + column), squareRow = 3 * (2 * width + column)
                            operand[maskRow] = query.squares[column]
                            operand[maskRow + 1] = query.mask[column]
                            operand[maskRow + 2] = query.values[column]
                            operand[valueRow] = -2 * query.values[column]
                            operand[valueRow + 1] = 0
                            operand[valueRow + 2] = -query.mask[column]
                            operand[squareRow] = query.mask[column]
                            operand[squareRow + 1] = 0
                            operand[squareRow + 2] = 0
                        }
                        withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * map.count) { product in
                            cblas_sgemm(
                                CblasRowMajor, CblasNoTrans, CblasNoTrans,
                                Int32(map.count), 3, Int32(stride),
                                1, matrix.baseAddress, Int32(stride),
                                operand.baseAddress, 3,
                                0, product.baseAddress, 3)
                            for row in 0..<map.count {
                                output[row] = finish(SquaredDifferenceSums(
                                    squares: product[3 * row], differences: product[3 * row + 2],
                                    common: product[3 * row + 1], referencePresent: present[row]))
                            }
                        }
                    }
                case .loop:
                    query.values.withUnsafeBufferPointer { q in
                        query.mask.withUnsafeBufferPointer { qMask in
                            for row in 0..<map.count {
                                let base = row * stride
                                var squares: Float = 0, differences: Float = 0, common: Float = 0
                                for column in 0..<width {
                                    let both = qMask[column] * matrix[base + column]
                                    let difference = both * (q[column] - matrix[base + width + column])
                                    squares += difference * difference
                                    differences += difference
                                    common += both
                                }
                                output[row] = finish(SquaredDifferenceSums(
                                    squares: squares, differences: differences, common: common,
                                    referencePresent: present[row]))
                            }
                        }
                    }
                }
            }
        }
    }
}
