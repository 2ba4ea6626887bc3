import Foundation
import Positioning
import PositioningTuning
import ScanFormats
import Testing

/// The spots-first search (``CandidateSearch/spotsFirst(keep:coarse:)``): the spot centroids it ranks, the
/// blocks it reads, and answers equal to the exhaustive search's where it keeps every spot.
@Suite("Spots first: spot centroids ranked before their fingerprints")
struct SpotsFirstSearchTests {
    /// A venue large enough to have centroids (at least ``Locator/smallMapBlocks`` blocks): 4 floors of 32
    /// beacons, 9,000 fingerprints (10 per spot), and scans between its spots by another phone.
    static let venue = Result(catching: { try CandidateSearchTests.syntheticVenue(beaconsPerFloor: 32, floors: 4, fingerprints: 9_000, queries: 40) })

    @Test("a spot's centroid hears every beacon one of its fingerprints hears, at its mean level over all of them, along the map's columns",
          arguments: [SignalRepresentation.relativePower, .decibels(floor: -100)])
    func centroids(representation: SignalRepresentation) throws {
        // Given the venue's map
        let venue = try Self.venue.get()
        let map = try RadioMap(spots: venue.spots, fingerprints: venue.references, representation: representation)
        // When its centroids are built with it
        let centroids = try #require(map.spotCentroids)
        // Then there is one row per surveyed spot, on the same columns
        #expect(centroids.count == map.spotRanges.count(where: { !$0.isEmpty }))
        #expect(centroids.beacons == map.beacons)
        #expect(centroids.spotCentroids == nil)
        // And each row holds, per beacon heard at the spot, its mean level over the spot's fingerprints
        let bySpot = Dictionary(grouping: venue.references, by: \.spot)
        var checked = 0
        for row in stride(from: 0, to: centroids.count, by: 37) {
            let spot = centroids.spotOfRow[row]
            let fingerprints = try #require(bySpot[spot]).map(\.fingerprint)
            for (column, beacon) in map.beacons.enumerated() {
                let heard = fingerprints.compactMap { $0.entries[beacon] }
                let stored = centroids.compact[(row / RadioMap.lanes) * map.beaconCount * RadioMap.lanes + column * RadioMap.lanes + row % RadioMap.lanes]
                guard !heard.isEmpty else {
                    #expect(stored == RadioMap.absent)
                    continue
                }
                // The mean over all the spot's fingerprints, a silent one counting as level 0
                let fingerprintCount = Double(fingerprints.count)
                let expected: Float = switch representation {
                case .relativePower: heard.map(\.relativePower).reduce(0, +) / Float(fingerprintCount)
                case .decibels(let floor):
                    representation.value(
                        of: FingerprintEntry(
                            relativePower: 0, meanRSSI: Double(floor) + heard.map { max(0, $0.meanRSSI - Double(floor)) }.reduce(0, +) / fingerprintCount,
                            dispersion: 0, visibility: 0))
                }
                #expect(abs(stored - expected) <= 1e-3, "spot \(spot) beacon \(beacon)")
                checked += 1
            }
        }
        #expect(checked > 100)
    }

    @Test("a small map, or one fingerprint per spot, has no centroids, and the search is its coarse step's")
    func noCentroids() throws {
        // Given the venue's first 1,000 fingerprints (125 blocks), and the venue's map of its first fingerprint per spot
        let venue = try Self.venue.get()
        let small = try RadioMap(spots: venue.spots, fingerprints: Array(venue.references.prefix(1_000)), representation: .relativePower)
        var firstPerSpot: [Int: Fingerprint] = [:]
        for reference in venue.references where firstPerSpot[reference.spot] == nil { firstPerSpot[reference.spot] = reference.fingerprint }
        let single = try RadioMap(
            spots: venue.spots, fingerprints: firstPerSpot.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, representation: .relativePower)
        // Then neither has centroids
        #expect(small.spotCentroids == nil && single.spotCentroids == nil)
        #expect(single.blockCount < Locator.smallMapBlocks || single.count == firstPerSpot.count)
        // And a spots-first search selects what its coarse step selects on the map itself
        var locator = Locator(metric: EuclideanMetric(), estimator: WeightedNearestSpots(), candidateSearch: .spotsFirst(keep: 4, coarse: .beaconIndex))
        for query in venue.queries.prefix(10) {
            let vector = small.query(for: query)
            let coarse = small.candidateBlocks(for: vector)
            #expect(locator.candidateBlocks(for: vector, in: small) == coarse)
        }
        locator.candidateSearch = .spotsFirst(keep: 4, coarse: .exhaustive)
        #expect(locator.candidateBlocks(for: small.query(for: venue.queries[0]), in: small) == .all(of: small))
    }

    @Test("a tuned configuration naming spots first is read back as it was stored")
    func storedChoice() throws {
        // Given the tuned configuration of a venue searched spots first
        var configuration = TunedConfiguration.untuned
        configuration.candidateSearch = Locator.spotsFirstSearches[0]
        // When it is written as JSON and read back
        let reread = try JSONDecoder().decode(TunedConfiguration.self, from: JSONEncoder().encode(configuration))
        // Then the search, and the locator made from it, are the same
        #expect(reread.candidateSearch == Locator.spotsFirstSearches[0])
        #expect(reread.locator.candidateSearch == Locator.spotsFirstSearches[0])
    }

