import Positioning
import PositioningTuning
import ScanFormats
import Testing
import TestSupport
import VenueSimulator

/// The candidate searches against the exhaustive one. The beacon index (``CandidateSearch/beaconIndex``)
/// claims to be exact: every answer must equal the exhaustive search's, for every metric, aggregation and
/// neighbour level. The strongest-beacon search is approximate on large venues: its recall of the
/// exhaustive search's nearest spots is measured here, per metric, and the tuner's choice of it.
@Suite("Candidate searches against the exhaustive search")
struct CandidateSearchTests {
    /// Every metric the tuner can choose, with both kernels of the squared family.
    static let metrics: [any FingerprintMetric] = [
        DecibelOffsetMetric(), DecibelOffsetMetric(offsetShrinkage: 4), PairwiseDifferenceMetric(),
        PairwiseDifferenceMetric(kernel: .blas), EuclideanMetric(), ManhattanMetric(), SorensenMetric(),
    ]

    /// What a search found of the exhaustive answers, over some queries, and how often it answered alike.
    struct Comparison {
        var recall = CandidateSearchRecall()
        var equalAnswers = 0

        var equalShare: Double { Double(equalAnswers) / Double(max(1, recall.queries)) }
        var allEqual: Bool { equalAnswers == recall.queries }
    }

