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
    /// Which of MatcherKernels' tables of loops computes the distances: the fastest this CPU runs, unless a
    /// test forces another. Every one gives the same distances to the bit, so it takes no part in equality.
    let loop: CompactKernels.LevelLoop

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
        self.init(floor: floor, penalty: penalty, offsetShrinkage: offsetShrinkage, loop: CompactKernels.fastestLevelLoop)
    }

    /// The metric computed through `loop`, which this CPU must run (tests compare the loops).
    @_spi(Profiling) public init(
        floor: Float = -100, penalty: AbsencePenalty = AbsencePenalty(queryOnly: 5, referenceOnly: 2),
        offsetShrinkage: Float? = 0, loop: CompactKernels.LevelLoop
    ) {
        precondition(offsetShrinkage.map { $0 >= 0 } ?? true, "offsetShrinkage must be at least 0")
        precondition(loop.isAvailable, "this CPU does not run the \(loop) loops")
        self.floor = floor
        self.penalty = penalty
        self.offsetShrinkage = offsetShrinkage
        self.loop = loop
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.floor == rhs.floor && lhs.penalty == rhs.penalty && lhs.offsetShrinkage == rhs.offsetShrinkage
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(floor)
        hasher.combine(penalty)
        hasher.combine(offsetShrinkage)
    }

    /// dB above ``floor``: a map read by this metric must be built with it.
    public var representation: SignalRepresentation { .decibels(floor: floor) }

    public func distance(_ query: Fingerprint, _ reference: Fingerprint) -> Float? {
        // The plain definition, in Double: the bulk form is held to it.
        func level(_ entry: FingerprintEntry) -> Double { Double(representation.value(of: entry)) }
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

    /// The kernel over the map's levels (``DecibelLevels``: 1/16 dB in 16-bit integers, two columns at a
    /// time), 8 rows at a time. Besides Σ e², Σ e and c it needs Σ r over the common beacons: the one-sided
    /// sums then come from the value sums, `Σ q(query-only) = Σ q − (Σ e + Σ r(common))` and
    /// `Σ r(reference-only) = Σ r − Σ r(common)`, so only the query's columns are visited. The sums are
    /// integers, exact; a CPU with AVX2 or AVX-512 VNNI runs MatcherKernels' loop, which gives the same
    /// distances to the bit.
    public func distances(
        from query: QueryVector, in map: RadioMap, blocks: BlockSelection, into distances: UnsafeMutableBufferPointer<Float>
    ) {
        self.distances(from: query, in: map, blocks: blocks, into: distances, loop: loop)
    }

    /// ``distances(from:in:blocks:into:)`` through `loop`, which this CPU must run.
    @_spi(Profiling) public func distances(
        from query: QueryVector, in map: RadioMap, blocks: BlockSelection, into distances: UnsafeMutableBufferPointer<Float>,
        loop: CompactKernels.LevelLoop
    ) {
        precondition(
            map.representation == representation,
            "DecibelOffsetMetric compares dB above \(floor); the map holds \(map.representation): build it with the metric's representation")
        // A decibel map always has its levels.
        let levels = map.decibelLevels!
        let kernels = loop.kernels!.table.pointee
        let exact = if case .dense = levels.pairs { kernels.distances_dense } else { kernels.distances_sparse }
        withKernelQuery(query, levels: levels) { metric, kernelQuery, queryLevels, queryPairs in
            // The portable table has no exact loop in C: Swift's is the portable one.
            guard let exact else {
                return LevelSums.forEachBlock(levels, queryLevels: queryLevels, queryPairs: queryPairs, blocks: blocks) { block, slot, sums in
                    finish(sums, block: block, slot: slot, metric: metric.pointee, in: map, into: distances)
                }
            }
            levels.withKernelMap { kernelMap in
                map.withKernelRows(into: distances) { rows in
                    withUnsafePointer(to: rows) { rows in
                        blocks.withBounds { runs, runCount in exact(kernelMap, kernelQuery, runs, runCount, metric, rows) }
                    }
                }
            }
        }
    }

    /// Calls `body` with the metric and the query as MatcherKernels' loops read them, the query's level per
    /// column and, for a dense map, its pairs: all on the stack, read through pointers so that nothing is
    /// boxed on the heap.
    @inline(__always)
    private func withKernelQuery<Result>(
        _ query: QueryVector, levels: DecibelLevels,
        _ body: (
            _ metric: UnsafePointer<beaconfix_offset_metric>, _ kernelQuery: UnsafePointer<beaconfix_level_query>,
            _ queryLevels: UnsafeBufferPointer<Int16>, _ queryPairs: UnsafeBufferPointer<Int>
        ) -> Result
    ) -> Result {
        withUnsafePointer(to: kernelMetric(for: query)) { metric in
            DecibelLevels.withQueryLevels(query) { queryLevels in
                withQueryPairs(query, levels: levels) { queryPairs in
                    withUnsafePointer(to: Self.kernelQuery(queryLevels, pairs: queryPairs)) { kernelQuery in
                        body(metric, kernelQuery, queryLevels, queryPairs)
                    }
                }
            }
        }
    }

    /// What MatcherKernels' finishing reads of the metric and the query.
    private func kernelMetric(for query: QueryVector) -> beaconfix_offset_metric {
        beaconfix_offset_metric(
            query_present: query.presentCount, query_value_sum: query.valueSum, offset_shrinkage: offsetShrinkage ?? 0,
            removes_offset: offsetShrinkage == nil ? 0 : 1, query_only_penalty: penalty.queryOnly,
            reference_only_penalty: penalty.referenceOnly)
    }

    /// The query as MatcherKernels' loops read it.
    private static func kernelQuery(_ levels: UnsafeBufferPointer<Int16>, pairs: UnsafeBufferPointer<Int>) -> beaconfix_level_query {
        beaconfix_level_query(levels: levels.baseAddress, width: levels.count, pairs: pairs.baseAddress, pair_count: pairs.count)
    }

    /// Whether ``distanceBounds(from:in:blocks:lower:upper:)`` runs for `map`: a sparse map that keeps coarse
    /// levels (``RadioMap/CoarsePass``), read by any table's coarse loop (plain C where the CPU has no AVX2).
    @_spi(Profiling) public func boundsDistances(in map: RadioMap) -> Bool {
        map.decibelLevels?.coarse != nil && map.representation == representation
    }

    /// A lower and an upper bound on each selected row's distance (packed, as
    /// ``distances(from:in:blocks:into:)`` writes distances), from the map's levels rounded to 1/2 dB: half
    /// the bytes of the exact levels. A row sharing no beacon with the query gets infinity for both, its
    /// distance. Only where ``boundsDistances(in:)``.
    ///
    /// Why the bounds hold (MatcherKernels' `finish_bounds`): every coarse level is within the map's
    /// measured error `ε` of the exact one, so over the `c` beacons both sides hear the differences move by at
    /// most `ε` each; the spread is a squared distance from the differences to a line, which moves by at most
    /// `ε√c`, the reference-only sum by at most `εc`, and the rest does not move.
    @_spi(Profiling) public func distanceBounds(
        from query: QueryVector, in map: RadioMap, blocks: BlockSelection, lower: UnsafeMutableBufferPointer<Float>,
        upper: UnsafeMutableBufferPointer<Float>
    ) {
        distanceBounds(from: query, in: map, blocks: blocks, lower: lower, upper: upper, loop: loop)
    }

    /// ``distanceBounds(from:in:blocks:lower:upper:)`` through `loop`'s coarse loop, which this CPU must run
    /// (every one gives the same bounds to the bit).
    @_spi(Profiling) public func distanceBounds(
        from query: QueryVector, in map: RadioMap, blocks: BlockSelection, lower: UnsafeMutableBufferPointer<Float>,
        upper: UnsafeMutableBufferPointer<Float>, loop: CompactKernels.LevelLoop
    ) {
        precondition(boundsDistances(in: map), "distanceBounds needs a sparse decibel map with coarse levels")
        precondition(upper.count >= lower.count, "one upper bound a lower one")
        let levels = map.decibelLevels!
        let bounds = loop.kernels!.table.pointee.bounds_sparse!
        withKernelQuery(query, levels: levels) { metric, kernelQuery, _, _ in
            levels.withKernelMap { kernelMap in
                map.withKernelRows(into: lower) { rows in
                    withUnsafePointer(to: rows) { rows in
                        blocks.withBounds { runs, runCount in bounds(kernelMap, kernelQuery, runs, runCount, metric, rows, upper.baseAddress) }
                    }
                }
            }
        }
    }

    /// Turns the lower bounds in `distances` (``distanceBounds(from:in:blocks:lower:upper:)``) into the exact
    /// distances of every selected block with a row whose lower bound is at most `threshold`, and into
    /// infinity in the other blocks, whose rows are all further than `threshold`. Stretches of consecutive
    /// blocks to read again are one call of the exact loop each.
    func refineDistances(
        from query: QueryVector, in map: RadioMap, blocks: BlockSelection, threshold: Float,
        distances: UnsafeMutableBufferPointer<Float>
    ) {
        precondition(boundsDistances(in: map), "refineDistances follows distanceBounds, on a map with coarse levels")
        let levels = map.decibelLevels!
        guard let base = distances.baseAddress else { return }
        let lanes = RadioMap.lanes, below = threshold.nextUp
        let exact = loop.kernels!.table.pointee.distances_sparse
        withKernelQuery(query, levels: levels) { metric, kernelQuery, queryLevels, _ in
            levels.withKernelMap { kernelMap in
                map.withKernelRows(into: distances) { rows in
                    Self.forEachStretchToReadAgain(blocks, lowerBounds: distances, below: below) { first, end, slot in
                        // The portable table has no exact loop in C: Swift's is the portable one.
                        guard let exact else {
                            return readAgain(first..<end, slot: slot, of: kernelMap, queryLevels: queryLevels, metric: metric, in: map, into: distances)
                        }
                        var run = (first, end), rows = rows
                        rows.distances = base + slot * lanes
                        rows.capacity = distances.count - slot * lanes
                        withUnsafePointer(to: &run) { run in
                            run.withMemoryRebound(to: Int.self, capacity: 2) { exact(kernelMap, kernelQuery, $0, 1, metric, &rows) }
                        }
                    }
                }
            }
        }
    }

    /// Calls `readAgain(first, end, slot)` for each stretch of consecutive selected blocks `first ..< end`
    /// (the first being the `slot`-th selected one) with a row whose lower bound in `lowerBounds` is under
    /// `below`, and sets the other blocks' rows to infinity.
    @inline(__always)
    private static func forEachStretchToReadAgain(
        _ blocks: BlockSelection, lowerBounds distances: UnsafeMutableBufferPointer<Float>, below: Float,
        _ readAgain: (_ first: Int, _ end: Int, _ slot: Int) -> Void
    ) {
        guard let base = distances.baseAddress else { return }
        let lanes = RadioMap.lanes
        var slot = 0
        for run in blocks.runs {
            // The stretch of blocks to read again being gathered: its first block and slot.
            var stretch: (block: Int, slot: Int)?
            for block in run {
                let first = slot * lanes
                guard first < distances.count else { break }
                let end = min(first + lanes, distances.count)
                let holdsCandidate = end - first == lanes
                    ? beaconfix_any_below8(base + first, below) != 0
                    : (first..<end).contains { distances[$0] < below }
                if holdsCandidate {
                    if stretch == nil { stretch = (block, slot) }
                } else {
                    if let open = stretch { readAgain(open.block, block, open.slot) }
                    stretch = nil
                    for index in first..<end { distances[index] = .infinity }
                }
                slot += 1
            }
            if let open = stretch { readAgain(open.block, open.block + (slot - open.slot), open.slot) }
        }
    }

    /// The exact distances of the sparse blocks `blocks`, the first being the `slot`-th selected one, through
    /// the Swift loop: the portable table's exact reading after the coarse pass.
    @inline(__always)
    private func readAgain(
        _ blocks: Range<Int>, slot: Int, of kernelMap: UnsafePointer<beaconfix_level_map>, queryLevels: UnsafeBufferPointer<Int16>,
        metric: UnsafePointer<beaconfix_offset_metric>, in map: RadioMap, into distances: UnsafeMutableBufferPointer<Float>
    ) {
        for block in blocks {
            let sums = LevelSums.sparseBlock(block, of: kernelMap.pointee, queryLevels: queryLevels)
            finish(sums, block: block, slot: slot + block - blocks.lowerBound, metric: metric.pointee, in: map, into: distances)
        }
    }

    /// Calls `body` with the pairs of a dense map's columns that hold a column `query` hears, ascending (none
    /// for a sparse map, whose blocks list their own pairs), on the stack.
    @inline(__always)
    private func withQueryPairs<Result>(
        _ query: QueryVector, levels: DecibelLevels, _ body: (UnsafeBufferPointer<Int>) -> Result
    ) -> Result {
        guard case .dense = levels.pairs else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: max(1, query.presentColumns.count)) { pairs in
            var count = 0
            for column in query.presentColumns where count == 0 || pairs[count - 1] != column / 2 {
                pairs[count] = column / 2
                count += 1
            }
            return body(UnsafeBufferPointer(rebasing: pairs[0..<count]))
        }
    }

    /// A block's 8 distances from its sums, written to the `slot`-th place of `distances`: the operations,
    /// in order, of MatcherKernels' `finish_block`.
    @inline(__always)
    private func finish(
        _ sums: LevelSums, block: Int, slot: Int, metric: beaconfix_offset_metric, in map: RadioMap,
        into distances: UnsafeMutableBufferPointer<Float>
    ) {
        typealias Vector = SIMD8<Float>
        let offset = block * MemoryLayout<Vector>.stride
        let referencePresent = map.presentCount.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Vector.self) }
        let referenceValues = map.valueSum.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Vector.self) }
        let squares = Vector(sums.squared) * Vector(repeating: 1 / 256)
        let differences = Vector(sums.differences) * Vector(repeating: 1 / 16)
        let commonReference = Vector(sums.reference) * Vector(repeating: 1 / 16)
        let common = Vector(repeating: 0) - Vector(sums.minusCommon)
        let noCommon = common .< 0.5
        var spread = squares
        if metric.removes_offset != 0 {
            let denominator = (common + Vector(repeating: metric.offset_shrinkage)).replacing(with: 1, where: noCommon)
            spread -= differences * differences / denominator
            // S − D²/(c + λ) cancels catastrophically when the differences are all alike (a pure gain); below
            // a relative 1e-5 of S the spread is rounding noise, and never negative.
            spread.replace(with: 0, where: spread .<= Vector(repeating: 1e-5) * squares)
        }
        // A one-sided sum cannot be below 0; kept as the AVX2 finishing keeps it.
        var queryOnly = Vector(repeating: metric.query_value_sum) - (differences + commonReference)
        queryOnly.replace(with: 0, where: queryOnly .< 0)
        var referenceOnly = referenceValues - commonReference
        referenceOnly.replace(with: 0, where: referenceOnly .< 0)
        let union = (Vector(repeating: metric.query_present) + referencePresent) - common
        let result = ((spread + penalty.cost(queryOnly: queryOnly, referenceOnly: referenceOnly)) / union.replacing(with: 1, where: union .< 1))
            .replacing(with: .infinity, where: noCommon)
        CompactKernels.store(result, slot: slot, capacity: distances.count, into: distances.baseAddress!)
    }
}

