/// Sørensen (Bray–Curtis) distance with an explicit penalty:
///
///     (Σ_union |q − r| + penalty) / (Σ q + Σ r + penalty)
///
/// where a beacon missing on one side counts as relative power 0 there and `penalty` is the
/// ``AbsencePenalty`` of the one-sided beacons (0 gives the classical Bray–Curtis, whose one-sided
/// beacons already cost their own power). It lies in 0...1 whatever the number of beacons. With
/// the power-ratio representation it measured best of all metrics on windows of several samples.
public struct SorensenMetric: FingerprintMetric, Hashable {
    public var penalty: AbsencePenalty

    public init(penalty: AbsencePenalty = AbsencePenalty(0)) {
        self.penalty = penalty
    }

    public func distance(_ query: Fingerprint, _ reference: Fingerprint) -> Float? {
        let overlap = Overlap(query, reference)
        guard overlap.common > 0 else { return nil }
        var numerator: Float = 0, denominator: Float = 0
        for (beacon, entry) in query.entries {
            let other = reference.entries[beacon]?.relativePower ?? 0
            numerator += abs(entry.relativePower - other)
            denominator += entry.relativePower
        }
        for (beacon, entry) in reference.entries {
            denominator += entry.relativePower
            if query.entries[beacon] == nil { numerator += entry.relativePower }
        }
        let absent = penalty.cost(queryOnly: Float(overlap.onlyInQuery), referenceOnly: Float(overlap.onlyInReference))
        let total = denominator + absent
        return total > 0 ? (numerator + absent) / total : 0
    }

    public func distances(from query: QueryVector, in map: RadioMap, into distances: UnsafeMutableBufferPointer<Float>) {
        let penalty = self.penalty
        map.presentCount.withUnsafeBufferPointer { present in
            map.valueSum.withUnsafeBufferPointer { valueSum in
                CompactKernels.forEachRow(of: map, query: query) { row, values, q, mask, blocks in
                    let sums = CompactKernels.unionAbsoluteDifferences(values, q, mask, blocks: blocks)
                    guard sums.common > 0.5 else {
                        distances[row] = .infinity
                        return
                    }
                    let absent = penalty.cost(queryOnly: query.presentCount - sums.common, referenceOnly: present[row] - sums.common)
                    let total = query.valueSum + valueSum[row] + absent
                    distances[row] = total > 0 ? (sums.sum + absent) / total : 0
                }
            }
        }
    }
}