    /// Locates every query by the exhaustive search and by `search` under every metric, aggregation and
    /// neighbour level (or only `metric`'s, with the best spot, when one is given).
    static func compare(
        _ search: CandidateSearch, queries: [Fingerprint], spots: [Spot], references: [(spot: Int, fingerprint: Fingerprint)],
        metric only: (any FingerprintMetric)? = nil
    ) throws -> Comparison {
        var comparison = Comparison()
        for metric in only.map({ [$0] }) ?? metrics {
            let map = try RadioMap(spots: spots, fingerprints: references, representation: metric.representation)
            let vectors = queries.map { map.query(for: $0) }
            for aggregation in only == nil ? [SpotAggregation.best, .meanOfBest(2), .meanOfBest(3)] : [.best] {
                for neighbours in only == nil ? [NeighbourLevel.spots, .fingerprints] : [.spots] {
                    let exhaustive = Locator(
                        metric: metric, aggregation: aggregation, neighbours: neighbours,
                        estimator: WeightedNearestSpots(neighbourCount: 4), candidateSearch: .exhaustive)
                    var searched = exhaustive
                    searched.candidateSearch = search
                    comparison.recall = comparison.recall + CandidateSearchRecall.measure(search, locator: exhaustive, queries: vectors, in: map)
                    comparison.equalAnswers += vectors.count { searched.locate($0, in: map) == exhaustive.locate($0, in: map) }
                }
            }
        }
        return comparison
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

    @Test("on every shared dataset's walk (or survey): the beacon index is exact, and so is the strongest-beacon search (the maps are small)",
          .enabled(if: SharedDatasets.available, "../shared/datasets is absent"),
          arguments: ["uji-geo-p4", "uji-geo-p12", "uji-geo-p20", "kolakowski-flat", "wmu-waldo"])
    func sharedDatasets(dataset: String) throws {
        // Given the survey as `survey record` stores it, and the walk's scans (waldo has none: a spread of
        // its survey scans, each also in the map, stands in)
        let (spots, references, queries) = try SharedDatasets.surveyAndScans(dataset)
        // When every scan is located by the exhaustive search, the beacon index and the strongest-beacon search
        let exact = try Self.compare(.beaconIndex, queries: queries, spots: spots, references: references)
        let strongest = try Self.compare(Locator.strongestBeaconSearch, queries: queries, spots: spots, references: references)
        print("\(dataset): beacon index reads \(exact.recall.readShare) of the blocks, the strongest-beacon search \(strongest.recall.readShare); equal answers \(exact.equalShare) and \(strongest.equalShare)")
        // Then both answer exactly as the exhaustive search, whatever the metric
        #expect(exact.allEqual && exact.recall.at32 == 1)
        #expect(strongest.allEqual && strongest.recall.at32 == 1)
    }

    @Test("on a 4-floor venue of 256 beacons, the beacon index is exact whatever the metric")
    func multiFloorVenue() throws {
        // Given a synthetic venue of 4 floors of 64 beacons, 4,000 fingerprints, and scans between its spots
        let venue = try Self.syntheticVenue(beaconsPerFloor: 64, floors: 4, fingerprints: 4_000, queries: 30)
        // When they are located by the exhaustive search and through the beacon index
        let exact = try Self.compare(.beaconIndex, queries: venue.queries, spots: venue.spots, references: venue.references)
        // Then the answers are equal, while the index skips the blocks that hear none of the query's beacons
        #expect(exact.allEqual)
        #expect(exact.recall.readShare < 0.9, "\(exact.recall.readShare)")
    }

    @Test("on large synthetic venues, the strongest-beacon search under the dB-offset metric reads a few percent and finds the nearest spots",
          arguments: [(100, 4, 40_000), (64, 4, 16_000), (100, 8, 80_000)])
    func largeVenues(layout: (beaconsPerFloor: Int, floors: Int, fingerprints: Int)) throws {
        // Given a synthetic venue of several floors and hundreds of beacons, and 300 scans between its spots
        let venue = try Self.syntheticVenue(
            beaconsPerFloor: layout.beaconsPerFloor, floors: layout.floors, fingerprints: layout.fingerprints, queries: 300)
        // When they are located by the exhaustive search and by the strongest-beacon search, under the metric it was chosen with
        let strongest = try Self.compare(
            Locator.strongestBeaconSearch, queries: venue.queries, spots: venue.spots, references: venue.references, metric: DecibelOffsetMetric())
        print("\(layout): the strongest-beacon search reads \(strongest.recall.readShare) of the blocks; recall of the 8 nearest spots \(strongest.recall.at8), of the 32 nearest \(strongest.recall.at32); equal answers \(strongest.equalShare)")
        // Then it reads under a sixth of the map, finds every one of the exhaustive search's 8 nearest
        // spots and at least 99.9% of its 32 nearest, and gives the same answer at least 99.9% of the time
        #expect(strongest.recall.readShare < 1.0 / 6, "\(strongest.recall.readShare)")
        #expect(strongest.recall.isFull, "\(strongest.recall.at8) \(strongest.recall.at32)")
        #expect(strongest.equalShare >= 0.999, "\(strongest.equalShare)")
    }

    @Test("under each metric the tuner can choose, the strongest-beacon search's recall on a large venue, and the metrics it falls short under")
    func recallPerMetric() throws {
        // Given a 4-floor venue of 400 beacons and 40,000 fingerprints, and 100 scans between its spots
        let venue = try Self.syntheticVenue(beaconsPerFloor: 100, floors: 4, fingerprints: 40_000, queries: 100)
        var maps: [SignalRepresentation: RadioMap] = [:]
        var recalls: [TunedConfiguration.Metric: CandidateSearchRecall] = [:]
        // When each metric of the tuner's search space ranks their nearest spots, exhaustively and through the search
        for described in [TunedConfiguration.untuned.metric] + TuningSearchSpace.standard.metrics where recalls[described] == nil {
            let metric = described.make()
            let map = try maps[metric.representation] ?? RadioMap(spots: venue.spots, fingerprints: venue.references, representation: metric.representation)
            maps[metric.representation] = map
            let recall = CandidateSearchRecall.measure(
                Locator.strongestBeaconSearch, locator: Locator(metric: metric, estimator: WeightedNearestSpots(), candidateSearch: .exhaustive),
                queries: venue.queries.map { map.query(for: $0) }, in: map)
            recalls[described] = recall
            print(String(format: "recall per metric: %@: of the 8 nearest %.4f, of the 32 nearest %.4f, reading %.3f of the map%@", "\(described)", recall.at8, recall.at32, recall.readShare, recall.isFull ? "" : " (falls short)"))
        }
        // Then it keeps them under the metric it was chosen with, and falls short under the untuned venue's
        // metric, whose locator therefore reads the exact beacon index
        #expect(recalls[.decibelOffset(floor: -100, queryOnly: 5, referenceOnly: 2, offsetShrinkage: 0)]?.isFull == true)
        #expect(recalls[TunedConfiguration.untuned.metric]?.isFull == false)
        #expect(TunedConfiguration.untuned.locator.candidateSearch == .beaconIndex)
    }

    @Test("the tuner keeps the strongest-beacon search only under a metric whose recall it measured to clear the bar")
    func tunerChoosesTheSearch() throws {
        // Given a 4-floor venue of 256 beacons surveyed with 16,000 fingerprints (2,000 blocks: large enough to narrow)
        let venue = try Self.syntheticVenue(beaconsPerFloor: 64, floors: 4, fingerprints: 16_000, queries: 0)
        let survey = venue.references.enumerated().map { index, reference in
            SurveyedFingerprint(spot: reference.spot, run: index / 10, device: "rig", time: Double(index), fingerprint: reference.fingerprint)
        }
        let validation = SurveyCrossValidation(
            spots: venue.spots, survey: survey, scale: PositioningConfiguration().builder.scale, maximumQueries: 600)
        // When the search is chosen for a map of single scans under a metric that charges one-sided beacons
        // heavily (10 and 5) and under the untuned venue's (2 and 1)
        let heavy = try validation.candidateSearch(
            for: MapCandidate(window: .fingerprints(1), metric: .decibelOffset(floor: -100, queryOnly: 10, referenceOnly: 5, offsetShrinkage: 4)),
            aggregation: .best)
        let light = try validation.candidateSearch(
            for: MapCandidate(window: .fingerprints(1), metric: TunedConfiguration.untuned.metric), aggregation: .best)
        // Then each choice follows its measured recall on 300 survey scans: the strongest beacons where it
        // cleared the bar, the exact beacon index where it did not
        let heavyRecall = try #require(heavy.recall), lightRecall = try #require(light.recall)
        print("tuner's search: penalties 10/5: \(heavy.search), recall \(heavyRecall.at8) / \(heavyRecall.at32); 2/1: \(light.search), recall \(lightRecall.at8) / \(lightRecall.at32)")
        #expect(heavyRecall.queries == SurveyCrossValidation.candidateSearchQueries)
        #expect(heavyRecall.isFull && (Locator.strongestBeaconLadder + Locator.spotsFirstSearches).contains(heavy.search))
        #expect(!lightRecall.isFull && light.search == .beaconIndex)
        // And a small map is read whole, with no recall measured
        let small = SurveyCrossValidation(spots: venue.spots, survey: Array(survey.prefix(800)), scale: PositioningConfiguration().builder.scale)
        let smallChoice = try small.candidateSearch(for: MapCandidate(window: .fingerprints(1), metric: TunedConfiguration.untuned.metric), aggregation: .best)
        #expect(smallChoice.search == .beaconIndex && smallChoice.recall == nil)
    }

    @Test("on a denser survey the tuner takes a narrower step of the ladder, which keeps the recall on another phone's scans")
    func denserSurveyNarrowerSearch() throws {
        // Given two 4-floor venues of 256 beacons on the same floors, one surveyed 4 times as densely, and
        // 300 scans between spots by another phone on each
        let metric = MapCandidate(window: .fingerprints(1), metric: .decibelOffset(floor: -100, queryOnly: 10, referenceOnly: 5, offsetShrinkage: 4))
        var chosen: [(step: Int, readShare: Double)] = []
        for fingerprints in [16_000, 64_000] {
            let venue = try Self.syntheticVenue(beaconsPerFloor: 64, floors: 4, fingerprints: fingerprints, queries: 300)
            let survey = venue.references.enumerated().map { index, reference in
                SurveyedFingerprint(spot: reference.spot, run: index / 10, device: "rig", time: Double(index), fingerprint: reference.fingerprint)
            }
            let validation = SurveyCrossValidation(
                spots: venue.spots, survey: survey, scale: PositioningConfiguration().builder.scale, maximumQueries: 600)
            // When the tuner chooses the search on each survey's own scans
            let choice = try validation.candidateSearch(for: metric, aggregation: .best)
            let step = try #require(Locator.strongestBeaconLadder.firstIndex(of: choice.search), "\(choice.search)")
            // Then the step it took also keeps the nearest spots of scans it never saw, by another phone
            let map = try RadioMap(spots: venue.spots, fingerprints: venue.references, representation: DecibelOffsetMetric().representation)
            let locator = Locator(metric: metric.metric.make(), estimator: WeightedNearestSpots(), candidateSearch: .exhaustive)
            let unseen = CandidateSearchRecall.measure(choice.search, locator: locator, queries: venue.queries.map { map.query(for: $0) }, in: map)
            print("tuner's step at \(fingerprints) fingerprints: \(choice.search); on the survey \(choice.recall?.at8 ?? 0) / \(choice.recall?.at32 ?? 0), on another phone's scans \(unseen.at8) / \(unseen.at32), reading \(unseen.readShare)")
            #expect(unseen.isFull, "\(fingerprints) fingerprints: \(unseen)")
            chosen.append((step, unseen.readShare))
        }
        // And the denser survey took a narrower step than the sparser one, reading less of its map
        #expect(chosen[1].step < chosen[0].step)
        #expect(chosen[1].readShare < chosen[0].readShare)
    }

    @Test("a batch through the strongest-beacon search answers exactly as its queries one by one, in its order")
    func batchEqualsSingle() throws {
        // Given a 4-floor venue large enough to be searched approximately, and 64 scans between its spots
        let venue = try Self.syntheticVenue(beaconsPerFloor: 64, floors: 4, fingerprints: 16_000, queries: 64)
        let map = try RadioMap(spots: venue.spots, fingerprints: venue.references, representation: DecibelOffsetMetric().representation)
        #expect(map.blockCount >= Locator.smallMapBlocks)
        let locator = Locator(
            metric: DecibelOffsetMetric(), estimator: WeightedNearestSpots(neighbourCount: 4), candidateSearch: Locator.strongestBeaconSearch)
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
        #expect(map.candidateBlocks(for: query, search: Locator.strongestBeaconSearch).blockCount == 0)
        let locator = Locator(metric: DecibelOffsetMetric(), estimator: WeightedNearestSpots(neighbourCount: 2))
        var exhaustive = locator
        exhaustive.candidateSearch = .exhaustive
        #expect(locator.locate(query, in: map) == exhaustive.locate(query, in: map))
    }

    @Test("a selection's runs are counted before they are laid out, across word boundaries", arguments: [0, 1, 2, 3])
    func runCount(seed: UInt64) {
        // Given bitmaps of 200 blocks (4 words) with random runs, some crossing from one word into the next
        var generator = SeededGenerator(seed: seed)
        let words = 4
        var bits = [UInt64](repeating: 0, count: words)
        var block = Int.random(in: 0..<5, using: &generator)
        var expected: [Range<Int>] = []
        while block < 200 {
            let end = min(200, block + Int.random(in: 1...70, using: &generator))
            expected.append(block..<end)
            for index in block..<end { bits[index / 64] |= 1 << UInt64(index % 64) }
            block = end + Int.random(in: 1...40, using: &generator)
        }
        // When they are counted and laid out
        let (count, runs) = bits.withUnsafeMutableBufferPointer { buffer in
            (RadioMap.runCount(of: buffer), RadioMap.runs(of: buffer, blockCount: 200).runs)
        }
        // Then the count is the number of runs, and the runs are the ones set
        #expect(count == expected.count)
        #expect(runs == expected)
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
