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

    public func distances(
        from query: QueryVector, in map: RadioMap, blocks: BlockSelection, into distances: UnsafeMutableBufferPointer<Float>
    ) {
        let penalty = self.penalty
        let queryPresent = SIMD8<Float>(repeating: query.presentCount), queryValues = SIMD8<Float>(repeating: query.valueSum)
        map.presentCount.withUnsafeBytes { present in
            map.valueSum.withUnsafeBytes { valueSum in
                CompactKernels.forEachBlock(of: map, query: query, kind: CompactKernels.UnionAbsoluteDifferences.self, blocks: blocks) { block, slot, sums in
                    let referencePresent = present.loadUnaligned(fromByteOffset: block * 32, as: SIMD8<Float>.self)
                    let referenceValues = valueSum.loadUnaligned(fromByteOffset: block * 32, as: SIMD8<Float>.self)
                    // Beacons only the row sees add their own value: the row's total minus what the query's beacons took.
                    let numerator = sums.first + (referenceValues - sums.second)
                    let absent = penalty.cost(queryOnly: queryPresent - sums.common, referenceOnly: referencePresent - sums.common)
                    let total = queryValues + referenceValues + absent
                    let result = ((numerator + absent) / total.replacing(with: 1, where: total .<= 0))
                        .replacing(with: 0, where: total .<= 0)
                        .replacing(with: .infinity, where: sums.common .< 0.5)
                    CompactKernels.store(result, slot: slot, capacity: distances.count, into: distances.baseAddress!)
                }
            }
        }
    }
}
