import MatcherKernels

/// How the distances of a spot's reference fingerprints make the spot's distance.
public enum SpotAggregation: Hashable, Sendable {
    /// The best fingerprint stands for the spot.
    case best
    /// The mean of the spot's `count` best fingerprints (fewer when it has fewer matching ones): one
    /// lucky reference fingerprint weighs less.
    case meanOfBest(Int)
}

/// Which neighbours a position is interpolated from.
public enum NeighbourLevel: Hashable, Sendable, Codable {
    /// The nearest spots, each at its aggregated distance (``SpotAggregation``): a sparse survey, a few
    /// fingerprints per spot.
    case spots
    /// The nearest reference fingerprints, whatever their spot: a dense survey with dozens of fingerprints
    /// per spot, where a spot with many close fingerprints should pull harder than one with a single lucky one.
    case fingerprints
}

/// Matches a live fingerprint against a radio map and estimates a position, or says why it cannot.
///
/// The pipeline: distance to every reference fingerprint (``FingerprintMetric``), the best fingerprint
/// per spot, the nearest spots, then a continuous position (``PositionEstimator``). Configuration is
/// plain values; a `Locator` holds no state and can serve any number of concurrent queries.
public struct Locator: Sendable {
    public var metric: any FingerprintMetric
    public var aggregation: SpotAggregation
    /// Whether the estimator interpolates between spots or between reference fingerprints.
    public var neighbours: NeighbourLevel
    public var estimator: any PositionEstimator
    /// Fewer surveyed beacons heard than this gives `unknown` (at least 1).
    public var minimumBeacons: Int
    /// A best spot distance above this gives `unknown`; nil accepts any finite distance.
    public var maximumDistance: Float?
    /// How many candidate spots a result lists.
    public var candidateCount: Int
    /// Which reference fingerprints a query is compared with: the exact ``CandidateSearch/beaconIndex``
    /// unless told (a tuned venue's configuration names the strongest-beacon search where it was shown to
    /// keep the recall on the venue's survey).
    public var candidateSearch: CandidateSearch

    /// The blocks where one of the query's 6 strongest beacons is among a fingerprint's 6 strongest, where
    /// that keeps at most a quarter of a large map; the exact beacon index otherwise. Chosen on synthetic
    /// venues, never on a walk (CandidateSearchChoiceTests reruns the choice): the cheapest setting of a grid
    /// that finds every one of the exhaustive search's 8 nearest spots and 99.9% of its 32 nearest (the most
    /// a tuned locator reads) on 4 and 8 floors of 64 and 100 beacons under the dB-offset metric with
    /// penalties 5 and 2, reading at most 11% of their maps. Under other metrics its recall differs (far
    /// lower with penalties 2 and 1), so a venue uses it only after ``SurveyTuner`` measured it on the
    /// venue's own survey (``CandidateSearchRecall``). Maps under ``smallMapBlocks`` blocks, every shared
    /// dataset among them, are searched exactly.
    public static let strongestBeaconSearch = CandidateSearch.strongestBeacons(
        queryBeacons: 6, referenceRank: 6, minimumShared: 1, maximumShare: 0.25, exactBelowBlocks: smallMapBlocks)

    /// The strongest-beacon searches ``SurveyTuner`` tries on a venue, narrowest first, each selecting a
    /// subset of the next one's blocks and the last ``strongestBeaconSearch``: 2 of the query's 4 strongest
    /// beacons among a fingerprint's 4 strongest, then 2 of 6 among 6, then 1 of 6 among 6. A denser survey
    /// has its nearest spots closer together, inside a narrower neighbourhood of strong beacons, so it can
    /// afford a narrower search: on the 4-floor synthetic venue (another phone's scans between spots) the
    /// first keeps every one of the 32 nearest spots at 1,000,000 fingerprints reading 2.5% of the map
    /// (the last reads 7.6%), and falls short at 100,000, where the second keeps them reading 5.0% (the
    /// last 7.7%). Each venue takes the first that clears the recall bar on its own survey.
    public static let strongestBeaconLadder: [CandidateSearch] = [
        .strongestBeacons(queryBeacons: 4, referenceRank: 4, minimumShared: 2, maximumShare: 0.25, exactBelowBlocks: smallMapBlocks),
        .strongestBeacons(queryBeacons: 6, referenceRank: 6, minimumShared: 2, maximumShare: 0.25, exactBelowBlocks: smallMapBlocks),
        strongestBeaconSearch,
    ]

    public static let smallMapBlocks = 1_024

