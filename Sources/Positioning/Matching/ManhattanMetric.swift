/// L1 distance, the original fingerprinting method: the sum over common beacons of the absolute
/// difference of relative power, plus the ``AbsencePenalty`` of every beacon present on one side only.
public struct ManhattanMetric: FingerprintMetric, Hashable {
    public var penalty: AbsencePenalty
    public var normalization: DistanceNormalization

    public init(penalty: AbsencePenalty = AbsencePenalty(0.5), normalization: DistanceNormalization = .perUnionBeacon) {
        self.penalty = penalty
        self.normalization = normalization
    }

    public func distance(_ query: Fingerprint, _ reference: Fingerprint) -> Float? {
        let overlap = Overlap(query, reference)
        guard overlap.common > 0 else { return nil }
        var sum: Float = 0
        for (beacon, entry) in query.entries {
            if let other = reference.entries[beacon] { sum += abs(entry.relativePower - other.relativePower) }
        }
        let absent = penalty.cost(queryOnly: Float(overlap.onlyInQuery), referenceOnly: Float(overlap.onlyInReference))
        return normalization.apply(sum + absent, union: overlap.union)
    }

    public func distances(
        from query: QueryVector, in map: RadioMap, blocks: BlockSelection, into distances: UnsafeMutableBufferPointer<Float>
    ) {
        let penalty = self.penalty, normalization = self.normalization
        let queryPresent = SIMD8<Float>(repeating: query.presentCount)
        map.presentCount.withUnsafeBytes { present in
            CompactKernels.forEachBlock(of: map, query: query, kind: CompactKernels.AbsoluteDifferences.self, blocks: blocks) { block, slot, sums in
                let referencePresent = present.loadUnaligned(fromByteOffset: block * 32, as: SIMD8<Float>.self)
                let onlyQ = queryPresent - sums.common, onlyR = referencePresent - sums.common
                let result = normalization.apply(
                    sums.first + penalty.cost(queryOnly: onlyQ, referenceOnly: onlyR), union: onlyQ + onlyR + sums.common)
                CompactKernels.store(
                    result.replacing(with: .infinity, where: sums.common .< 0.5), slot: slot, capacity: distances.count,
                    into: distances.baseAddress!)
            }
        }
    }
}