/// A block's integer sums over the beacons a query shares with each of its 8 rows: Σ e² (1/256 dB²), Σ e
/// and Σ r (1/16 dB), and minus the count; the Swift loop for CPUs without AVX2, the same integers as
/// MatcherKernels' `add_pair` in any order.
struct LevelSums {
    typealias Lanes = SIMD8<Int32>
    var squared = Lanes(), differences = Lanes(), reference = Lanes(), minusCommon = Lanes()

    /// Adds a column: `reference` its 8 rows' levels, `query` the query's level (``DecibelLevels/unheard``
    /// when it does not hear the column).
    @inline(__always)
    mutating func add(_ reference: Lanes, query: Int16) {
        guard query != DecibelLevels.unheard else { return }
        let both = reference .> -1
        let difference = (Lanes(repeating: Int32(query)) &- reference).replacing(with: 0, where: .!both)
        squared &+= difference &* difference
        differences &+= difference
        self.reference &+= reference.replacing(with: 0, where: .!both)
        minusCommon &-= Lanes(repeating: 1).replacing(with: 0, where: .!both)
    }

    /// Adds the pair of columns whose 16 interleaved levels start at `levels`.
    @inline(__always)
    mutating func addPair(_ levels: UnsafePointer<Int16>, first: Int16, second: Int16) {
        let pair = UnsafeRawPointer(levels).loadUnaligned(as: SIMD16<Int16>.self)
        add(Lanes(truncatingIfNeeded: pair.evenHalf), query: first)
        add(Lanes(truncatingIfNeeded: pair.oddHalf), query: second)
    }