    /// The spots-first searches ``SurveyTuner`` also tries (``CandidateSearch/spotsFirst(keep:coarse:)``),
    /// taking the one that reads fewest blocks where it keeps the recall. Chosen on the 4-floor synthetic
    /// venue (`Profile recall`, never a walk):
    /// - the fingerprints of the 256 spots whose centroids are nearest among those ``strongestBeaconSearch``
    ///   selects: at 100,000 fingerprints it keeps every one of the 8 nearest spots and 99.9% of the 32
    ///   nearest on another phone's scans reading 2.7% of the map after 0.7% of it in centroids, where the
    ///   ladder's narrowest step with that recall reads 5.0%; fewer spots, or a narrower coarse step, fall
    ///   short there;
    /// - the 1,536 nearest among those the ladder's 2 of 6 among 6 selects: at 1,000,000 fingerprints, ten
    ///   times denser, centroids of neighbouring spots differ by less than a scan's noise, and 256 fall
    ///   short, but 1,536 keep 100% of the 8 and 32 nearest reading 2,034 blocks after 468 of centroids,
    ///   where the ladder's narrowest step with that recall (2 of 4 among 4) reads 3,176;
    /// - the 768 nearest among those 2 of 6 among 6 selects: at 300,000 fingerprints, between the two, it
    ///   keeps every one of the 8 nearest spots and 99.9% of the 32 nearest on both sets of scans, reading
    ///   1,004 blocks after 154 of centroids where 1,536 read 1,544 after the same 154 (and 512 lose one of
    ///   the 8 nearest of the survey's scans). At 1,000,000 it falls short on both sets, so 1,536 stay the
    ///   choice there.
    ///
    /// The needed keep grows nearly as the survey: 256, 768 and 1,536 spots of 10,000, 30,000 and 100,000.
    public static let spotsFirstSearches: [CandidateSearch] = [
        .spotsFirst(keep: 256, coarse: strongestBeaconSearch), .spotsFirst(keep: 768, coarse: strongestBeaconLadder[1]),
        .spotsFirst(keep: 1_536, coarse: strongestBeaconLadder[1]),
    ]

    public init(
        metric: any FingerprintMetric,
        aggregation: SpotAggregation = .best,
        neighbours: NeighbourLevel = .spots,
        estimator: any PositionEstimator,
        minimumBeacons: Int = 1,
        maximumDistance: Float? = nil,
        candidateCount: Int = 5,
        candidateSearch: CandidateSearch = .beaconIndex
    ) {
        self.metric = metric
        self.aggregation = aggregation
        self.neighbours = neighbours
        self.estimator = estimator
        self.minimumBeacons = max(1, minimumBeacons)
        self.maximumDistance = maximumDistance
        self.candidateCount = max(1, candidateCount)
        self.candidateSearch = candidateSearch
    }

    /// Locates `fingerprint` in `map`.
    public func locate(_ fingerprint: Fingerprint, in map: RadioMap) -> LocationResult {
        locate(map.query(for: fingerprint), in: map)
    }

    /// Locates a query already laid out along `map`'s columns.
    public func locate(_ query: QueryVector, in map: RadioMap) -> LocationResult {
        if let early = precheck(query) { return early }
        return withCandidateBlocks(for: query, in: map, scratchPerRow: 2) { blocks, scratch in
            locate(query, blocks: blocks, in: map, scratch: scratch)
        }
    }

    /// The blocks of `map` that ``candidateSearch`` selects for `query`. A
    /// ``CandidateSearch/spotsFirst(keep:coarse:)`` search measures the map's spot centroids under
    /// ``metric`` and keeps the blocks of the spots whose centroids are as near as the `keep`-th nearest
    /// (more where distances tie): a selection, not a ranking, so no list of spots is built.
    public func candidateBlocks(for query: QueryVector, in map: RadioMap) -> BlockSelection {
        withCandidateBlocks(for: query, in: map, scratchPerRow: nil) { blocks, _ in blocks }
    }

