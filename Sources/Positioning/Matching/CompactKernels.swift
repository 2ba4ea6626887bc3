/// Vectorised loops over a radio map's compact matrix (8 beacons per SIMD register). They read a third
/// of the bytes of the BLAS layout and allocate nothing: on this project's 2-core machine they beat
/// netlib's reference `sgemm` several times over (see README, "Performance").
enum CompactKernels {
    typealias Vector = SIMD8<Float>

    /// Calls `body(row, rowPointer)` for every row, with the query's padded values and mask as vectors.
    @inline(__always)
    static func forEachRow(
        of map: RadioMap, query: QueryVector,
        _ body: (_ row: Int, _ values: UnsafeRawPointer, _ query: UnsafeRawPointer, _ mask: UnsafeRawPointer, _ blocks: Int) -> Void
    ) {
        let blocks = map.paddedWidth / Vector.scalarCount
        let rowBytes = map.paddedWidth * MemoryLayout<Float>.stride
        map.compact.withUnsafeBytes { compact in
            query.paddedValues.withUnsafeBytes { values in
                query.paddedMask.withUnsafeBytes { mask in
                    guard let base = compact.baseAddress, let q = values.baseAddress, let m = mask.baseAddress else { return }
                    for row in 0..<map.count {
                        body(row, base + row * rowBytes, q, m, blocks)
                    }
                }
            }
        }
    }

    @inline(__always)
    static func load(_ pointer: UnsafeRawPointer, block: Int) -> Vector {
        pointer.loadUnaligned(fromByteOffset: block * MemoryLayout<Vector>.stride, as: Vector.self)
    }

    /// Σ both·(q − r)², Σ both·(q − r) and Σ both over one row, where `both` selects the beacons both sides see.
    @inline(__always)
    static func squaredDifferences(
        _ row: UnsafeRawPointer, _ query: UnsafeRawPointer, _ mask: UnsafeRawPointer, blocks: Int
    ) -> (squares: Float, differences: Float, common: Float) {
        var squares = Vector(repeating: 0), differences = Vector(repeating: 0), common = Vector(repeating: 0)
        for block in 0..<blocks {
            let reference = load(row, block: block)
            let both = load(mask, block: block).replacing(with: 0, where: reference .< 0)
            let difference = both * (load(query, block: block) - reference)
            squares.addProduct(difference, difference)
            differences += difference
            common += both
        }
        return (squares.sum(), differences.sum(), common.sum())
    }

    /// Σ both·|q − r| and Σ both over one row.
    @inline(__always)
    static func absoluteDifferences(
        _ row: UnsafeRawPointer, _ query: UnsafeRawPointer, _ mask: UnsafeRawPointer, blocks: Int
    ) -> (sum: Float, common: Float) {
        var sum = Vector(repeating: 0), common = Vector(repeating: 0)
        for block in 0..<blocks {
            let reference = load(row, block: block)
            let both = load(mask, block: block).replacing(with: 0, where: reference .< 0)
            let difference = load(query, block: block) - reference
            sum.addProduct(both, difference.replacing(with: -difference, where: difference .< 0))
            common += both
        }
        return (sum.sum(), common.sum())
    }

    /// Σ over the union of |q − r| with absent values read as 0, and Σ both, over one row.
    @inline(__always)
    static func unionAbsoluteDifferences(
        _ row: UnsafeRawPointer, _ query: UnsafeRawPointer, _ mask: UnsafeRawPointer, blocks: Int
    ) -> (sum: Float, common: Float) {
        var sum = Vector(repeating: 0), common = Vector(repeating: 0)
        let zero = Vector(repeating: 0)
        for block in 0..<blocks {
            let reference = load(row, block: block)
            let absent = reference .< 0
            let difference = load(query, block: block) - reference.replacing(with: zero, where: absent)
            sum += difference.replacing(with: -difference, where: difference .< 0)
            common += load(mask, block: block).replacing(with: 0, where: absent)
        }
        return (sum.sum(), common.sum())
    }
}
