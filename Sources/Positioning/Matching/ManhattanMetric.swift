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

    public func distances(from query: QueryVector, in map: RadioMap, into distances: UnsafeMutableBufferPointer<Float>) {
        let width = map.beaconCount, stride = map.rowStride
        let penalty = self.penalty, normalization = self.normalization
        map.matrix.withUnsafeBufferPointer { matrix in
            query.values.withUnsafeBufferPointer { q in
                query.mask.withUnsafeBufferPointer { qMask in
                    map.presentCount.withUnsafeBufferPointer { present in
                        for row in 0..<map.count {
                            let base = row * stride
                            var sum: Float = 0, common: Float = 0
                            for column in 0..<width {
                                // Both masks are 0 or 1, so their product selects the common beacons
                                // without a branch.
                                let both = qMask[column] * matrix[base + column]
                                sum += both * abs(q[column] - matrix[base + width + column])
                                common += both
                            }
                            guard common > 0 else {
                                distances[row] = .infinity
                                continue
                            }
                            let onlyQ = query.presentCount - common, onlyR = present[row] - common
                            distances[row] = normalization.apply(
                                sum + penalty.cost(queryOnly: onlyQ, referenceOnly: onlyR), union: onlyQ + onlyR + common)
                        }
                    }
                }
            }
        }
    }
}
