import MatcherKernels

/// Compares RSSI on the dB scale itself, after taking out the constant offset that best aligns the two
/// fingerprints, and charges a one-sided beacon by how loud it is.
///
/// Why dB rather than relative powers (``SignalRepresentation/relativePower``, `max(0, 1 − Δ/35)²` of the
/// gap to the strongest beacon):
/// - **Weak beacons keep their information.** The relative-power scale squeezes a beacon 25 dB below the
///   strongest into the bottom 8% of its range and everything beyond 35 dB to 0, so far beacons hardly
///   count, although a dB of change means as much for them. Here every beacon's level is in dB above
///   ``floor`` (``SignalRepresentation/decibels(floor:)``).
/// - **A phone's gain cancels.** Phones read every beacon a few dB apart (antenna, case, chipset): a
///   constant offset over all beacons. With `e = q − r` in dB over the `c` beacons both sides hear, the
///   spread
///
///       Σ e² − (Σ e)² / (c + λ)      (λ = ``offsetShrinkage``)
///
///   is the least `Σ (e − o)² + λ·o²` over an offset `o`: the offset a gain would explain is removed, at
///   a price of λ per dB². λ = 0 removes the best offset, so a constant gain cancels exactly (the spread is
///   `Σ (e − ē)²`); a larger λ removes only part of it, so that two or three common beacons, too few to
///   tell a gain from a real difference, cannot explain a difference away; `nil` removes none (`Σ e²`).
/// - **Absence is scaled by loudness.** A beacon heard on one side only costs the penalty times its level
///   above the floor: a loud beacon the other side does not hear is strong evidence against the match,
///   one at the noise floor was likely just missed. ``penalty`` is therefore in dB² per dB of level.
///
/// The distance is `(spread + queryOnly · Σ q over query-only beacons + referenceOnly · Σ r over
/// reference-only beacons) / |union of beacons|`; no common beacon gives no distance. It is on a dB² scale,
/// so thresholds tuned for relative-power metrics (``Locator/maximumDistance``) do not carry over.
public struct DecibelOffsetMetric: FingerprintMetric, Hashable {
    /// The level in dBm that counts as 0: readings at or below it are heard, with level 0.
    public var floor: Float
    /// The cost per dB of level of a beacon heard on one side only, in dB² per dB.
    public var penalty: AbsencePenalty
    /// λ, the price per dB² of the offset taken out (at least 0); `nil` takes out none.
    public var offsetShrinkage: Float?

    /// - Parameters:
    ///   - floor: dBm that counts as level 0; -100 is below what BLE phones report for a usable beacon.
    ///   - penalty: defaults to 5 dB² per dB for a beacon only the query hears (a beacon heard now but
    ///     never there in the survey) and 2 for one only the reference hears (live scans miss readings).
    ///     A beacon 40 dB above the floor missing from the reference then costs as much as a 14 dB error.
    ///   - offsetShrinkage: λ ≥ 0, or `nil`; 0 (the default) lets a constant gain cancel.
    public init(
        floor: Float = -100, penalty: AbsencePenalty = AbsencePenalty(queryOnly: 5, referenceOnly: 2),
        offsetShrinkage: Float? = 0
    ) {
        precondition(offsetShrinkage.map { $0 >= 0 } ?? true, "offsetShrinkage must be at least 0")
        self.floor = floor
        self.penalty = penalty
        self.offsetShrinkage = offsetShrinkage
    }

    /// dB above ``floor``: a map read by this metric must be built with it.
    public var representation: SignalRepresentation { .decibels(floor: floor) }

    public func distance(_ query: Fingerprint, _ reference: Fingerprint) -> Float? {
        // The plain definition, in Double: the bulk form is held to it.
        func level(_ entry: FingerprintEntry) -> Double { Double(max(0, Float(entry.meanRSSI) - floor)) }
        var common = 0
        var squares: Double = 0, differences: Double = 0, queryOnly: Double = 0, referenceOnly: Double = 0
        for (beacon, entry) in query.entries {
            if let other = reference.entries[beacon] {
                let difference = level(entry) - level(other)
                squares += difference * difference
                differences += difference
                common += 1
            } else {
                queryOnly += level(entry)
            }
        }
        guard common > 0 else { return nil }
        for (beacon, entry) in reference.entries where query.entries[beacon] == nil {
            referenceOnly += level(entry)
        }
        let removed = offsetShrinkage.map { differences * differences / (Double(common) + Double($0)) } ?? 0
        let spread = max(0, squares - removed)
        let absent = Double(penalty.queryOnly) * queryOnly + Double(penalty.referenceOnly) * referenceOnly
        let union = query.entries.count + reference.entries.count - common
        return Float((spread + absent) / Double(union))
    }

    /// The SIMD kernel over the compact matrix, 8 rows at a time. Besides Σ e², Σ e and c it needs Σ r over
    /// the common beacons: the one-sided sums then come from the value sums, `Σ q(query-only) = Σ q − (Σ e +
    /// Σ r(common))` and `Σ r(reference-only) = Σ r − Σ r(common)`, so only the query's columns are visited.
    /// A CPU with AVX2 runs MatcherKernels' loop, which gives the same distances to the bit.
    public func distances(
        from query: QueryVector, in map: RadioMap, blocks: BlockSelection, into distances: UnsafeMutableBufferPointer<Float>
    ) {
        self.distances(from: query, in: map, blocks: blocks, into: distances, wide: CompactKernels.wideLoopsAvailable)
    }