    /// Calls `body` with the blocks ``candidateSearch`` selects for `query` and, where `scratchPerRow` is
    /// given and the selection was made from spot centroids, room for that many floats a selected row (nil
    /// otherwise). A spots-first search then takes one buffer for both of a locate's stages: its centroids'
    /// distances, and what the locate works in over the spots' rows (at most ``RadioMap/widestSpotBlocks``
    /// blocks a kept spot), each in turn. On a large map both outgrow the stack's share, and two buffers
    /// would be two allocations a locate.
    package func withCandidateBlocks<Result>(
        for query: QueryVector, in map: RadioMap, scratchPerRow: Int?,
        _ body: (BlockSelection, UnsafeMutableBufferPointer<Float>?) -> Result
    ) -> Result {
        guard case .spotsFirst(let keep, let coarse) = candidateSearch else {
            return body(map.candidateBlocks(for: query, search: candidateSearch), nil)
        }
        var coarseSearch = self
        coarseSearch.candidateSearch = coarse
        guard let centroids = map.spotCentroids else { return body(coarseSearch.candidateBlocks(for: query, in: map), nil) }
        // The centroids' runs array is reserved for the spots' runs too and handed on to them: one array
        // serves both selections (a selection needs at most a run a spot).
        var coarseBlocks = if case .spotsFirst = coarse {
            coarseSearch.candidateBlocks(for: query, in: centroids)
        } else {
            centroids.candidateBlocks(for: query, search: coarse, reservingRuns: max(1, keep))
        }
        // One buffer: the centroids' distances, then a copy the selection works in, which then holds the kept
        // spots; then, once they are laid out as blocks, the caller's room a row. No more spots are kept than
        // centroids are measured, so their rows are at most that many times the widest spot's.
        let distanceCount = max(1, coarseBlocks.packedCount)
        let keptRows = min(map.blockCount, coarseBlocks.packedCount * map.widestSpotBlocks) * RadioMap.lanes
        let capacity = max(2 * distanceCount, (scratchPerRow ?? 0) * max(1, keptRows))
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: capacity) { buffer in
            let packed = UnsafeMutableBufferPointer(rebasing: buffer[..<distanceCount])
            let scratch = UnsafeMutableBufferPointer(rebasing: buffer[distanceCount..<(2 * distanceCount)])
            metric.distances(from: query, in: centroids, blocks: coarseBlocks, into: packed)
            _ = scratch.update(fromContentsOf: packed)
            // Infinite distances (centroids sharing no beacon, padding rows) rank last: fewer finite ones than
            // `keep` make the bound infinite, and every finite one is kept.
            let bound = Self.smallest(max(1, keep), of: scratch)
            let blocks = scratch.withMemoryRebound(to: Int32.self) { spots in
                var kept = 0
                // Centroid rows come in spot order, so the spots are listed in ascending order.
                coarseBlocks.forEachRow(in: centroids) { row, slot in
                    let distance = packed[slot]
                    if distance <= bound, distance.isFinite {
                        spots[kept] = Int32(truncatingIfNeeded: centroids.spotOfRow[row])
                        kept += 1
                    }
                }
                return map.blocks(ofAscendingSpots: UnsafeBufferPointer(rebasing: spots[..<kept]), reusing: coarseBlocks.takeRuns())
            }
            guard let scratchPerRow else { return body(blocks, nil) }
            precondition(blocks.packedCount <= max(1, keptRows), "the kept spots' rows outgrew their bound")
            return body(blocks, UnsafeMutableBufferPointer(rebasing: buffer[..<(scratchPerRow * max(1, blocks.packedCount))]))
        }
    }

    /// The `rank`-th smallest of `values` (distances: not negative, infinity allowed), infinity when there
    /// are fewer. `values` is scratch space, overwritten.
    ///
    /// A quickselect with no data-dependent branch in its passes: distances in no order make a branch on
    /// every comparison a coin toss, which cost Hoare's partitioning most of its time. Each round counts
    /// the values under and at a pivot (the median of three), then compacts the side holding the rank to
    /// the front. Non-negative floats order as their bit patterns do as integers, so a comparison is the
    /// sign of an integer difference, added to a count.
    package static func smallest(_ rank: Int, of values: UnsafeMutableBufferPointer<Float>) -> Float {
        guard rank >= 1, rank <= values.count else { return .infinity }
        return values.withMemoryRebound(to: Int32.self) { bits in
            var count = bits.count
            var target = rank - 1
            while count > 1 {
                let first = bits[0], middle = bits[count / 2], last = bits[count - 1]
                let pivot = max(min(first, middle), min(max(first, middle), last))
                // `(a &- b) >> 31` is -1 where a < b and 0 otherwise: the patterns lie in 0...Int32.max.
                var below = 0, notAbove = 0
                for index in 0..<count {
                    let value = bits[index]
                    below &-= Int((value &- pivot) >> 31)
                    notAbove &-= Int((value &- pivot &- 1) >> 31)
                }
                var kept = 0
                if target < below {
                    for index in 0..<count {
                        let value = bits[index]
                        bits[kept] = value
                        kept &-= Int((value &- pivot) >> 31)
                    }
                } else if target < notAbove {
                    return Float(bitPattern: UInt32(bitPattern: pivot))
                } else {
                    for index in 0..<count {
                        let value = bits[index]
                        bits[kept] = value
                        kept &-= Int((pivot &- value) >> 31)
                    }
                    target -= notAbove
                }
                // The pivot is one of the values and is never kept: every round shrinks the range.
                count = kept
            }
            return Float(bitPattern: UInt32(bitPattern: bits[0]))
        }
    }

    private func locate(_ query: QueryVector, blocks: BlockSelection, in map: RadioMap) -> LocationResult {
        locate(query, blocks: blocks, in: map, scratch: nil)
    }

    /// Locates in `blocks`, working in `scratch` where given (at least two floats a selected row) and in a
    /// buffer of its own otherwise.
    private func locate(
        _ query: QueryVector, blocks: BlockSelection, in map: RadioMap, scratch: UnsafeMutableBufferPointer<Float>?
    ) -> LocationResult {
        let count = max(1, blocks.packedCount)
        if keptPerSpot == 1, let bounding = metric as? DecibelOffsetMetric, bounding.boundsDistances(in: map) {
            if let scratch, scratch.count >= 2 * count { return locate(query, blocks: blocks, in: map, bounding: bounding, buffer: scratch) }
            return withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * count) { buffer in
                locate(query, blocks: blocks, in: map, bounding: bounding, buffer: buffer)
            }
        }
        func measured(_ packed: UnsafeMutableBufferPointer<Float>) -> LocationResult {
            metric.distances(from: query, in: map, blocks: blocks, into: packed)
            return result(for: query, distances: UnsafeBufferPointer(packed), blocks: blocks, in: map)
        }
        if let scratch, scratch.count >= count { return measured(UnsafeMutableBufferPointer(rebasing: scratch[..<count])) }
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: count) { measured($0) }
    }

    /// Locates in two passes with the same answer as one: bounds on every selected row's distance from the
    /// map's coarse levels (half the bytes), then the exact distances of the blocks whose rows can still be
    /// in the answer (``answerBound(upper:blocks:in:)``); the others' rows are set to infinity, so every row
    /// the answer is made of, and every row ranked against them, has its exact distance. Only for
    /// ``SpotAggregation/best``: the mean of a spot's best rows could take a row over the bound.
    /// `buffer` holds at least two floats a selected row: the distances (lower bounds first), then the upper
    /// bounds.
    private func locate(
        _ query: QueryVector, blocks: BlockSelection, in map: RadioMap, bounding: DecibelOffsetMetric,
        buffer: UnsafeMutableBufferPointer<Float>
    ) -> LocationResult {
        let count = max(1, blocks.packedCount)
        let packed = UnsafeMutableBufferPointer(rebasing: buffer[..<count])
        let upper = UnsafeMutableBufferPointer(rebasing: buffer[count..<(2 * count)])
        bounding.distanceBounds(from: query, in: map, blocks: blocks, lower: packed, upper: upper)
        let bound = answerBound(upper: UnsafeBufferPointer(upper), blocks: blocks, in: map)
        bounding.refineDistances(from: query, in: map, blocks: blocks, threshold: bound, distances: packed)
        return result(for: query, distances: UnsafeBufferPointer(packed), blocks: blocks, in: map)
    }

    /// The largest exact distance a row of the answer can have, from upper bounds on the selected rows'
    /// distances (packed), for ``SpotAggregation/best``: the `s`-th smallest of the spots' least upper bounds
    /// (`s` the spots ``result(for:distances:blocks:in:)`` gathers) and, where the neighbours are
    /// fingerprints, the `k`-th smallest row upper bound (`k` the rows the estimator takes). At least `s`
    /// spots (`k` rows) are then that near, so a spot or row further than the bound is not in the answer,
    /// and one at most that far has a lower bound at most that far: it is read again.
    @_spi(Profiling) public func answerBound(upper: UnsafeBufferPointer<Float>, blocks: BlockSelection, in map: RadioMap) -> Float {
        let spotsWanted = max(1, neighbours == .spots ? max(candidateCount, estimator.candidatesWanted) : candidateCount)
        let rowsWanted = neighbours == .fingerprints ? max(1, estimator.candidatesWanted) : 0
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: spotsWanted + rowsWanted) { buffer in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: spotsWanted) { spotBuffer in
                var spots = SmallestValues(UnsafeMutableBufferPointer(rebasing: buffer[..<spotsWanted]), spots: spotBuffer)
                var rows = SmallestValues(UnsafeMutableBufferPointer(rebasing: buffer[spotsWanted...]))
                var slotBase = 0
                for run in blocks.runs {
                    for block in run {
                        defer { slotBase += RadioMap.lanes }
                        // Only a block with an upper bound under one of the two bounds so far can change them:
                        // most are passed over with one vector comparison (an empty buffer's bound is minus
                        // infinity, so spots alone decide where no rows are wanted).
                        if !upper.hasDistance(below: max(spots.bound, rows.bound), inBlockAt: slotBase) { continue }
                        let first = block * RadioMap.lanes
                        for row in first..<min(first + RadioMap.lanes, map.count) {
                            let distance = upper[slotBase + row - first]
                            rows.offer(distance)
                            // The spot is looked up only for a row that can change the spots' bound: the map's
                            // spot of every row would be a cache miss a block.
                            if distance < spots.bound { spots.offer(distance, spot: map.spotOfRow[row]) }
                        }
                    }
                }
                // Without rows wanted, the rows' bound is minus infinity.
                return max(spots.bound, rows.bound)
            }
        }
    }

    /// Locates several queries: what a server batching concurrent requests would call. The answers are
    /// those of ``locate(_:in:)-(QueryVector,_)`` one by one.
    /// - The exhaustive search reads the map once for all of them when the metric can (the
    ///   squared-Euclidean family's BLAS kernel).
    /// - A candidate search locates them one after the other, ordered by where their selections lie in the
    ///   map: queries from the same part of the venue select the same blocks, and the next one finds them
    ///   still in the cache instead of reading them from memory again.
    public func locate(batch queries: [QueryVector], in map: RadioMap) -> [LocationResult] {
        guard candidateSearch == .exhaustive else {
            let selections = queries.map { precheck($0) == nil ? candidateBlocks(for: $0, in: map) : nil }
            let order = queries.indices.sorted { (selections[$0]?.middleBlock ?? -1, $0) < (selections[$1]?.middleBlock ?? -1, $1) }
            var answers = [LocationResult?](repeating: nil, count: queries.count)
            for index in order {
                answers[index] = selections[index].map { locate(queries[index], blocks: $0, in: map) } ?? precheck(queries[index])
            }
            return answers.map { $0! }
        }
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: map.count * queries.count) { rowDistances in
            metric.distances(from: queries, in: map, into: rowDistances)
            let all = BlockSelection.all(of: map)
            return queries.enumerated().map { index, query in
                precheck(query) ?? result(
                    for: query,
                    distances: UnsafeBufferPointer(rebasing: rowDistances[(index * map.count)..<((index + 1) * map.count)]),
                    blocks: all, in: map)
            }
        }
    }

    /// Locates a query whose row distances are already computed (cross-validation masks some rows out).
    package func locate(rowDistances: UnsafeBufferPointer<Float>, query: QueryVector, in map: RadioMap) -> LocationResult {
        precheck(query) ?? result(for: query, distances: rowDistances, blocks: .all(of: map), in: map)
    }

    /// The answer for queries that cannot be matched at all.
    private func precheck(_ query: QueryVector) -> LocationResult? {
        let heard = Int(query.presentCount)
        guard heard > 0 else { return unknown(.noKnownBeacon, query) }
        guard heard >= minimumBeacons else { return unknown(.tooFewBeacons(heard: heard, required: minimumBeacons), query) }
        return nil
    }

    private func unknown(_ reason: UnknownReason, _ query: QueryVector, candidates: [SpotCandidate] = []) -> LocationResult {
        LocationResult(
            outcome: .unknown(reason), candidates: candidates, matchedBeacons: Int(query.presentCount),
            unmappedBeacons: query.unmappedBeacons)
    }

    /// The answer from the distances of the rows `blocks` selects, packed (``BlockSelection``); rows it
    /// leaves out share no beacon with the query.
    private func result(
        for query: QueryVector, distances: UnsafeBufferPointer<Float>, blocks: BlockSelection, in map: RadioMap
    ) -> LocationResult {
        // Interpolating between fingerprints, the spots are only listed: no more are gathered than are listed.
        let spotsWanted = self.neighbours == .spots ? max(candidateCount, estimator.candidatesWanted) : candidateCount
        let candidates = nearestSpots(distances, blocks: blocks, in: map, limit: spotsWanted)
        guard let best = candidates.first else { return unknown(.noCommonBeacon, query) }
        let listed = candidates.count <= candidateCount ? candidates : Array(candidates.prefix(candidateCount))
        if let maximumDistance, best.distance > maximumDistance {
            return unknown(.tooFar(distance: best.distance, threshold: maximumDistance), query, candidates: listed)
        }
        let neighbours = switch self.neighbours {
        case .spots: candidates
        case .fingerprints: Self.nearestRows(distances, blocks: blocks, in: map, limit: estimator.candidatesWanted)
        }
        var position = estimator.estimate(from: neighbours, spots: map.spotGrid)
        // The estimator names the nearest spot's zone; drawn zones decide by where the position lies.
        if !map.zones.areas.isEmpty { position.zone = map.zones.zone(atX: position.x, y: position.y, floor: position.floor) }
        return LocationResult(
            outcome: .located(position), candidates: listed,
            matchedBeacons: Int(query.presentCount), unmappedBeacons: query.unmappedBeacons)
    }

    /// The `limit` reference fingerprints nearest to the query, nearest first, each as a candidate of its
    /// spot (a spot appears once per fingerprint, so a spot with several close fingerprints weighs more).
    /// Only the small result buffer is allocated, never anything per row.
    public static func nearestRows(_ rowDistance: UnsafeBufferPointer<Float>, in map: RadioMap, limit: Int) -> [SpotCandidate] {
        nearestRows(rowDistance, blocks: .all(of: map), in: map, limit: limit)
    }

    /// ``nearestRows(_:in:limit:)`` over the rows `blocks` selects, their distances packed.
    package static func nearestRows(
        _ distances: UnsafeBufferPointer<Float>, blocks: BlockSelection, in map: RadioMap, limit: Int
    ) -> [SpotCandidate] {
        NearestCandidates.nearest(limit: limit, in: map) { best in
            let lanes = RadioMap.lanes
            var slot = 0
            for run in blocks.runs {
                for block in run {
                    // Once `limit` rows are kept, a block with no distance under the last of them has nothing to
                    // offer (offer would turn every one away): one vector comparison passes over it.
                    if !distances.hasDistance(below: best.admissionBound, inBlockAt: slot) {
                        slot += lanes
                        continue
                    }
                    let first = block * lanes
                    for row in first..<min(first + lanes, map.count) {
                        best.offer(spot: map.spotOfRow[row], distance: distances[slot + row - first])
                    }
                    slot += lanes
                }
            }
        }
    }

    /// The `limit` spots nearest to the query, nearest first, each at its aggregated distance, from the
    /// distances of the rows `blocks` selects (packed). A spot's rows are contiguous, so each selected run
    /// of rows is cut into spot segments, each aggregated in a tight loop with no per-spot array: what
    /// ``nearest(_:in:limit:)`` of ``spotDistances(fromRowDistances:in:)`` answers for the whole map, in the
    /// same order on ties. A spot split by a gap of unselected rows is aggregated over its selected rows,
    /// the others sharing no beacon with the query.
    ///
    /// With ``SpotAggregation/best``, a block none of whose distances is under the last of `limit` spots
    /// already kept is passed over: a spot's distance is then the least of its other rows', and where that
    /// is not under the last kept one either, the spot was going to be turned away whatever its rows in
    /// the block (the bound only falls as spots are kept). The mean of a spot's best rows can fall under
    /// the bound with one of its rows above it, so that aggregation reads every row.
    package func nearestSpots(_ distances: UnsafeBufferPointer<Float>, blocks: BlockSelection, in map: RadioMap, limit: Int) -> [SpotCandidate] {
        let passesOverBlocks = keptPerSpot == 1
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: keptPerSpot) { best in
            NearestCandidates.nearest(limit: limit, in: map) { nearest in
                var aggregator = SpotAggregator(best: best)
                var slotBase = 0
                for run in blocks.runs {
                    let firstRow = run.lowerBound * RadioMap.lanes, endRow = min(run.upperBound * RadioMap.lanes, map.count)
                    var row = firstRow
                    while row < endRow {
                        // Segments end at block boundaries too, so every block is looked at before it is read.
                        let blockEnd = min((row / RadioMap.lanes + 1) * RadioMap.lanes, endRow)
                        if passesOverBlocks, row % RadioMap.lanes == 0,
                            !distances.hasDistance(below: nearest.admissionBound, inBlockAt: slotBase + row - firstRow)
                        {
                            row = blockEnd
                            continue
                        }
                        let spot = map.spotOfRow[row]
                        let segmentEnd = min(map.spotRanges[spot].upperBound, blockEnd)
                        if spot != aggregator.spot {
                            if let finished = aggregator.finish() { nearest.offer(spot: finished.spot, distance: finished.distance) }
                            aggregator.start(spot)
                        }
                        let first = slotBase + row - firstRow
                        aggregator.add(UnsafeBufferPointer(rebasing: distances[first..<(first + segmentEnd - row)]))
                        row = segmentEnd
                    }
                    slotBase += run.count * RadioMap.lanes
                }
                if let finished = aggregator.finish() { nearest.offer(spot: finished.spot, distance: finished.distance) }
            }
        }
    }

    /// The distance of every spot of `map` to `query` (`.infinity` when no fingerprint of the spot
    /// shares a beacon with it), aggregated per ``aggregation``.
    public func spotDistances(to query: QueryVector, in map: RadioMap) -> [Float] {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: map.count) { rowDistance in
            metric.distances(from: query, in: map, into: rowDistance)
            return spotDistances(fromRowDistances: UnsafeBufferPointer(rowDistance), in: map)
        }
    }

    package func spotDistances(fromRowDistances rowDistance: UnsafeBufferPointer<Float>, in map: RadioMap) -> [Float] {
        var spotDistance = [Float](repeating: .infinity, count: map.spots.count)
        // Each spot's rows are contiguous: one sequential pass per spot.
        withUnsafeTemporaryAllocation(of: Float.self, capacity: keptPerSpot) { best in
            var aggregator = SpotAggregator(best: best)
            for (spot, rows) in map.spotRanges.enumerated() where !rows.isEmpty {
                aggregator.start(spot)
                aggregator.add(UnsafeBufferPointer(rebasing: rowDistance[rows]))
                if let finished = aggregator.finish() { spotDistance[spot] = finished.distance }
            }
        }
        return spotDistance
    }

    /// How many of a spot's smallest row distances its aggregated distance is the mean of.
    private var keptPerSpot: Int {
        switch aggregation {
        case .best: 1
        case .meanOfBest(let count): max(1, count)
        }
    }

    /// The `limit` spots nearest to `query`, nearest first, each at its aggregated distance.
    /// Spots with no fingerprint sharing a beacon with the query are left out.
    public func nearestSpots(to query: QueryVector, in map: RadioMap, limit: Int) -> [SpotCandidate] {
        nearest(spotDistances(to: query, in: map), in: map, limit: limit)
    }

    package func nearest(_ spotDistance: [Float], in map: RadioMap, limit: Int) -> [SpotCandidate] {
        NearestCandidates.nearest(limit: limit, in: map) { nearest in
            for (spot, distance) in spotDistance.enumerated() { nearest.offer(spot: spot, distance: distance) }
        }
    }
}

