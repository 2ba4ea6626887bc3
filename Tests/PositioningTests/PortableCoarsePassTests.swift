import Foundation
@_spi(Profiling) import Positioning
import Testing
import TestSupport

/// The coarse pass's portable loop (MatcherKernels' plain C), which a CPU without AVX2 runs: its bounds must
/// be the AVX2 and AVX-512 VNNI loops' to the bit, or a locate's candidates would depend on the processor.
@Suite("The portable coarse loop: the AVX2 and VNNI bounds to the bit, and the same answers")
struct PortableCoarsePassTests {
    /// The loops in C this CPU runs besides the portable one.
    static let nativeLoops = CompactKernels.LevelLoop.allCases.filter { $0 != .portable && $0.isAvailable }

    /// The bit patterns of `metric`'s lower and upper bounds through `loop`, in buffers of `capacity` that
    /// start as NaNs, so that a bound left unwritten, or written past the capacity, shows.
    static func boundBits(
        _ metric: DecibelOffsetMetric, from query: QueryVector, in map: RadioMap, blocks: BlockSelection, capacity: Int,
        loop: CompactKernels.LevelLoop
    ) -> (lower: [UInt32], upper: [UInt32]) {
        var lower = [Float](repeating: .nan, count: capacity), upper = lower
        lower.withUnsafeMutableBufferPointer { lower in
            upper.withUnsafeMutableBufferPointer { upper in
                metric.distanceBounds(from: query, in: map, blocks: blocks, lower: lower, upper: upper, loop: loop)
            }
        }
        return (lower.map(\.bitPattern), upper.map(\.bitPattern))
    }

    /// A map of 61 fingerprints (the last block partly padding) over 13 beacons, each hearing a random
    /// subset at levels in 1/16 dB from the floor to 200 dB above it (beyond the coarse levels' 127 dB, so
    /// the coarse error is large), and scans alike.
    static func randomMap(using generator: inout SeededGenerator) throws -> (map: RadioMap, scans: [Fingerprint]) {
        let floor = Double(DecibelOffsetMetric().floor)
        func fingerprint() -> Fingerprint {
            var rssi: [UInt16: Double] = [:]
            for minor in UInt16(0)..<13 where Int.random(in: 0..<3, using: &generator) > 0 {
                let level = Int.random(in: 0..<10, using: &generator) == 0
                    ? Int.random(in: 0...3_200, using: &generator) : Int.random(in: 0...1_300, using: &generator)
                rssi[minor] = floor + Double(level) / 16
            }
            return Fixtures.fingerprint(rssi: rssi)
        }
        let spots = (0..<61).map { Spot(name: "S\($0)", x: Double($0), y: 0, floor: 0) }
        let references = (0..<61).map { (spot: $0, fingerprint: fingerprint()) }
        let map = try RadioMap(
            spots: spots, fingerprints: references, representation: DecibelOffsetMetric().representation, zoneAreas: [],
            layout: .sparse, coarsePass: .always)
        return (map, (0..<30).map { _ in fingerprint() })
    }

    @Test(
        "forced, the portable coarse loop gives the AVX2 and VNNI loops' bounds bit for bit, on a venue and on levels beyond the coarse range",
        .enabled(if: !nativeLoops.isEmpty, "this CPU runs no loop in C besides the portable one: nothing to compare with"))
    func sameBoundsAsTheNativeLoops() throws {
        // Given the coarse pass's venue and a random map reaching beyond the coarse levels, with their scans
        let venue = try CoarsePassTests.maps.get()
        var generator = SeededGenerator(seed: 71)
        let random = try Self.randomMap(using: &generator)
        #expect(try #require(random.map.decibelLevels?.coarse).error > 4, "levels beyond 127 dB widen the coarse error")
        let cases = [(venue.coarse, Array(venue.queries.prefix(12))), (random.map, random.scans)]
        var compared = 0, finite = 0
        for (map, scans) in cases {
            for scan in scans {
                let query = map.query(for: scan)
                let selections = [BlockSelection.all(of: map), map.candidateBlocks(for: query)]
                for blocks in selections {
                    // A packed buffer, and for the whole map also one of a bound per row, ending inside the last block
                    let capacities = blocks == .all(of: map) ? [blocks.packedCount, map.count] : [blocks.packedCount]
                    for metric in CoarsePassTests.metrics {
                        for capacity in capacities {
                            // When the portable loop and each native one compute the bounds
                            let portable = Self.boundBits(metric, from: query, in: map, blocks: blocks, capacity: capacity, loop: .portable)
                            for loop in Self.nativeLoops {
                                let native = Self.boundBits(metric, from: query, in: map, blocks: blocks, capacity: capacity, loop: loop)
                                // Then every bound is the same bits
                                #expect(portable.lower == native.lower, "\(loop), \(metric), \(blocks.blockCount) blocks: lower bounds differ")
                                #expect(portable.upper == native.upper, "\(loop), \(metric), \(blocks.blockCount) blocks: upper bounds differ")
                                compared += capacity
                            }
                            finite += portable.lower.count { Float(bitPattern: $0).isFinite && Float(bitPattern: $0) > 0 }
                        }
                    }
                }
            }
        }
        // And the comparison covered many rows, most sharing beacons with their scans
        #expect(compared > 100_000 && finite > compared / (4 * Self.nativeLoops.count))
    }

    @Test("forced, the portable coarse pass (and its Swift exact reading) answers every locate as the native pass and as the exact pass alone")
    func sameAnswersThroughThePortablePass() throws {
        // Given the coarse pass's venue with and without coarse levels, and its locators with the metric
        // forced onto the portable loops
        let (coarse, exact, queries) = try CoarsePassTests.maps.get()
        var compared = 0
        for locator in CoarsePassTests.locators {
            let native = try #require(locator.metric as? DecibelOffsetMetric)
            var portable = locator
            portable.metric = DecibelOffsetMetric(
                floor: native.floor, penalty: native.penalty, offsetShrinkage: native.offsetShrinkage, loop: .portable)
            #expect(portable.metric as? DecibelOffsetMetric == native, "the loop takes no part in the metric's equality")
            for fingerprint in queries {
                // When a scan is located through the portable pass, the native one, and the exact levels alone
                let throughPortable = portable.locate(fingerprint, in: coarse)
                let throughNative = locator.locate(fingerprint, in: coarse)
                let alone = locator.locate(fingerprint, in: exact)
                // Then the answers are equal, to the bit
                #expect(throughPortable == throughNative, "\(locator.candidateSearch), \(native)")
                #expect(throughPortable == alone, "\(locator.candidateSearch), \(native)")
                compared += 1
            }
        }
        #expect(compared == CoarsePassTests.locators.count * queries.count)
        #expect(DecibelOffsetMetric(loop: .portable).boundsDistances(in: coarse), "the portable loop runs the coarse pass")
    }
}
