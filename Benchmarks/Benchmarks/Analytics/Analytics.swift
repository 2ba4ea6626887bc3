import Benchmark
import BenchmarkSmoke
import FingerprintStore
import Foundation
import Positioning
import ScanFormats
import VenueSimulator

/// A week of demo-hall's visitor history: 5,000 devices, each there 8 hours a day for 7 days, moving from
/// zone to zone every 2 to 30 minutes (about 30 visits a day each: some 1.05 million visits), a trace point
/// every 15 minutes worth 900 device-seconds (the heatmap's cells fill up as with a point every 10 s: every
/// 1 m cell of both floors has presence every hour), and every device's last sighting. Written through
/// `recordHistory`, the daemon's own writer, into a file on disk.
struct SyntheticWeek: @unchecked Sendable {
    /// A thousand devices for one day in a smoke run (CI): it checks the benchmarks still run, not their
    /// figures, and every benchmark's process generates its own history.
    static let devices = SmokeRun.isRequested ? 1_000 : 5_000
    static let days = SmokeRun.isRequested ? 1 : 7
    static let start = 1_795_000_000.0 - 1_795_000_000.0.truncatingRemainder(dividingBy: 86_400)  // a midnight UTC
    static var end: Double { start + Double(days) * 86_400 }
    static let zones = ["Entrance", "Main hall", "Bar", "Gallery west", "Meeting rooms", "Gallery east"]

    let store: FingerprintStore
    let visits: Int
    let generationSeconds: Double

    init() async {
        let started = Date()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beaconfix-analytics")  // one folder, replaced by each run
        try? FileManager.default.removeItem(at: directory)
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try! FingerprintStore.open(path: directory.appendingPathComponent("week.sqlite").path, logger: .init(label: "benchmark"))
        var definition = try! SimulatedVenues.demoHall(seed: 7).definition
        // The plans' images play no part here.
        definition.floors = definition.floors.map { floor in
            var floor = floor
            floor.plan = nil
            return floor
        }
        _ = try! await store.importVenue(definition)
        var generator = SeededGenerator(seed: 11)
        var visits = 0
        for day in 0..<Self.days {
            // One batch per 500 devices and day: the writer's transactions are of that order.
            for first in stride(from: 0, to: Self.devices, by: 500) {
                var batch = VenueHistoryBatch()
                for device in first..<(first + 500) {
                    let name = "visitor-\(device)"
                    var time = Self.start + Double(day) * 86_400 + 9 * 3600 + 600 * generator.unit()
                    let leave = time + 8 * 3600
                    var zone = "Entrance"
                    var nextTrace = time
                    while time < leave {
                        let stay = 120 + 1680 * generator.unit()
                        let exit = min(leave, time + stay)
                        batch.visits.append(DeviceVisit(device: name, visit: ZoneVisit(zone: zone, enteredAt: time, exitedAt: exit)))
                        visits += 1
                        let centre = SimulatedVenues.demoHallZoneCentres[zone]!
                        while nextTrace < exit {
                            batch.trace.append(DeviceTracePoint(device: name, point: TracePoint(
                                time: nextTrace, floor: centre.floor, x: 1 + 38 * generator.unit(), y: 1 + 22 * generator.unit(),
                                zone: zone, seconds: 900)))
                            nextTrace += 900
                        }
                        time = exit
                        zone = Self.zones.filter { $0 != zone }[Int(generator.unit() * 5)]
                    }
                    if day == Self.days - 1 {
                        batch.sightings.append(DeviceSighting(device: name, time: Self.end - 600 * generator.unit(), floor: 0, zone: zone))
                    }
                }
                _ = try! await store.recordHistory(["demo-hall": batch])
            }
        }
        self.visits = visits
        generationSeconds = Date().timeIntervalSince(started)
        print("generated a week of history: \(visits) visits of \(Self.devices) devices in \(String(format: "%.1f", generationSeconds)) s")
    }
}

nonisolated(unsafe) var week: SyntheticWeek?

func syntheticWeek() async -> SyntheticWeek {
    if let week { return week }
    let made = await SyntheticWeek()
    week = made
    return made
}

/// One second of the writer at 5,000 devices a second, each with a trace point (history.trace.seconds 1,
/// ten times the default's points), its sighting, and 10 zone changes.
func oneSecondBatch(second: Int) -> [String: VenueHistoryBatch] {
    var generator = SeededGenerator(seed: UInt64(second))
    let time = SyntheticWeek.end + Double(second)
    var batch = VenueHistoryBatch()
    for device in 0..<SyntheticWeek.devices {
        let name = "visitor-\(device)"
        let zone = SyntheticWeek.zones[device % 6]
        batch.trace.append(DeviceTracePoint(device: name, point: TracePoint(
            time: time, floor: device % 2, x: 40 * generator.unit(), y: 24 * generator.unit(), zone: zone, seconds: 1)))
        batch.sightings.append(DeviceSighting(device: name, time: time, floor: device % 2, zone: zone))
        if device % 500 == 0 {
            batch.visits.append(DeviceVisit(device: name, visit: ZoneVisit(zone: zone, enteredAt: time)))
        }
    }
    return ["demo-hall": batch]
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput], warmupIterations: 1, maxDuration: .seconds(5), maxIterations: 30)
    let setup: @Sendable () async throws -> Void = { _ = await syntheticWeek() }
    let week = { await syntheticWeek() }
    let from = SyntheticWeek.start, to = SyntheticWeek.end

    Benchmark("presence (window 300 s) after a week of 5,000 devices", configuration: .init(setup: setup)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await week().store.presence(of: "demo-hall", window: 300, now: SyntheticWeek.end))
        }
    }
    Benchmark("dwell over 7 days of 5,000 devices", configuration: .init(setup: setup)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await week().store.dwell(of: "demo-hall", from: from, to: to, minimumVisit: 10))
        }
    }
    Benchmark("funnel Entrance → Main hall → Bar over 7 days of 5,000 devices", configuration: .init(setup: setup)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await week().store.funnel(of: "demo-hall", zones: ["Entrance", "Main hall", "Bar"], from: from, to: to, within: 3600))
        }
    }
    Benchmark("heatmap of floor 0, 1 m cells, over 7 days of 5,000 devices", configuration: .init(setup: setup)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await week().store.heatmap(of: "demo-hall", floor: 0, cell: 1, from: from, to: to))
        }
    }
    Benchmark("history writer: one second of 5,000 devices (5,000 trace points and sightings, 10 visits)", configuration: .init(setup: setup)) { benchmark in
        var second = 0
        for _ in benchmark.scaledIterations {
            second += 1
            let batch = oneSecondBatch(second: second)
            benchmark.startMeasurement()
            blackHole(try await week().store.recordHistory(batch))
            benchmark.stopMeasurement()
        }
    }
    SmokeRun.shortenRegisteredBenchmarks()
}
