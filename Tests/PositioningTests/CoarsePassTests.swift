import Foundation
@_spi(Profiling) import Positioning
import Testing
import TestSupport

/// The coarse pass of the dB-offset metric (``RadioMap/CoarsePass``): bounds on every row's distance from
/// levels rounded to 1/2 dB, then the exact distances of the blocks that can hold the answer. The bounds
/// must hold for every row, and a locate must answer as the one exact pass does, to the bit.
@Suite("The coarse pass: bounds from 1/2-dB levels, then the exact levels where the answer can be")
struct CoarsePassTests {
    static let metrics = [
        DecibelOffsetMetric(),
        DecibelOffsetMetric(penalty: AbsencePenalty(queryOnly: 2, referenceOnly: 1), offsetShrinkage: 4),
        DecibelOffsetMetric(penalty: AbsencePenalty(queryOnly: 10, referenceOnly: 5), offsetShrinkage: nil),
    ]

    /// The venue of the spots-first tests (4 floors of 32 beacons, 9,000 fingerprints, 40 scans between
    /// spots), laid out sparse with and without coarse levels. Its fingerprints are single scans, whole dB
    /// each, which 1/2-dB levels keep exactly; a surveyed fingerprint is a mean over a window, so each level
    /// here is moved by a fraction of a dB (a multiple of 1/16), and the coarse levels are 1/4 dB off at most.
    static let maps = Result {
        let venue = try SpotsFirstSearchTests.venue.get()
        var generator = SeededGenerator(seed: 31)
        let references = venue.references.map { reference in
            var fingerprint = reference.fingerprint
            for (beacon, entry) in fingerprint.entries {
                var moved = entry
                moved.meanRSSI += Double(Int.random(in: 0..<16, using: &generator)) / 16
                fingerprint.entries[beacon] = moved
            }
            return (spot: reference.spot, fingerprint: fingerprint)
        }
        func map(_ coarsePass: RadioMap.CoarsePass) throws -> RadioMap {
            try RadioMap(
                spots: venue.spots, fingerprints: references, representation: DecibelOffsetMetric().representation, zoneAreas: [],
                layout: .sparse, coarsePass: coarsePass)
        }
        return (coarse: try map(.always), exact: try map(.never), queries: venue.queries)
    }

    /// Whether this CPU runs a loop in C (AVX2, or AVX-512 VNNI too): the coarse pass's only loops.
    static let hasLoopInC = CompactKernels.fastestLevelLoop != .portable

    /// Lower and upper bounds on `metric`'s distances from `query` to the blocks `blocks` selects, from every
    /// loop in C this CPU runs, which must agree to the bit: the first's.
    static func bounds(
        _ metric: DecibelOffsetMetric, from query: QueryVector, in map: RadioMap, blocks: BlockSelection
    ) -> (lower: [Float], upper: [Float]) {
        let loops = WideKernelTests.loopsInC
        let computed = loops.map { loop in
            var lower = [Float](repeating: .nan, count: blocks.packedCount), upper = lower
            lower.withUnsafeMutableBufferPointer { lower in
                upper.withUnsafeMutableBufferPointer { upper in
                    metric.distanceBounds(from: query, in: map, blocks: blocks, lower: lower, upper: upper, loop: loop)
                }
            }
            return (lower: lower, upper: upper)
        }
        for (loop, bounds) in zip(loops, computed).dropFirst() {
            // Compared by bit pattern: equal infinities and zeros compare as they are, and a NaN would not hide.
            #expect(bounds.lower.map(\.bitPattern) == computed[0].lower.map(\.bitPattern), "\(loop) against \(loops[0])")
            #expect(bounds.upper.map(\.bitPattern) == computed[0].upper.map(\.bitPattern), "\(loop) against \(loops[0])")
        }
        return computed[0]
    }