/// One spot's aggregated distance (``SpotAggregation``) over segments of its rows' distances: the mean of
/// its `best.count` smallest finite distances, summed smallest first as ``Locator/spotDistances(fromRowDistances:in:)`` does.
struct SpotAggregator {
    private let best: UnsafeMutableBufferPointer<Float>
    private(set) var spot = -1

    init(best: UnsafeMutableBufferPointer<Float>) {
        self.best = best
        best.initialize(repeating: .infinity)
    }

    mutating func start(_ spot: Int) {
        self.spot = spot
        best.update(repeating: .infinity)
    }

    @inline(__always)
    func add(_ distances: UnsafeBufferPointer<Float>) {
        switch best.count {
        case 1:
            var smallest = best[0]
            for distance in distances { smallest = min(smallest, distance) }
            best[0] = smallest
        case 2:
            var first = best[0], second = best[1]
            for distance in distances {
                // Branch-free: the two smallest so far (first ≤ second).
                second = min(second, max(first, distance))
                first = min(first, distance)
            }
            best[0] = first
            best[1] = second
        default:
            let last = best.count - 1
            for candidate in distances {
                var distance = candidate
                guard distance < best[last] else { continue }
                for index in 0...last where distance < best[index] { swap(&distance, &best[index]) }
            }
        }
    }