    /// The sums of block `block` of a sparse map, as MatcherKernels' loops read it (the coarse pass's
    /// second, exact reading where the portable table has no exact loop in C).
    @inline(__always)
    static func sparseBlock(_ block: Int, of map: beaconfix_level_map, queryLevels: UnsafeBufferPointer<Int16>) -> LevelSums {
        var sums = LevelSums()
        guard let levels = map.levels, let pairStart = map.pair_start, let pairColumns = map.pair_columns else { return sums }
        for pair in pairStart[block]..<pairStart[block + 1] {
            sums.addPair(
                levels + pair * 16, first: queryLevels[Int(pairColumns[2 * pair])], second: queryLevels[Int(pairColumns[2 * pair + 1])])
        }
        return sums
    }

    /// Calls `body(block, slot, sums)` for every block `blocks` selects, in order; `slot` counts the selected
    /// blocks (where a packed buffer keeps the block's distances).
    @inline(__always)
    static func forEachBlock(
        _ levels: DecibelLevels, queryLevels: UnsafeBufferPointer<Int16>, queryPairs: UnsafeBufferPointer<Int>,
        blocks: BlockSelection, _ body: (_ block: Int, _ slot: Int, _ sums: LevelSums) -> Void
    ) {
        levels.levels.withUnsafeBufferPointer { values in
            guard let base = values.baseAddress else { return }
            var slot = 0
            switch levels.pairs {
            case .dense(let pairsPerBlock):
                for block in blocks.runs.joined() {
                    var sums = LevelSums()
                    let blockBase = base + block * pairsPerBlock * 16
                    for pair in queryPairs {
                        sums.addPair(blockBase + pair * 16, first: queryLevels[2 * pair], second: queryLevels[2 * pair + 1])
                    }
                    body(block, slot, sums)
                    slot += 1
                }
            case .sparse:
                levels.withKernelMap { kernelMap in
                    for block in blocks.runs.joined() {
                        body(block, slot, sparseBlock(block, of: kernelMap.pointee, queryLevels: queryLevels))
                        slot += 1
                    }
                }
            }
        }
    }
}
