@testable import Positioning
import ScanFormats
import Testing

/// The candidate searches against the exhaustive one. The beacon index (``CandidateSearch/beaconIndex``)
/// claims to be exact: every answer must equal the exhaustive search's, for every metric, aggregation and
/// neighbour level. The strongest-beacon search (the default) is approximate on large venues: its recall
/// of the exhaustive search's nearest spots is measured here.
@Suite("Candidate searches against the exhaustive search")
struct CandidateSearchTests {
    /// Every metric the tuner can choose, with both kernels of the squared family.
    static let metrics: [any FingerprintMetric] = [
        DecibelOffsetMetric(), DecibelOffsetMetric(offsetShrinkage: 4), PairwiseDifferenceMetric(),
        PairwiseDifferenceMetric(kernel: .blas), EuclideanMetric(), ManhattanMetric(), SorensenMetric(),
    ]

    /// What a search found of the exhaustive answers, over some queries.
    struct Recall {
        var found8 = 0, wanted8 = 0, found32 = 0, wanted32 = 0, equalAnswers = 0, queries = 0, blocksRead = 0, blocks = 0

        var at8: Double { Double(found8) / Double(max(1, wanted8)) }
        var at32: Double { Double(found32) / Double(max(1, wanted32)) }
        var equalShare: Double { Double(equalAnswers) / Double(max(1, queries)) }
        var readShare: Double { Double(blocksRead) / Double(max(1, blocks)) }
    }

    /// Locates every query by the exhaustive search and by `search` under every metric, aggregation and
    /// neighbour level (or only the default locator's, dB-offset with the best spot, when `everyMetric` is false).
    static func compare(
        _ search: CandidateSearch, queries: [Fingerprint], spots: [Spot], references: [(spot: Int, fingerprint: Fingerprint)],
        everyMetric: Bool = true
    ) throws -> Recall {
        var recall = Recall()
        for metric in everyMetric ? metrics : [DecibelOffsetMetric()] {
            let map = try RadioMap(spots: spots, fingerprints: references, representation: metric.representation)
            for aggregation in everyMetric ? [SpotAggregation.best, .meanOfBest(2), .meanOfBest(3)] : [.best] {
                for neighbours in everyMetric ? [NeighbourLevel.spots, .fingerprints] : [.spots] {
                    let exhaustive = Locator(
                        metric: metric, aggregation: aggregation, neighbours: neighbours,
                        estimator: WeightedNearestSpots(neighbourCount: 4), candidateSearch: .exhaustive)
                    var searched = exhaustive
                    searched.candidateSearch = search
                    for query in queries {
                        let vector = map.query(for: query)
                        let blocks = map.candidateBlocks(for: vector, search: search)
                        let nearest = withUnsafeTemporaryAllocation(of: Float.self, capacity: max(1, blocks.packedCount)) { packed in
                            metric.distances(from: vector, in: map, blocks: blocks, into: packed)
                            return exhaustive.nearestSpots(UnsafeBufferPointer(packed), blocks: blocks, in: map, limit: 32)
                        }
                        let truth = exhaustive.nearestSpots(to: vector, in: map, limit: 32)
                        let found = Set(nearest.map(\.spotIndex)), found8 = Set(nearest.prefix(8).map(\.spotIndex))
                        recall.found32 += truth.filter { found.contains($0.spotIndex) }.count
                        recall.wanted32 += truth.count
                        recall.found8 += truth.prefix(8).filter { found8.contains($0.spotIndex) }.count
                        recall.wanted8 += min(8, truth.count)
                        if searched.locate(vector, in: map) == exhaustive.locate(vector, in: map) { recall.equalAnswers += 1 }
                        recall.queries += 1
                        recall.blocksRead += blocks.blockCount
                        recall.blocks += map.blockCount
                    }
                }
            }
        }
        return recall
    }