    /// The spot and its distance, nil before the first spot or when none of its rows has a finite distance.
    func finish() -> (spot: Int, distance: Float)? {
        guard spot >= 0 else { return nil }
        if best.count == 1 { return best[0].isFinite ? (spot, best[0]) : nil }
        var sum: Float = 0, finite: Float = 0
        for distance in best where distance.isFinite {
            sum += distance
            finite += 1
        }
        return finite > 0 ? (spot, sum / finite) : nil
    }
}

/// The `limit` nearest candidates offered so far, nearest first; a later candidate at the same distance
/// ranks after an earlier one. They are kept as spot indices and distances on the stack while offers
/// come (a kept candidate moves by two small copies, not a ``SpotCandidate`` with its spot's strings),
/// and listed once at the end: the list is the one array allocated.
struct NearestCandidates {
    let limit: Int
    private let spots: UnsafeMutableBufferPointer<Int>
    private let distances: UnsafeMutableBufferPointer<Float>
    private(set) var count = 0

    /// Calls `offering` with no candidate kept yet, then lists the `limit` nearest it offered, in `map`.
    static func nearest(limit: Int, in map: RadioMap, _ offering: (inout NearestCandidates) -> Void) -> [SpotCandidate] {
        guard limit > 0 else { return [] }
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: limit) { spots in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: limit) { distances in
                var nearest = NearestCandidates(limit: limit, spots: spots, distances: distances)
                offering(&nearest)
                return (0..<nearest.count).map { SpotCandidate(spotIndex: spots[$0], spot: map.spots[spots[$0]], distance: distances[$0]) }
            }
        }
    }

    private init(limit: Int, spots: UnsafeMutableBufferPointer<Int>, distances: UnsafeMutableBufferPointer<Float>) {
        self.limit = limit
        self.spots = spots
        self.distances = distances
    }

    /// What a distance must be under to be kept: the last kept one's once `limit` are kept, until then
    /// infinity (only finite distances are kept).
    var admissionBound: Float {
        count == limit ? distances[limit - 1] : .infinity
    }

    @inline(__always)
    mutating func offer(spot: Int, distance: Float) {
        guard distance.isFinite, count < limit || distance < distances[limit - 1] else { return }
        // From the end (the last one dropped when full), past every kept one farther away: after equals.
        var position = min(count, limit - 1)
        while position > 0, distance < distances[position - 1] {
            distances[position] = distances[position - 1]
            spots[position] = spots[position - 1]
            position -= 1
        }
        distances[position] = distance
        spots[position] = spot
        count = min(count + 1, limit)
    }
}