    @Test("the blocks of some spots are exactly the blocks holding one of their fingerprints", arguments: [1, 2, 3])
    func blocksOfSpots(seed: UInt64) throws {
        // Given the venue's map and some spots drawn at random (with repeats, and spots that have no fingerprint)
        let venue = try Self.venue.get()
        let map = try RadioMap(spots: venue.spots, fingerprints: venue.references, representation: .relativePower)
        var generator = SeededGenerator(seed: seed)
        let spots = (0..<(40 * Int(seed))).map { _ in Int.random(in: 0..<map.spots.count, using: &generator) }
        // When their blocks are selected
        let selection = map.blocks(ofSpots: spots)
        // Then the selection is ascending, disjoint runs covering exactly the blocks of their rows
        let wanted = Set(spots.flatMap { map.spotRanges[$0].map { $0 / RadioMap.lanes } })
        #expect(Set(selection.runs.flatMap { $0 }) == wanted)
        #expect(selection.blockCount == wanted.count)
        #expect(zip(selection.runs, selection.runs.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound })
        // And laid out in another selection's runs array, the same runs
        var other = map.candidateBlocks(for: map.query(for: venue.references[0].fingerprint))
        let ascending = spots.map { Int32($0) }.sorted()
        #expect(ascending.withUnsafeBufferPointer { map.blocks(ofAscendingSpots: $0, reusing: other.takeRuns()) } == selection)
        #expect(other.runs.isEmpty && other.blockCount == 0)
    }

    @Test("the k-th smallest distance is the sorted list's k-th, with ties, runs, infinities and too few values", arguments: [1, 2, 3, 4])
    func kthSmallest(seed: UInt64) {
        // Given lists of distances with many ties (a few levels), sorted runs, constant runs and random values
        var generator = SeededGenerator(seed: seed)
        for length in [1, 2, 3, 7, 64, 300] {
            let lists: [[Float]] = [
                (0..<length).map { _ in Float(Int.random(in: 0..<4, using: &generator)) },
                (0..<length).map { Float($0) }, (0..<length).map { Float(length - $0) }, Array(repeating: 2.5, count: length),
                (0..<length).map { _ in Float.random(in: 0..<100, using: &generator) },
                // Centroids sharing no beacon with the scan are at infinity: ranked last.
                (0..<length).map { _ in Bool.random(using: &generator) ? .infinity : Float.random(in: 0..<100, using: &generator) },
            ]
            for list in lists {
                let sorted = list.sorted()
                for rank in Set([1, 2, length / 2, length, length + 1].filter { $0 >= 1 }) {
                    // When the rank-th smallest is selected, with the values as scratch space
                    var values = list
                    let selected = values.withUnsafeMutableBufferPointer { Locator.smallest(rank, of: $0) }
                    // Then it is the sorted list's, or infinity past its end
                    #expect(selected == (rank <= length ? sorted[rank - 1] : .infinity), "rank \(rank) of \(list)")
                }
            }
        }
    }

    /// The tuner's choice of search on the 4-floor venue of 400 beacons (the one the searches were chosen on)
    /// surveyed with `fingerprints` fingerprints, measured on its own survey's scans, and a recall measure on
    /// 64 scans between its spots by another phone, which the tuner never saw.
    private static func tunersChoice(
        fingerprints: Int
    ) throws -> (search: CandidateSearch, onAnotherPhone: (CandidateSearch) -> CandidateSearchRecall) {
        let venue = try CandidateSearchTests.syntheticVenue(beaconsPerFloor: 100, floors: 4, fingerprints: fingerprints, queries: 64)
        let survey = venue.references.enumerated().map { index, reference in
            SurveyedFingerprint(spot: reference.spot, run: index / 10, device: "rig", time: Double(index), fingerprint: reference.fingerprint)
        }
        let candidate = MapCandidate(window: .fingerprints(1), metric: .decibelOffset(floor: -100, queryOnly: 5, referenceOnly: 2, offsetShrinkage: 0))
        let validation = SurveyCrossValidation(spots: venue.spots, survey: survey, scale: PositioningConfiguration().builder.scale)
        let choice = try validation.candidateSearch(for: candidate, aggregation: .best)
        let map = try RadioMap(spots: venue.spots, fingerprints: venue.references, representation: DecibelOffsetMetric().representation)
        let locator = Locator(metric: candidate.metric.make(), estimator: WeightedNearestSpots(), candidateSearch: .exhaustive)
        let queries = venue.queries.map { map.query(for: $0) }
        let truth = queries.map { CandidateSearchRecall.truth(of: $0, locator: locator, in: map) }
        return (choice.search, { CandidateSearchRecall.measure($0, locator: locator, queries: queries, in: map, truth: truth) })
    }