    /// A synthetic venue of `floors` floors of `beaconsPerFloor` beacons, 10 fingerprints per spot, and
    /// `queries` scans between spots on every floor by another phone.
    static func syntheticVenue(
        beaconsPerFloor: Int, floors: Int, fingerprints: Int, queries: Int
    ) throws -> (spots: [Spot], references: [(spot: Int, fingerprint: Fingerprint)], queries: [Fingerprint]) {
        let venue = try SimulatedVenues.grid(beacons: beaconsPerFloor * floors, spots: fingerprints / 10, floors: floors, seed: 1)
        let builder = PositioningConfiguration().builder
        var generator = SeededGenerator(seed: 2)
        let references = venue.standingFingerprints(samplesPerSpot: 10, builder: builder, using: &generator)
        let scans = venue.scansBetweenSpots(count: queries, using: &generator).compactMap { try? builder.fingerprint(of: [$0]) }
        return (venue.definition.spots, references, scans)
    }

    @Test("on every shared dataset's walk (or survey): the beacon index is exact, and so is the default search",
          .enabled(if: SharedDatasets.available, "../shared/datasets is absent"),
          arguments: ["uji-geo-p4", "uji-geo-p12", "uji-geo-p20", "kolakowski-flat", "wmu-waldo"])
    func sharedDatasets(dataset: String) throws {
        // Given the survey as `survey record` stores it, and the walk's scans (waldo has none: a spread of
        // its survey scans, each also in the map, stands in)
        let venue = try SharedDatasets.venue(dataset)
        let builder = PositioningConfiguration().builder
        let survey = SurveyFingerprints(
            survey: try SharedDatasets.labelledSamples(dataset, "survey.jsonl"), windowSize: 1, spots: venue.spots, builder: builder)
        let walk = dataset == "wmu-waldo"
            ? Array(survey.surveyed.map(\.fingerprint).enumerated().filter { $0.offset % 7 == 0 }.map(\.element))
            : try SharedDatasets.labelledSamples(dataset, "test.jsonl").compactMap { try? builder.fingerprint(of: [$0.sample]) }
        let queries = walk.count > 400 ? walk.enumerated().filter { $0.offset % (walk.count / 400) == 0 }.map(\.element) : walk
        let references = survey.surveyed.map { ($0.spot, $0.fingerprint) }
        // When every scan is located by the exhaustive search, the beacon index and the default search
        let exact = try Self.compare(.beaconIndex, queries: queries, spots: survey.spots, references: references)
        let standard = try Self.compare(Locator.defaultCandidateSearch, queries: queries, spots: survey.spots, references: references)
        print("\(dataset): beacon index reads \(exact.readShare) of the blocks, the default search \(standard.readShare); equal answers \(exact.equalShare) and \(standard.equalShare)")
        // Then both answer exactly as the exhaustive search, whatever the metric
        #expect(exact.equalAnswers == exact.queries && exact.at32 == 1)
        #expect(standard.equalAnswers == standard.queries && standard.at32 == 1)
    }

    @Test("on a 4-floor venue of 256 beacons, the beacon index is exact whatever the metric")
    func multiFloorVenue() throws {
        // Given a synthetic venue of 4 floors of 64 beacons, 4,000 fingerprints, and scans between its spots
        let venue = try Self.syntheticVenue(beaconsPerFloor: 64, floors: 4, fingerprints: 4_000, queries: 30)
        // When they are located by the exhaustive search and through the beacon index
        let exact = try Self.compare(.beaconIndex, queries: venue.queries, spots: venue.spots, references: venue.references)
        // Then the answers are equal, while the index skips the blocks that hear none of the query's beacons
        #expect(exact.equalAnswers == exact.queries)
        #expect(exact.readShare < 0.9, "\(exact.readShare)")
    }

    @Test("on large synthetic venues, the default search reads a few percent and finds the nearest spots",
          arguments: [(100, 4, 40_000), (64, 4, 16_000), (100, 8, 80_000)])
    func largeVenues(layout: (beaconsPerFloor: Int, floors: Int, fingerprints: Int)) throws {
        // Given a synthetic venue of several floors and hundreds of beacons, and 300 scans between its spots
        let venue = try Self.syntheticVenue(
            beaconsPerFloor: layout.beaconsPerFloor, floors: layout.floors, fingerprints: layout.fingerprints, queries: 300)
        // When they are located by the exhaustive search and by the default search, with the default metric
        let standard = try Self.compare(
            Locator.defaultCandidateSearch, queries: venue.queries, spots: venue.spots, references: venue.references, everyMetric: false)
        print("\(layout): the default search reads \(standard.readShare) of the blocks; recall of the 8 nearest spots \(standard.at8), of the 32 nearest \(standard.at32); equal answers \(standard.equalShare)")
        // Then it reads under a sixth of the map, finds at least 99.9% of the exhaustive search's 8 and 32
        // nearest spots, and gives the same answer at least 99.9% of the time
        #expect(standard.readShare < 1.0 / 6, "\(standard.readShare)")
        #expect(standard.at8 >= 0.999, "\(standard.at8)")
        #expect(standard.at32 >= 0.999, "\(standard.at32)")
        #expect(standard.equalShare >= 0.999, "\(standard.equalShare)")
    }

