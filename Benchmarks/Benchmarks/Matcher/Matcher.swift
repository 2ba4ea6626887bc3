import Benchmark
import Foundation
import Positioning

/// A synthetic venue from the propagation simulator: `fingerprints` reference fingerprints of one sample
/// each over 32 beacons (10 per spot), and queries sampled between the spots.
struct SyntheticVenue: Sendable {
    let map: RadioMap
    let queries: [Fingerprint]
    let samples: [Sample]

    init(fingerprints: Int) {
        let spots = max(1, fingerprints / 10)
        let venue = try! SimulatedVenues.grid(beacons: 32, spots: spots, seed: 1)
        let builder = PositioningConfiguration().builder
        var generator = SeededGenerator(seed: 2)
        var references: [(spot: Int, fingerprint: Fingerprint)] = []
        references.reserveCapacity(fingerprints)
        for (index, spot) in venue.definition.spots.enumerated() {
            for second in 0..<10 {
                let sample = venue.sample(
                    x: spot.x, y: spot.y, floor: 0, heading: Double(second), device: SimulatedVenues.surveyDevices[0],
                    time: Double(second), using: &generator)
                if let fingerprint = try? builder.fingerprint(of: [sample]) { references.append((index, fingerprint)) }
            }
        }
        map = try! RadioMap(spots: venue.definition.spots, fingerprints: references)
        var samples: [Sample] = []
        for index in 0..<64 {
            let spot = venue.definition.spots[(index * 7919) % venue.definition.spots.count]
            samples.append(venue.sample(
                x: spot.x + 0.7, y: spot.y + 0.4, floor: 0, heading: Double(index), device: SimulatedVenues.walkDevice,
                time: Double(index), using: &generator))
        }
        self.samples = samples
        queries = samples.map { try! builder.fingerprint(of: [$0]) }
    }
}

/// Built once per process, on first use by a benchmark's setup.
nonisolated(unsafe) var venues: [Int: SyntheticVenue] = [:]

func venue(_ fingerprints: Int) -> SyntheticVenue {
    if let venue = venues[fingerprints] { return venue }
    let venue = SyntheticVenue(fingerprints: fingerprints)
    venues[fingerprints] = venue
    print("map of \(venue.map.count) fingerprints x \(venue.map.beaconCount) beacons: \(venue.map.matrixBytes) bytes of matrix read per query")
    return venue
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 3, maxDuration: .seconds(3), maxIterations: 2000)
    let locator = PositioningConfiguration().locator

    for size in [100, 1_000, 10_000, 100_000] {
        Benchmark("locate, \(size) fingerprints", configuration: .init(setup: { _ = venue(size) })) { benchmark in
            let venue = venue(size)
            let query = venue.map.query(for: venue.queries[0])
            for _ in benchmark.scaledIterations {
                blackHole(locator.locate(query, in: venue.map))
            }
        }
        Benchmark("locate batch of 64, \(size) fingerprints", configuration: .init(setup: { _ = venue(size) })) { benchmark in
            let venue = venue(size)
            let queries = venue.queries.map { venue.map.query(for: $0) }
            for _ in benchmark.scaledIterations {
                for query in queries { blackHole(locator.locate(query, in: venue.map)) }
            }
        }
    }

    for kernel in [DenseKernel.blas, .loop] {
        let metric = PairwiseDifferenceMetric(penalty: AbsencePenalty(queryOnly: 0.4, referenceOnly: 0.2), kernel: kernel)
        Benchmark("distances only (\(kernel)), 100000 fingerprints", configuration: .init(setup: { _ = venue(100_000) })) { benchmark in
            let venue = venue(100_000)
            let query = venue.map.query(for: venue.queries[0])
            var out = [Float](repeating: 0, count: venue.map.count)
            for _ in benchmark.scaledIterations {
                out.withUnsafeMutableBufferPointer { metric.distances(from: query, in: venue.map, into: $0) }
                blackHole(out)
            }
        }
    }

    // What a query must at least cost on this machine: reading the 100,000-fingerprint matrix once.
    Benchmark("copy bandwidth: 38.4 MB read and written", configuration: .init(setup: { _ = venue(100_000) })) { benchmark in
        let source = venue(100_000).map.matrix
        var destination = [Float](repeating: 0, count: source.count)
        for _ in benchmark.scaledIterations {
            destination.withUnsafeMutableBufferPointer { target in
                source.withUnsafeBufferPointer { target.baseAddress!.update(from: $0.baseAddress!, count: $0.count) }
            }
            blackHole(destination)
        }
    }

    Benchmark("fingerprint from a window of 5 samples", configuration: .init(setup: { _ = venue(1_000) })) { benchmark in
        let samples = Array(venue(1_000).samples.prefix(5))
        let builder = PositioningConfiguration().builder
        for _ in benchmark.scaledIterations {
            blackHole(try? builder.fingerprint(of: samples))
        }
    }

    Benchmark("radio map build, 10000 fingerprints", configuration: .init(setup: { _ = venue(10_000) })) { benchmark in
        let venue = venue(10_000)
        let references = (0..<venue.map.count).map { row in
            (spot: venue.map.spotOfRow[row], fingerprint: venue.queries[row % venue.queries.count])
        }
        for _ in benchmark.scaledIterations {
            blackHole(try? RadioMap(spots: venue.map.spots, fingerprints: references))
        }
    }
}
