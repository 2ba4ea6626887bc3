import Benchmark
import BenchmarkSmoke
import FingerprintStore
import Foundation
import Positioning
import PositioningTuning
import ScanFormats
import VenueSimulator

/// A survey log of `spots` × 10 samples over 32 beacons, as `survey record` reads it, and its venue.
struct SyntheticLog: Sendable {
    let venue: VenueDefinition
    let data: Data

    init(spots: Int) {
        let simulated = try! SimulatedVenues.grid(beacons: 32, spots: spots, seed: 1)
        var generator = SeededGenerator(seed: 3)
        let stops = simulated.definition.spots.map { SimulatedStop(name: $0.name, x: $0.x, y: $0.y, floor: $0.floor) }
        let lines = simulated.record(
            stops: stops, device: SimulatedVenues.surveyDevices[0], samples: 10, startTime: 1_795_000_000, using: &generator)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var data = Data()
        for line in lines {
            data.append(try! encoder.encode(line))
            data.append(UInt8(ascii: "\n"))
        }
        venue = simulated.definition
        self.data = data
    }
}

nonisolated(unsafe) var log: SyntheticLog?
nonisolated(unsafe) var recordedStore: FingerprintStore?

/// 10,000 lines (1,000 spots x 10 samples), built once.
func syntheticLog() -> SyntheticLog {
    if let log { return log }
    let made = SyntheticLog(spots: 1_000)
    log = made
    return made
}

/// A store holding the synthetic survey in windows of 1: 10,000 fingerprints.
func storeWithTenThousandFingerprints() async -> FingerprintStore {
    if let recordedStore { return recordedStore }
    let log = syntheticLog()
    let store = try! FingerprintStore.inMemory()
    _ = try! await store.importVenue(log.venue)
    let samples = ScanLogDecoder().decode(log.data).lines.map { LabelledSample(sample: try! $0.line.sample(), truth: $0.line.groundTruth!) }
    _ = try! await store.record(samples, into: log.venue.id, options: RecordOptions(windowSize: 1, builder: PositioningConfiguration().builder))
    recordedStore = store
    return store
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal], warmupIterations: 1, maxDuration: .seconds(5), maxIterations: 100)
    let configuration = PositioningConfiguration()

    // What `survey record` does after reading the file: the log decoded a piece (1 MB) at a time on one
    // core while the previous piece's fingerprints (windows of 3) are built and stored in one transaction.
    // 10,000 lines (17 MB) per iteration: lines/s = 10,000 / the wall-clock time.
    Benchmark("record 10000 scan-log lines, streamed as survey record does", configuration: .init(setup: { _ = syntheticLog() })) { benchmark async throws in
        let log = syntheticLog()
        for _ in benchmark.scaledIterations {
            let store = try FingerprintStore.inMemory()
            _ = try await store.importVenue(log.venue)
            benchmark.startMeasurement()
            blackHole(try await store.record(
                from: ScanLogSamples(log.data, skipBad: false), into: log.venue.id,
                options: RecordOptions(windowSize: configuration.surveyWindow, builder: configuration.builder)))
            benchmark.stopMeasurement()
        }
    }

    // The same, one step after the other: decode the whole log, then build and store.
    Benchmark("record 10000 scan-log lines (decode, fingerprint, store)", configuration: .init(setup: { _ = syntheticLog() })) { benchmark async throws in
        let log = syntheticLog()
        for _ in benchmark.scaledIterations {
            let store = try FingerprintStore.inMemory()
            _ = try await store.importVenue(log.venue)
            benchmark.startMeasurement()
            let samples = try ScanLogDecoder().decode(log.data).lines.map {
                LabelledSample(sample: try $0.line.sample(), truth: $0.line.groundTruth!)
            }
            blackHole(try await store.record(
                samples, into: log.venue.id, options: RecordOptions(windowSize: configuration.surveyWindow, builder: configuration.builder)))
            benchmark.stopMeasurement()
        }
    }

    Benchmark("decode 10000 scan-log lines", configuration: .init(setup: { _ = syntheticLog() })) { benchmark in
        let log = syntheticLog()
        for _ in benchmark.scaledIterations {
            blackHole(ScanLogDecoder().decode(log.data))
        }
    }

    // What positiond does for each new revision: read the survey in one transaction, lay it out.
    Benchmark("radio map from the store, 10000 fingerprints", configuration: .init(setup: { _ = await storeWithTenThousandFingerprints() })) { benchmark in
        let store = await storeWithTenThousandFingerprints()
        for _ in benchmark.scaledIterations {
            blackHole(try await store.survey(of: "grid-32x1000", scale: configuration.builder.scale).radioMap())
        }
    }
    SmokeRun.shortenRegisteredBenchmarks()
}