    @Test("on a survey of 100,000 fingerprints the tuner takes the spots-first search, which keeps the recall on another phone's scans reading less")
    func tunerTakesSpotsFirst() throws {
        // Given the venue the search was chosen on, surveyed with 100,000 fingerprints
        // When the tuner chooses the search on the survey's own scans
        let (choice, onAnotherPhone) = try Self.tunersChoice(fingerprints: 100_000)
        // Then it takes spots first
        #expect(choice == Locator.spotsFirstSearches[0], "\(choice)")
        // And on scans it never saw, spots first keeps the nearest spots, reading fewer blocks (centroids
        // included) than the ladder's narrowest step that keeps them too
        let spotsFirst = onAnotherPhone(choice)
        let ladder = try #require(Locator.strongestBeaconLadder.lazy.map(onAnotherPhone).first { $0.isFull })
        print("spots first at 100,000 fingerprints: \(spotsFirst.at8) / \(spotsFirst.at32) reading \(spotsFirst.readShare); the ladder's step \(ladder.at8) / \(ladder.at32) reading \(ladder.readShare)")
        #expect(spotsFirst.isFull, "\(spotsFirst)")
        #expect(spotsFirst.blocksRead < ladder.blocksRead)
    }

    @Test("on a survey of 300,000 fingerprints the tuner takes the 768 nearest centroids, which keep the recall on another phone's scans reading fewer blocks than 1,536")
    func tunerTakesTheMiddleKeep() throws {
        // Given the same venue surveyed with 300,000 fingerprints (30,000 spots: too dense for 256 centroids,
        // not so dense that it needs 1,536)
        // When the tuner chooses the search on the survey's own scans
        let (choice, onAnotherPhone) = try Self.tunersChoice(fingerprints: 300_000)
        // Then it takes the 768 nearest centroids
        #expect(choice == .spotsFirst(keep: 768, coarse: Locator.strongestBeaconLadder[1]), "\(choice)")
        // And on scans it never saw they keep the nearest spots, reading fewer blocks (centroids included)
        // than the 1,536 nearest, which keep them too
        let chosen = onAnotherPhone(choice)
        let widest = onAnotherPhone(.spotsFirst(keep: 1_536, coarse: Locator.strongestBeaconLadder[1]))
        print("spots first at 300,000 fingerprints: \(chosen.at8) / \(chosen.at32) reading \(chosen.blocksRead / max(1, chosen.queries)) blocks a scan; 1,536 centroids \(widest.at8) / \(widest.at32) reading \(widest.blocksRead / max(1, widest.queries))")
        #expect(chosen.isFull, "\(chosen)")
        #expect(widest.isFull, "\(widest)")
        #expect(chosen.blocksRead < widest.blocksRead)
    }

    @Test("a locate's one buffer holds its kept spots' rows: no spot reaches into more than the map's widest spot's blocks, and the selection is the public one")
    func oneBufferHoldsTheKeptSpots() throws {
        // Given the venue's map, with spots of different sizes
        let venue = try Self.venue.get()
        let map = try RadioMap(spots: venue.spots, fingerprints: venue.references, representation: .decibels(floor: -100))
        // Then every spot's rows lie in at most the widest spot's number of blocks, and some spot needs all of them
        let reaches = map.spotRanges.filter { !$0.isEmpty }.map { ($0.upperBound + RadioMap.lanes - 1) / RadioMap.lanes - $0.lowerBound / RadioMap.lanes }
        #expect(reaches.allSatisfy { $0 <= map.widestSpotBlocks })
        #expect(reaches.contains(map.widestSpotBlocks))
        #expect(map.widestSpotBlocks >= 2)
        // And a spots-first locate's selection, with room for two floats a row, is the selection the public call gives
        let locator = Locator(metric: DecibelOffsetMetric(), estimator: WeightedNearestSpots(), candidateSearch: .spotsFirst(keep: 64, coarse: .beaconIndex))
        for fingerprint in venue.queries.prefix(10) {
            let query = map.query(for: fingerprint)
            let (blocks, room) = locator.withCandidateBlocks(for: query, in: map, scratchPerRow: 2) { blocks, scratch in (blocks, scratch?.count) }
            #expect(blocks == locator.candidateBlocks(for: query, in: map))
            #expect(room == 2 * max(1, blocks.packedCount))
        }
    }

    @Test("keeping every spot through the exhaustive coarse search, every metric answers as the exhaustive search")
    func keepingEverySpotIsExact() throws {
        // Given the venue and a spots-first search that keeps every spot of every centroid
        let venue = try Self.venue.get()
        let search = CandidateSearch.spotsFirst(keep: venue.spots.count, coarse: .exhaustive)
        // When its scans are located by it and by the exhaustive search, under every metric, aggregation and neighbour level
        let comparison = try CandidateSearchTests.compare(search, queries: venue.queries, spots: venue.spots, references: venue.references)
        // Then every answer is the same
        #expect(comparison.allEqual, "\(comparison.equalShare)")
        #expect(comparison.recall.at8 == 1 && comparison.recall.at32 == 1)
    }
}
