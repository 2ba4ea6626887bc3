import Benchmark
import Foundation
import Positioning
import ScanFormats
import SyntheticVenues

/// Built once per process, on first use by a benchmark's setup.
nonisolated(unsafe) var venues: [Int: SyntheticVenue] = [:]

func venue(_ fingerprints: Int) -> SyntheticVenue {
    if let venue = venues[fingerprints] { return venue }
    let venue = SyntheticVenue(fingerprints: fingerprints)
    venues[fingerprints] = venue
    print("map of \(venue.map.count) fingerprints x \(venue.map.beaconCount) beacons: \(venue.map.compactBytes) bytes of compact matrix read per SIMD query, \(venue.map.matrixBytes) per BLAS query")
    return venue
}

/// The same venues laid out in dB above the dB-offset metric's floor, built once per size.
nonisolated(unsafe) var decibelMaps: [Int: RadioMap] = [:]

func decibelMap(_ fingerprints: Int) -> RadioMap {
    if let map = decibelMaps[fingerprints] { return map }
    let source = venue(fingerprints)
    let map = try! RadioMap(
        spots: source.map.spots, fingerprints: source.references, representation: DecibelOffsetMetric().representation)
    decibelMaps[fingerprints] = map
    return map
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
                blackHole(locator.locate(batch: queries, in: venue.map))
            }
        }
    }

    // The same locate with the BLAS kernel (netlib's reference sgemm unless OpenBLAS replaced libblas.so.3).
    for size in [10_000, 100_000] {
        var blasLocator = locator
        blasLocator.metric = PairwiseDifferenceMetric(penalty: AbsencePenalty(queryOnly: 0.4, referenceOnly: 0.2), kernel: .blas)
        let configured = blasLocator
        Benchmark("locate with the BLAS kernel, \(size) fingerprints", configuration: .init(setup: { _ = venue(size) })) { benchmark in
            let venue = venue(size)
            let query = venue.map.query(for: venue.queries[0])
            for _ in benchmark.scaledIterations {
                blackHole(configured.locate(query, in: venue.map))
            }
        }
        Benchmark("locate batch of 64 with the BLAS kernel, \(size) fingerprints", configuration: .init(setup: { _ = venue(size) })) { benchmark in
            let venue = venue(size)
            let queries = venue.queries.map { venue.map.query(for: $0) }
            for _ in benchmark.scaledIterations {
                blackHole(configured.locate(batch: queries, in: venue.map))
            }
        }
    }

    // The dB-offset metric on the same venues laid out in dB. Its distances are in dB², so the default
    // relative-power threshold does not apply: every query is located, as with the default metric here.
    var decibelLocator = locator
    decibelLocator.metric = DecibelOffsetMetric()
    decibelLocator.maximumDistance = nil
    let decibel = decibelLocator
    for size in [1_000, 10_000, 100_000] {
        Benchmark("locate with the dB-offset metric, \(size) fingerprints", configuration: .init(setup: { _ = decibelMap(size) })) { benchmark in
            let map = decibelMap(size)
            let query = map.query(for: venue(size).queries[0])
            for _ in benchmark.scaledIterations {
                blackHole(decibel.locate(query, in: map))
            }
        }
    }
    // Allocations alone, per locate: the same at every size, since nothing is allocated per fingerprint.
    for size in [1_000, 100_000] {
        Benchmark(
            "allocations per locate with the dB-offset metric, \(size) fingerprints",
            configuration: .init(metrics: [.mallocCountTotal], maxIterations: 100, setup: { _ = decibelMap(size) })
        ) { benchmark in
            let map = decibelMap(size)
            let query = map.query(for: venue(size).queries[0])
            for _ in benchmark.scaledIterations {
                blackHole(decibel.locate(query, in: map))
            }
        }
    }

    for kernel in [DenseKernel.blas, .simd] {
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

    // What a query must at least cost on this machine: reading the 100,000-fingerprint compact matrix
    // (12.8 MB) once. Copying it reads and writes it (memcpy); summing it only reads it.
    Benchmark("memory bandwidth: copy the 100000-fingerprint compact matrix (12.8 MB)", configuration: .init(setup: { _ = venue(100_000) })) { benchmark in
        let source = venue(100_000).map.compact
        var destination = [Float](repeating: 0, count: source.count)
        for _ in benchmark.scaledIterations {
            destination.withUnsafeMutableBufferPointer { target in
                source.withUnsafeBufferPointer { target.baseAddress!.update(from: $0.baseAddress!, count: $0.count) }
            }
            blackHole(destination)
        }
    }
    Benchmark("memory bandwidth: read the 100000-fingerprint compact matrix (12.8 MB)", configuration: .init(setup: { _ = venue(100_000) })) { benchmark in
        let source = venue(100_000).map.compact
        for _ in benchmark.scaledIterations {
            var total = SIMD8<Float>(repeating: 0)
            source.withUnsafeBytes { bytes in
                for block in 0..<(bytes.count / 32) {
                    total += bytes.loadUnaligned(fromByteOffset: block * 32, as: SIMD8<Float>.self)
                }
            }
            blackHole(total)
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