    @Test("a batch through the default search answers exactly as its queries one by one, in its order")
    func batchEqualsSingle() throws {
        // Given a 4-floor venue large enough to be searched approximately, and 64 scans between its spots
        let venue = try Self.syntheticVenue(beaconsPerFloor: 64, floors: 4, fingerprints: 16_000, queries: 64)
        let map = try RadioMap(spots: venue.spots, fingerprints: venue.references, representation: DecibelOffsetMetric().representation)
        #expect(map.blockCount >= Locator.smallMapBlocks)
        let locator = Locator(metric: DecibelOffsetMetric(), estimator: WeightedNearestSpots(neighbourCount: 4))
        // And one query that hears nothing the survey heard
        let queries = venue.queries.map { map.query(for: $0) } + [map.query(for: Fixtures.fingerprint(rssi: [9_999: -50]))]
        // When they are located as one batch, which reorders them by where they read the map
        let batch = locator.locate(batch: queries, in: map)
        // Then every answer is the one the query gets alone, at its own index
        #expect(batch == queries.map { locator.locate($0, in: map) })
        #expect(batch.last?.position == nil)
    }

    @Test("a query hearing no surveyed beacon selects nothing and is unknown either way")
    func nothingHeard() throws {
        // Given a map of two spots, and a query of a beacon the survey never heard
        let map = try RadioMap(
            spots: [Spot(name: "a", x: 0, y: 0, floor: 0), Spot(name: "b", x: 5, y: 0, floor: 0)],
            fingerprints: [(0, Fixtures.fingerprint(rssi: [1: -60, 2: -70])), (1, Fixtures.fingerprint(rssi: [2: -60]))],
            representation: DecibelOffsetMetric().representation)
        let query = map.query(for: Fixtures.fingerprint(rssi: [9: -50]))
        // Then no search selects a block, and every search answers as the exhaustive one
        #expect(map.candidateBlocks(for: query).blockCount == 0)
        #expect(map.candidateBlocks(for: query, search: Locator.defaultCandidateSearch).blockCount == 0)
        let locator = Locator(metric: DecibelOffsetMetric(), estimator: WeightedNearestSpots(neighbourCount: 2))
        var exhaustive = locator
        exhaustive.candidateSearch = .exhaustive
        #expect(locator.locate(query, in: map) == exhaustive.locate(query, in: map))
    }

    @Test("the block runs of a beacon cover exactly the blocks whose fingerprints hear it")
    func blockRuns() throws {
        // Given 20 fingerprints (3 blocks), beacon 1 heard only by rows 0 and 17, beacon 2 by every row
        let spots = (0..<20).map { Spot(name: "s\($0)", x: Double($0), y: 0, floor: 0) }
        let references = (0..<20).map { row in
            (row, Fixtures.fingerprint(rssi: row == 0 || row == 17 ? [1: -60, 2: -70] : [2: -70]))
        }
        let map = try RadioMap(spots: spots, fingerprints: references, representation: DecibelOffsetMetric().representation)
        // Then beacon 1's runs are blocks 0 and 2, beacon 2's all three, and a query of beacon 1 selects blocks 0 and 2
        let first = try #require(map.column(of: Fixtures.beacon(1))), second = try #require(map.column(of: Fixtures.beacon(2)))
        #expect(Array(map.blockRuns(ofColumn: first)) == [0..<1, 2..<3])
        #expect(Array(map.blockRuns(ofColumn: second)) == [0..<3])
        #expect(map.candidateBlocks(for: map.query(for: Fixtures.fingerprint(rssi: [1: -55]))).runs == [0..<1, 2..<3])
    }
}