    @Test(
        "every row's distance lies between its bounds, whatever offset the metric removes, and the bounds are within a fifth of it for most rows",
        .enabled(if: hasLoopInC, "this CPU runs neither the AVX2 nor the AVX-512 VNNI loop: the coarse pass never runs"))
    func boundsHold() throws {
        // Given the venue's map with coarse levels, and its scans
        let (map, _, queries) = try Self.maps.get()
        let coarse = try #require(map.decibelLevels?.coarse)
        #expect(coarse.error == 4, "levels of a real radio all lie within 127 dB of the floor: 1/4 dB apart at most")
        var checked = 0, infinite = 0, tight = 0
        for fingerprint in queries {
            let query = map.query(for: fingerprint)
            for blocks in [BlockSelection.all(of: map), map.candidateBlocks(for: query)] {
                for metric in Self.metrics {
                    // When the bounds and the exact distances are computed
                    let (lower, upper) = Self.bounds(metric, from: query, in: map, blocks: blocks)
                    var exact = [Float](repeating: .nan, count: blocks.packedCount)
                    exact.withUnsafeMutableBufferPointer { metric.distances(from: query, in: map, blocks: blocks, into: $0) }
                    // Then each distance lies between its bounds, and a row sharing no beacon has infinity for all three
                    blocks.forEachRow(in: map) { row, slot in
                        let distance = exact[slot]
                        if distance == .infinity {
                            #expect(lower[slot] == .infinity && upper[slot] == .infinity, "row \(row)")
                            infinite += 1
                        } else {
                            #expect(lower[slot] <= distance && distance <= upper[slot], "row \(row): \(lower[slot]) ≤ \(distance) ≤ \(upper[slot])")
                            if upper[slot] - lower[slot] <= 0.2 * distance { tight += 1 }
                        }
                        checked += 1
                    }
                }
            }
        }
        // And the rows checked include both kinds, most bounds within a fifth of the distance
        #expect(infinite > 0 && checked - infinite > 10_000)
        #expect(Double(tight) > 0.5 * Double(checked - infinite), "\(tight) of \(checked - infinite) within a fifth")
    }

    @Test(
        "bounds still hold where levels lie beyond the coarse levels' 127 dB (the map's measured error grows with them)",
        .enabled(if: hasLoopInC, "this CPU runs neither the AVX2 nor the AVX-512 VNNI loop: the coarse pass never runs"))
    func levelsBeyondTheCoarseRange() throws {
        // Given 16 fingerprints of 6 beacons at the floor, at 60.3 dB or at 200 dB above it (beyond the coarse
        // levels; not higher, so that the exact 32-bit sums hold)
        let metric = DecibelOffsetMetric(penalty: AbsencePenalty(queryOnly: 3, referenceOnly: 2), offsetShrinkage: 1)
        let floor = Double(metric.floor)
        let spots = (0..<16).map { Spot(name: "S\($0)", x: Double($0), y: 0, floor: 0) }
        let references = (1..<17).map { row in
            var rssi: [UInt16: Double] = [:]
            for minor in UInt16(0)..<6 {
                switch (row >> (Int(minor) % 4)) & 3 {
                case 0: break
                case 1: rssi[minor] = floor + 60.3
                case 2: rssi[minor] = floor
                default: rssi[minor] = floor + 200
                }
            }
            return (spot: row - 1, fingerprint: Fixtures.fingerprint(rssi: rssi))
        }
        let map = try RadioMap(
            spots: spots, fingerprints: references, representation: metric.representation, zoneAreas: [], layout: .sparse, coarsePass: .always)
        // Then the map's coarse error is what the highest level lost
        let coarse = try #require(map.decibelLevels?.coarse)
        #expect(coarse.error == 200 * 16 - 8 * 254)
        // And each scan's distances lie between their bounds
        for levels in [[floor, floor + 60, floor + 200, floor + 30, floor, floor + 90], [floor + 75.5, floor + 75.5, floor + 75.5, floor, floor, floor]] {
            let query = map.query(for: Fixtures.fingerprint(rssi: Dictionary(uniqueKeysWithValues: levels.enumerated().map { (UInt16($0), $1) })))
            let blocks = BlockSelection.all(of: map)
            let (lower, upper) = Self.bounds(metric, from: query, in: map, blocks: blocks)
            var exact = [Float](repeating: .nan, count: blocks.packedCount)
            exact.withUnsafeMutableBufferPointer { metric.distances(from: query, in: map, blocks: blocks, into: $0) }
            for row in 0..<map.count {
                #expect(lower[row] <= exact[row] && exact[row] <= upper[row], "row \(row): \(lower[row]) ≤ \(exact[row]) ≤ \(upper[row])")
            }
        }
    }

