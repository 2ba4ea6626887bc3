/// What an approximate ``CandidateSearch`` finds of the exhaustive search's nearest spots, over queries.
///
/// The strongest-beacon search is only as good as the metric lets it be: a metric that charges little
/// for beacons heard on one side only (penalties 2 and 1 in dB² per dB, or the relative-power metrics)
/// ranks far spots that share a few weak beacons with the scan among its 32 nearest, outside every
/// strong-beacon neighbourhood. So the search is never assumed good: a venue uses it only where this
/// recall, measured on its own survey under its own metric, clears ``isFull`` (``SurveyTuner``).
public struct CandidateSearchRecall: Sendable, Hashable, Codable {
    /// Of the exhaustive search's 8 nearest spots per query, how many the search also ranked among its 8.
    public var found8 = 0
    public var wanted8 = 0
    /// Of the exhaustive search's 32 nearest spots per query, how many the search also ranked among its 32.
    public var found32 = 0
    public var wanted32 = 0
    /// Blocks the search selected (with a spots-first search's centroid blocks), and the map's blocks,
    /// summed over the queries.
    public var blocksRead = 0
    public var blocks = 0
    public var queries = 0

    public init() {}

    /// Share of the exhaustive 8 nearest spots found.
    public var at8: Double { Double(found8) / Double(max(1, wanted8)) }
    /// Share of the exhaustive 32 nearest spots found.
    public var at32: Double { Double(found32) / Double(max(1, wanted32)) }
    /// Share of the map's blocks read.
    public var readShare: Double { Double(blocksRead) / Double(max(1, blocks)) }

    /// The bar an approximate search must clear to be used: every one of the 8 nearest spots and at least
    /// 99.9% of the 32 nearest (the most neighbours and candidates a tuned locator reads).
    public var isFull: Bool { found8 == wanted8 && at32 >= Self.required32 }

    /// The share of the exhaustive 32 nearest spots ``isFull`` requires.
    public static let required32 = 0.999

    /// The exhaustive search's 32 nearest spots of `query` under `locator`'s metric and aggregation,
    /// nearest first: what ``measure(_:locator:queries:in:truth:)`` compares a search with.
    public static func truth(of query: QueryVector, locator: Locator, in map: RadioMap) -> [Int] {
        locator.nearestSpots(to: query, in: map, limit: 32).map(\.spotIndex)
    }

    /// Measures `search` on `queries` against the exhaustive search, under `locator`'s metric and
    /// aggregation. `truth` gives each query's ``truth(of:locator:in:)`` when it was computed already.
    public static func measure(
        _ search: CandidateSearch, locator: Locator, queries: [QueryVector], in map: RadioMap, truth: [[Int]]? = nil
    ) -> CandidateSearchRecall {
        var recall = CandidateSearchRecall()
        var searching = locator
        searching.candidateSearch = search
        for (index, query) in queries.enumerated() {
            let blocks = searching.candidateBlocks(for: query, in: map)
            let nearest = withUnsafeTemporaryAllocation(of: Float.self, capacity: max(1, blocks.packedCount)) { packed in
                locator.metric.distances(from: query, in: map, blocks: blocks, into: packed)
                return locator.nearestSpots(UnsafeBufferPointer(packed), blocks: blocks, in: map, limit: 32)
            }
            let exhaustive = truth?[index] ?? Self.truth(of: query, locator: locator, in: map)
            let kept8 = Set(nearest.prefix(8).map(\.spotIndex)), kept32 = Set(nearest.map(\.spotIndex))
            recall.found8 += exhaustive.prefix(8).filter { kept8.contains($0) }.count
            recall.wanted8 += min(8, exhaustive.count)
            recall.found32 += exhaustive.filter { kept32.contains($0) }.count
            recall.wanted32 += exhaustive.count
            recall.blocksRead += blocks.blockCount
            if case .spotsFirst(_, let coarse) = search, let centroids = map.spotCentroids {
                // The centroids' blocks are read too, before the fingerprints'.
                var ranking = locator
                ranking.candidateSearch = coarse
                recall.blocksRead += ranking.candidateBlocks(for: query, in: centroids).blockCount
            }
            recall.blocks += map.blockCount
            recall.queries += 1
        }
        return recall
    }

    /// The counts of both, as if measured over both sets of queries.
    public static func + (lhs: CandidateSearchRecall, rhs: CandidateSearchRecall) -> CandidateSearchRecall {
        var sum = lhs
        sum.found8 += rhs.found8
        sum.wanted8 += rhs.wanted8
        sum.found32 += rhs.found32
        sum.wanted32 += rhs.wanted32
        sum.blocksRead += rhs.blocksRead
        sum.blocks += rhs.blocks
        sum.queries += rhs.queries
        return sum
    }
}
