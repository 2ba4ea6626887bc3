@testable import Positioning
import ScanFormats
import Testing

/// How ``Locator/defaultCandidateSearch`` was chosen, rerun so that it stays the choice: on synthetic venues
/// only, never on a walk, the cheapest strongest-beacon setting (the largest share of a venue's blocks it
/// reads) that keeps every one of the exhaustive search's 8 nearest spots and 99.9% of its 32 nearest on
/// every venue, over a grid.
@Suite("The default candidate search is the cheapest setting with full recall on synthetic venues")
struct CandidateSearchChoiceTests {
    static let venues = [(100, 4, 40_000), (64, 4, 16_000), (100, 8, 80_000)]

    @Test("the grid's cheapest setting with full recall is the default")
    func choice() throws {
        // Given the synthetic venues, each with 300 scans between its spots, and their exhaustive 8 nearest spots
        let metric = DecibelOffsetMetric()
        let exhaustive = Locator(metric: metric, estimator: WeightedNearestSpots(neighbourCount: 4), candidateSearch: .exhaustive)
        var prepared: [(map: RadioMap, queries: [QueryVector], truth: [[Int]])] = []
        for (beaconsPerFloor, floors, fingerprints) in Self.venues {
            let venue = try CandidateSearchTests.syntheticVenue(
                beaconsPerFloor: beaconsPerFloor, floors: floors, fingerprints: fingerprints, queries: 300)
            let map = try RadioMap(spots: venue.spots, fingerprints: venue.references, representation: metric.representation)
            let queries = venue.queries.map { map.query(for: $0) }
            prepared.append((map, queries, queries.map { exhaustive.nearestSpots(to: $0, in: map, limit: 32).map(\.spotIndex) }))
        }
        // When every setting of the grid searches them
        var settings: [(search: CandidateSearch, readShare: Double, recall8: Double, recall32: Double)] = []
        for queryBeacons in [4, 6, 8] {
            for referenceRank in [4, 6, 8] {
                for minimumShared in [1, 2, 3] where minimumShared <= queryBeacons {
                    let search = CandidateSearch.strongestBeacons(
                        queryBeacons: queryBeacons, referenceRank: referenceRank, minimumShared: minimumShared, maximumShare: 0.25,
                        exactBelowBlocks: Locator.smallMapBlocks)
                    var worst8 = 1.0, worst32 = 1.0, worstShare = 0.0
                    for venue in prepared {
                        var found8 = 0, found32 = 0, wanted8 = 0, wanted32 = 0, read = 0
                        for (query, truth) in zip(venue.queries, venue.truth) {
                            let blocks = venue.map.candidateBlocks(for: query, search: search)
                            read += blocks.blockCount
                            let nearest = withUnsafeTemporaryAllocation(of: Float.self, capacity: max(1, blocks.packedCount)) { packed in
                                metric.distances(from: query, in: venue.map, blocks: blocks, into: packed)
                                return exhaustive.nearestSpots(UnsafeBufferPointer(packed), blocks: blocks, in: venue.map, limit: 32)
                            }
                            let kept8 = Set(nearest.prefix(8).map(\.spotIndex)), kept32 = Set(nearest.map(\.spotIndex))
                            found8 += truth.prefix(8).filter { kept8.contains($0) }.count
                            found32 += truth.filter { kept32.contains($0) }.count
                            wanted8 += min(8, truth.count)
                            wanted32 += truth.count
                        }
                        worst8 = min(worst8, Double(found8) / Double(max(1, wanted8)))
                        worst32 = min(worst32, Double(found32) / Double(max(1, wanted32)))
                        worstShare = max(worstShare, Double(read) / Double(venue.queries.count * venue.map.blockCount))
                    }
                    print("search grid: \(search): reads at most \(worstShare) of a venue; recall at least \(worst8) of the 8 nearest, \(worst32) of the 32 nearest")
                    settings.append((search, worstShare, worst8, worst32))
                }
            }
        }
        // Then the default is the cheapest setting that finds all of them on every venue
        let cheapest = try #require(settings.filter { $0.recall8 == 1 && $0.recall32 >= 0.999 }.min { $0.readShare < $1.readShare })
        print("search grid: the cheapest with full recall is \(cheapest.search), reading at most \(cheapest.readShare)")
        #expect(cheapest.search == Locator.defaultCandidateSearch)
    }
}