    @Test(
        "on a map of more beacons than the coarse loop lays out as words on its stack (4,096), the bounds hold and a locate answers as the exact pass",
        .enabled(if: hasLoopInC, "this CPU runs neither the AVX2 nor the AVX-512 VNNI loop: the coarse pass never runs"))
    func widerThanTheQueryWords() throws {
        // Given 64 fingerprints along a corridor of 72 shared beacons, each also hearing 65 beacons no other
        // one hears (4,232 beacons in all), at levels a fraction of a dB off whole ones
        var generator = SeededGenerator(seed: 5)
        let floor = Double(DecibelOffsetMetric().floor)
        let spots = (0..<64).map { Spot(name: "S\($0)", x: Double($0), y: 0, floor: 0) }
        func level(_ distance: Int) -> Double { floor + 80 - 6 * Double(distance) + Double(Int.random(in: 0..<16, using: &generator)) / 16 }
        let references = (0..<64).map { row in
            var rssi: [UInt16: Double] = [:]
            for shared in row..<(row + 9) { rssi[UInt16(shared)] = level(abs(shared - row - 4)) }
            for own in 0..<65 { rssi[UInt16(72 + row * 65 + own)] = level(own % 9) }
            return (spot: row, fingerprint: Fixtures.fingerprint(rssi: rssi))
        }
        func map(_ coarsePass: RadioMap.CoarsePass) throws -> RadioMap {
            try RadioMap(
                spots: spots, fingerprints: references, representation: DecibelOffsetMetric().representation, zoneAreas: [],
                layout: .sparse, coarsePass: coarsePass)
        }
        let coarse = try map(.always), exact = try map(.never)
        #expect(coarse.beaconCount == 4_232)
        // And scans between the fingerprints, each hearing the corridor and a few of a fingerprint's own beacons
        let scans = (0..<20).map { index in
            let row = index * 3
            var rssi: [UInt16: Double] = [:]
            for shared in row..<(row + 10) { rssi[UInt16(shared)] = level(abs(shared - row - 5)) }
            for own in 0..<5 { rssi[UInt16(72 + row * 65 + own)] = level(own) }
            return Fixtures.fingerprint(rssi: rssi)
        }
        for metric in Self.metrics {
            var locator = PositioningConfiguration().locator
            locator.metric = metric
            locator.maximumDistance = nil
            locator.candidateSearch = .exhaustive
            for scan in scans {
                // When its bounds and exact distances are computed, and it is located with and without the coarse pass
                let query = coarse.query(for: scan)
                let blocks = BlockSelection.all(of: coarse)
                let (lower, upper) = Self.bounds(metric, from: query, in: coarse, blocks: blocks)
                var distances = [Float](repeating: .nan, count: blocks.packedCount)
                distances.withUnsafeMutableBufferPointer { metric.distances(from: query, in: coarse, blocks: blocks, into: $0) }
                // Then every row's distance lies between its bounds, finite for the rows sharing a beacon
                var finite = 0
                for row in 0..<coarse.count {
                    #expect(lower[row] <= distances[row] && distances[row] <= upper[row], "row \(row): \(lower[row]) ≤ \(distances[row]) ≤ \(upper[row])")
                    if distances[row].isFinite { finite += 1 }
                }
                #expect(finite >= 9)
                // And the answers are equal, to the bit
                #expect(locator.locate(scan, in: coarse) == locator.locate(scan, in: exact))
            }
        }
    }

    /// Locators over the venue: the default one (fingerprints as neighbours), spots as neighbours with more
    /// listed, and through the exhaustive, strongest-beacon and spots-first searches.
    static var locators: [Locator] {
        var locators: [Locator] = []
        for search in [CandidateSearch.exhaustive, Locator.strongestBeaconSearch, .spotsFirst(keep: 64, coarse: Locator.strongestBeaconLadder[1])] {
            for metric in metrics {
                var locator = PositioningConfiguration().locator
                locator.metric = metric
                locator.maximumDistance = nil
                locator.candidateSearch = search
                locators.append(locator)
                locator.neighbours = .spots
                locator.candidateCount = 9
                locators.append(locator)
            }
        }
        return locators
    }

