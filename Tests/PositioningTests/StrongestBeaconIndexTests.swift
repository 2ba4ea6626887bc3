import Positioning
import Testing
import TestSupport

/// The strongest-beacon selection (``RadioMap/strongestBeaconBlocks(for:queryBeacons:referenceRank:minimumShared:)``)
/// reads its index grouped by rank, a slice per beacon with no rank compared. These compare it with the
/// plain definition, computed here from every row's values with no index in sight, for every step the
/// index can be asked, on a multi-floor venue and on a map whose values tie everywhere (ties rank the lower
/// column first, on both sides).
@Suite("The strongest-beacon index against its definition")
struct StrongestBeaconIndexTests {
    /// The columns of `values` (one per column, ``RadioMap/absent`` where not heard), strongest first, a
    /// lower column first among equal values, at most `limit`.
    static func strongest(_ values: [Float], limit: Int) -> [Int] {
        Array(values.indices.filter { values[$0] != RadioMap.absent }
            .sorted { (values[$0], -$0) > (values[$1], -$1) }.prefix(limit))
    }

    /// The blocks in which at least `minimumShared` of the query's `queryBeacons` strongest beacons are each
    /// among some row's `referenceRank` strongest, by the definition (both capped at the index's 8).
    static func plainSelection(
        _ query: QueryVector, in map: RadioMap, queryBeacons: Int, referenceRank: Int, minimumShared: Int
    ) -> BlockSelection {
        let wanted = max(1, min(queryBeacons, RadioMap.rankedBeacons))
        let rank = max(1, min(referenceRank, RadioMap.rankedBeacons))
        let shared = max(1, min(minimumShared, wanted))
        let queryValues = (0..<map.beaconCount).map { query.mask[$0] > 0 ? query.values[$0] : RadioMap.absent }
        let chosen = Set(strongest(queryValues, limit: wanted))
        let compact = map.expandedCompact(), width = map.beaconCount, lanes = RadioMap.lanes
        var selected: [Bool] = []
        for block in 0..<map.blockCount {
            var ranked = Set<Int>()
            for row in (block * lanes)..<min(map.count, (block + 1) * lanes) {
                let values = (0..<width).map { compact[block * width * lanes + $0 * lanes + row % lanes] }
                ranked.formUnion(strongest(values, limit: rank))
            }
            selected.append(ranked.intersection(chosen).count >= shared)
        }
        var runs: [Range<Int>] = []
        for block in selected.indices where selected[block] {
            if let last = runs.last, last.upperBound == block {
                runs[runs.count - 1] = last.lowerBound..<block + 1
            } else {
                runs.append(block..<block + 1)
            }
        }
        return BlockSelection(runs: runs)
    }

    /// A map of 3 floors of 30 beacons from the propagation simulator, and scans between its spots.
    static func simulatedVenue() throws -> (map: RadioMap, queries: [QueryVector]) {
        let venue = try CandidateSearchTests.syntheticVenue(beaconsPerFloor: 30, floors: 3, fingerprints: 1_500, queries: 24)
        let map = try RadioMap(
            spots: venue.spots, fingerprints: venue.references, representation: DecibelOffsetMetric().representation)
        return (map, venue.queries.map { map.query(for: $0) })
    }

    /// A map whose rows hear 3 to 12 of 16 beacons at one of four values, so ranks tie everywhere, and
    /// queries drawn the same way.
    static func tiedVenue() throws -> (map: RadioMap, queries: [QueryVector]) {
        var random = SeededGenerator(seed: 7)
        func fingerprint() -> Fingerprint {
            let beacons = (1...16).shuffled(using: &random).prefix(Int.random(in: 3...12, using: &random))
            return Fixtures.fingerprint(Dictionary(uniqueKeysWithValues: beacons.map {
                (UInt16($0), Float(Int.random(in: 1...4, using: &random)) * 0.2)
            }))
        }
        let spots = (0..<30).map { Spot(name: "s\($0)", x: Double($0), y: 0, floor: 0) }
        let references = (0..<203).map { (spot: $0 % spots.count, fingerprint: fingerprint()) }
        let map = try RadioMap(spots: spots, fingerprints: references)
        return (map, (0..<40).map { _ in map.query(for: fingerprint()) })
    }

    @Test("every step of strongest beacons, rank and sharing selects the blocks the definition selects",
          arguments: [false, true])
    func equalsDefinition(tied: Bool) throws {
        // Given a venue, and its queries
        let (map, queries) = tied ? try Self.tiedVenue() : try Self.simulatedVenue()
        var mismatches: [String] = []
        var selectedSomething = false
        for query in queries {
            for (queryBeacons, referenceRank, minimumShared) in [(1, 1, 1), (4, 4, 2), (6, 6, 2), (8, 8, 3), (3, 8, 1), (8, 2, 2), (12, 12, 4)] {
                // When the index selects blocks
                let selection = map.strongestBeaconBlocks(
                    for: query, queryBeacons: queryBeacons, referenceRank: referenceRank, minimumShared: minimumShared)
                // Then they are the definition's
                let expected = Self.plainSelection(
                    query, in: map, queryBeacons: queryBeacons, referenceRank: referenceRank, minimumShared: minimumShared)
                selectedSomething = selectedSomething || (expected.blockCount > 0 && expected.blockCount < map.blockCount)
                if selection != expected {
                    mismatches.append("\(queryBeacons)/\(referenceRank)/\(minimumShared): \(selection.blockCount) blocks, expected \(expected.blockCount)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        // And the comparison is not empty-handed: some selections keep part of the map.
        #expect(selectedSomething)
    }
}
