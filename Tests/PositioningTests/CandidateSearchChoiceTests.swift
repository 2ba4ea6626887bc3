import Positioning
import ScanFormats
import Testing

/// How ``Locator/strongestBeaconSearch`` was chosen, rerun so that it stays the choice: on synthetic venues
/// only, never on a walk, under the dB-offset metric with penalties 5 and 2, the cheapest strongest-beacon
/// setting (the largest share of a venue's blocks it reads) that keeps every one of the exhaustive search's
/// 8 nearest spots and 99.9% of its 32 nearest on every venue, over a grid. Under other metrics the same
/// setting keeps less (CandidateSearchTests measures it per metric), so a venue uses it only where the
/// tuner measured it to keep the recall on the venue's own survey.
@Suite("The strongest-beacon search is the cheapest setting with full recall on synthetic venues")
struct CandidateSearchChoiceTests {
    static let venues = [(100, 4, 40_000), (64, 4, 16_000), (100, 8, 80_000)]

    @Test("the grid's cheapest setting with full recall is the one venues use")
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
            prepared.append((map, queries, queries.map { CandidateSearchRecall.truth(of: $0, locator: exhaustive, in: map) }))
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
                        let recall = CandidateSearchRecall.measure(search, locator: exhaustive, queries: venue.queries, in: venue.map, truth: venue.truth)
                        worst8 = min(worst8, recall.at8)
                        worst32 = min(worst32, recall.at32)
                        worstShare = max(worstShare, recall.readShare)
                    }
                    print("search grid: \(search): reads at most \(worstShare) of a venue; recall at least \(worst8) of the 8 nearest, \(worst32) of the 32 nearest")
                    settings.append((search, worstShare, worst8, worst32))
                }
            }
        }
        // Then the default is the cheapest setting that finds all of them on every venue
        let cheapest = try #require(
            settings.filter { $0.recall8 == 1 && $0.recall32 >= CandidateSearchRecall.required32 }.min { $0.readShare < $1.readShare })
        print("search grid: the cheapest with full recall is \(cheapest.search), reading at most \(cheapest.readShare)")
        #expect(cheapest.search == Locator.strongestBeaconSearch)
    }
}