    @Test(
        "a locate through the coarse pass answers exactly as the exact pass alone: the same position, candidates and distances",
        .enabled(if: hasLoopInC, "this CPU runs neither the AVX2 nor the AVX-512 VNNI loop: the coarse pass never runs"))
    func sameAnswers() throws {
        // Given the venue's map with and without coarse levels
        let (coarse, exact, queries) = try Self.maps.get()
        let metric = DecibelOffsetMetric()
        #expect(metric.boundsDistances(in: coarse) && !metric.boundsDistances(in: exact))
        var compared = 0
        for locator in Self.locators {
            for fingerprint in queries {
                // When a scan is located on both
                let through = locator.locate(fingerprint, in: coarse)
                let alone = locator.locate(fingerprint, in: exact)
                // Then the answers are equal, to the bit
                #expect(through == alone, "\(locator.candidateSearch), \(locator.metric)")
                compared += 1
            }
        }
        #expect(compared == Self.locators.count * queries.count)
    }

    @Test(
        "on every shared dataset's walk (or survey), laid out sparse with coarse levels, a locate answers as the exact pass alone",
        .enabled(if: hasLoopInC, "this CPU runs neither the AVX2 nor the AVX-512 VNNI loop: the coarse pass never runs"),
        .enabled(if: SharedDatasets.available, "../shared/datasets is absent"),
        arguments: ["uji-geo-p4", "uji-geo-p12", "uji-geo-p20", "kolakowski-flat", "wmu-waldo"])
    func sharedDatasets(dataset: String) throws {
        // Given the survey as `survey record` stores it, laid out with and without coarse levels, and the
        // walk's scans (waldo has none: a spread of its survey scans stands in)
        let (spots, references, queries) = try SharedDatasets.surveyAndScans(dataset)
        func map(_ coarsePass: RadioMap.CoarsePass) throws -> RadioMap {
            try RadioMap(
                spots: spots, fingerprints: references, representation: DecibelOffsetMetric().representation, zoneAreas: [],
                layout: .sparse, coarsePass: coarsePass)
        }
        let coarse = try map(.always), exact = try map(.never)
        #expect(DecibelOffsetMetric().boundsDistances(in: coarse))
        // When every scan is located on both by the default locator under each metric, fingerprints and spots as neighbours
        for locator in Self.locators where locator.candidateSearch == .exhaustive {
            for query in queries {
                // Then the answers are equal
                #expect(locator.locate(query, in: coarse) == locator.locate(query, in: exact), "\(dataset), \(locator.metric)")
            }
        }
    }

    @Test(
        "the exact pass reads again only the blocks that can hold the answer: a small share of a selection",
        .enabled(if: hasLoopInC, "this CPU runs neither the AVX2 nor the AVX-512 VNNI loop: the coarse pass never runs"))
    func readsFewBlocksAgain() throws {
        // Given the venue's map with coarse levels and the default locator through the exhaustive search
        let (map, _, queries) = try Self.maps.get()
        var locator = PositioningConfiguration().locator
        locator.metric = DecibelOffsetMetric()
        var readAgain = 0, selected = 0
        for fingerprint in queries {
            // When the bounds are computed and the answer's bound taken from them
            let query = map.query(for: fingerprint)
            let blocks = BlockSelection.all(of: map)
            let (lower, upper) = Self.bounds(DecibelOffsetMetric(), from: query, in: map, blocks: blocks)
            let bound = upper.withUnsafeBufferPointer { locator.answerBound(upper: $0, blocks: blocks, in: map) }
            // Then the blocks holding a row whose lower bound is at most it are few
            readAgain += (0..<map.blockCount).count { block in (0..<RadioMap.lanes).contains { lower[block * RadioMap.lanes + $0] <= bound } }
            selected += map.blockCount
        }
        print("the exact pass reads \(readAgain) of \(selected) blocks again")
        #expect(readAgain > 0 && readAgain * 20 < selected, "\(readAgain) of \(selected)")
    }
}