extension UnsafeBufferPointer<Float> {
    /// Whether one of the block of ``RadioMap/lanes`` (8, what `beaconfix_any_below8` reads) distances
    /// starting at `slot` is under `bound` (NaN never is); true where the buffer ends inside the block,
    /// which is then read row by row.
    @inline(__always)
    @_spi(Profiling) public func hasDistance(below bound: Float, inBlockAt slot: Int) -> Bool {
        guard slot + RadioMap.lanes <= count, let base = baseAddress else { return true }
        return beaconfix_any_below8(base + slot, bound) != 0
    }
}

/// The smallest values offered, in a buffer of as many as are kept, ascending; with a buffer of spots, the
/// smallest value per spot (a spot offered again keeps the smaller of its values, in its one place), so
/// the last kept is the `n`-th smallest of the spots' least values.
struct SmallestValues {
    private let values: UnsafeMutableBufferPointer<Float>
    private let spots: UnsafeMutableBufferPointer<Int>?
    private var count = 0

    init(_ values: UnsafeMutableBufferPointer<Float>, spots: UnsafeMutableBufferPointer<Int>? = nil) {
        self.values = values
        self.spots = spots
    }

    /// The largest value kept once the buffer is full (what a value must be under to be kept), infinity
    /// before; an empty buffer keeps nothing, and its bound is minus infinity.
    var bound: Float {
        if values.isEmpty { return -.infinity }
        return count == values.count ? values[count - 1] : .infinity
    }