    /// ``distances(from:in:blocks:into:)`` through the AVX2 loop (`wide`, where the CPU has it) or the Swift one.
    func distances(
        from query: QueryVector, in map: RadioMap, blocks: BlockSelection, into distances: UnsafeMutableBufferPointer<Float>,
        wide: Bool
    ) {
        precondition(
            map.representation == representation,
            "DecibelOffsetMetric compares dB above \(floor); the map holds \(map.representation): build it with the metric's representation")
        if wide {
            wideDistances(from: query, in: map, blocks: blocks, into: distances)
            return
        }
        typealias Vector = SIMD8<Float>
        let penalty = self.penalty
        let removesOffset = offsetShrinkage != nil, shrinkage = Vector(repeating: offsetShrinkage ?? 0)
        let queryPresent = Vector(repeating: query.presentCount), queryValues = Vector(repeating: query.valueSum)
        map.presentCount.withUnsafeBytes { present in
            map.valueSum.withUnsafeBytes { valueSum in
                CompactKernels.forEachBlock(of: map, query: query, kind: CompactKernels.SquaredDifferencesAndReferenceSum.self, blocks: blocks) { block, slot, sums in
                    let offset = block * MemoryLayout<Vector>.stride
                    let referencePresent = present.loadUnaligned(fromByteOffset: offset, as: Vector.self)
                    let referenceValues = valueSum.loadUnaligned(fromByteOffset: offset, as: Vector.self)
                    let noCommon = sums.common .< 0.5
                    var spread = sums.first
                    if removesOffset {
                        let denominator = (sums.common + shrinkage).replacing(with: 1, where: noCommon)
                        spread -= sums.second * sums.second / denominator
                        // S − D²/(c + λ) cancels catastrophically when the differences are all alike (a pure
                        // gain); below a relative 1e-5 of S the spread is rounding noise, and never negative.
                        spread.replace(with: 0, where: spread .<= 1e-5 * sums.first)
                    }
                    // Rounding can leave a one-sided sum a hair below 0 when a side has no one-sided beacon.
                    var queryOnly = queryValues - (sums.second + sums.commonReference)
                    queryOnly.replace(with: 0, where: queryOnly .< 0)
                    var referenceOnly = referenceValues - sums.commonReference
                    referenceOnly.replace(with: 0, where: referenceOnly .< 0)
                    let union = queryPresent + referencePresent - sums.common
                    let result = ((spread + penalty.cost(queryOnly: queryOnly, referenceOnly: referenceOnly))
                        / union.replacing(with: 1, where: union .< 1))
                        .replacing(with: .infinity, where: noCommon)
                    CompactKernels.store(result, slot: slot, capacity: distances.count, into: distances.baseAddress!)
                }
            }
        }
    }

    /// MatcherKernels' AVX2 loop over the whole selection: each block's sums and its 8 distances in one call,
    /// the same operations in the same order per lane as the Swift loop and its finishing above.
    private func wideDistances(
        from query: QueryVector, in map: RadioMap, blocks: BlockSelection, into distances: UnsafeMutableBufferPointer<Float>
    ) {
        var metric = beaconfix_offset_metric(
            query_present: query.presentCount, query_value_sum: query.valueSum, offset_shrinkage: offsetShrinkage ?? 0,
            removes_offset: offsetShrinkage == nil ? 0 : 1, query_only_penalty: penalty.queryOnly,
            reference_only_penalty: penalty.referenceOnly)
        blocks.withBounds { runs, runCount in
            map.presentCount.withUnsafeBufferPointer { present in
                map.valueSum.withUnsafeBufferPointer { valueSum in
                    query.values.withUnsafeBufferPointer { queryValues in
                        var rows = beaconfix_offset_rows(
                            present_count: present.baseAddress, value_sum: valueSum.baseAddress,
                            distances: distances.baseAddress, capacity: distances.count)
                        switch map.storage {
                        case .dense(let values):
                            values.withUnsafeBufferPointer { values in
                                query.presentColumns.withUnsafeBufferPointer { columns in
                                    beaconfix_offset_distances_dense_avx2(
                                        values.baseAddress, map.beaconCount, runs, runCount, columns.baseAddress, columns.count,
                                        queryValues.baseAddress, &metric, &rows)
                                }
                            }
                        case .sparse(let columnStart, let columns, let values):
                            values.withUnsafeBufferPointer { values in
                                columns.withUnsafeBufferPointer { columns in
                                    columnStart.withUnsafeBufferPointer { columnStart in
                                        query.mask.withUnsafeBufferPointer { queryMask in
                                            beaconfix_offset_distances_sparse_avx2(
                                                values.baseAddress, columns.baseAddress, columnStart.baseAddress, runs, runCount,
                                                queryValues.baseAddress, queryMask.baseAddress, &metric, &rows)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