    /// Keeps `value` if it is under ``bound``.
    @inline(__always)
    mutating func offer(_ value: Float) {
        guard value < bound else { return }
        insert(value, spot: 0, from: min(count, values.count - 1))
        count = min(count + 1, values.count)
    }

    /// Keeps `value` for `spot` if it is under ``bound`` and under the spot's value kept so far. A spot
    /// turned out of the buffer had a value at least the bound then, so its least value is either kept or
    /// not among the smallest.
    @inline(__always)
    mutating func offer(_ value: Float, spot: Int) {
        guard let spots, value < bound else { return }
        var position = min(count, values.count - 1)
        if let kept = (0..<count).first(where: { spots[$0] == spot }) {
            guard value < values[kept] else { return }
            position = kept
        } else {
            count = min(count + 1, values.count)
        }
        insert(value, spot: spot, from: position)
    }

    /// Writes `value` at `position` (the place of the value it replaces or the last place) and moves it down
    /// to its order.
    @inline(__always)
    private mutating func insert(_ value: Float, spot: Int, from start: Int) {
        var position = start
        while position > 0, value < values[position - 1] {
            values[position] = values[position - 1]
            if let spots { spots[position] = spots[position - 1] }
            position -= 1
        }
        values[position] = value
        if let spots { spots[position] = spot }
    }
}
