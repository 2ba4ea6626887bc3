import ScanFormats
import Foundation
import Positioning
import PositioningTuning
import Testing
import TestSupport

@Suite("Evaluation helpers and interchange decoding")
struct EvaluationTests {
    @Test("error statistics interpolate percentiles like NumPy")
    func statistics() throws {
        let stats = try #require(ErrorStatistics(errors: [4, 1, 3, 2, 10]))
        #expect(stats.mean == 4)
        #expect(stats.median == 3)
        #expect(stats.p75 == 4)
        #expect(abs(stats.p90 - 7.6) < 1e-12)
        #expect(stats.max == 10)
        #expect(ErrorStatistics(errors: []) == nil)
    }

    @Test("windows group consecutive samples of one device at one spot, keeping the remainder")
    func windows() {
        func labelled(_ device: String, _ spot: String) -> LabelledSample {
            LabelledSample(sample: Sample(device: device, time: 0, readings: []), truth: GroundTruth(spot: spot, x: 0, y: 0, floor: 0))
        }
        let samples = [labelled("a", "s1"), labelled("a", "s1"), labelled("a", "s1"), labelled("b", "s1"), labelled("a", "s2")]
        let sizes = SampleWindows.windows(of: samples, size: 2).map(\.count)
        #expect(sizes == [2, 1, 1, 1])
        #expect(SampleWindows.windows(of: samples, size: 1).count == 5)
    }

    @Test("samples to locate are windowed by device, and by spot when their lines name one")
    func spotLabelledWindows() {
        // Given live scans of two devices (no spot), then a walk of one device naming two spots
        func scan(_ device: String, _ spot: String? = nil) -> SpotLabelledSample {
            SpotLabelledSample(sample: Sample(device: device, time: 0, readings: []), spot: spot)
        }
        let samples = [
            scan("a"), scan("a"), scan("a"), scan("b"), scan("b"),
            scan("a", "s1"), scan("a", "s1"), scan("a", "s2"), scan("a"),
        ]
        // When windowing them by 2
        let windows = SampleWindows.windows(of: samples, size: 2)
        // Then a change of device or of spot label closes a window, and no sample is lost
        #expect(windows.map(\.count) == [2, 1, 2, 2, 1, 1])
        #expect(windows.map { $0[0].sample.device } == ["a", "a", "b", "a", "a", "a"])
        #expect(windows.map { $0[0].spot } == [nil, nil, nil, "s1", "s2", nil])
    }

    @Test("windows built from pieces of a log are the windows of the whole log", arguments: [1, 2, 3, 5])
    func windowsFromPieces(size: Int) {
        // Given 200 samples of 3 devices moving between spots, one with coordinates only
        var generator = SeededGenerator(seed: 3)
        let samples = (0..<200).map { index in
            let device = "phone-\(Int.random(in: 0..<2, using: &generator))"
            let spot: String? = index / 17 % 4 == 3 ? nil : "s\(index / 17)"
            return LabelledSample(
                sample: Sample(device: device, time: Double(index), readings: []),
                truth: GroundTruth(spot: spot, x: Double(index / 17), y: 0, floor: 0))
        }
        let whole = SampleWindows.windows(of: samples, size: size)
        // When fed in pieces of random lengths
        var windower = SampleWindower<LabelledSample>(size: size)
        var windows: [[LabelledSample]] = []
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + Int.random(in: 0...9, using: &generator))
            windows += windower.add(Array(samples[start..<end]))
            start = end
        }
        windows += windower.finish()
        // Then the windows are the same, and none is lost or exceeds the size
        #expect(windows == whole)
        #expect(windows.reduce(0) { $0 + $1.count } == 200)
        #expect(windows.allSatisfy { $0.count <= size })
    }

    @Test("a replay reports the stationary time and the zone changes made during it")
    func stationaryStatistics() throws {
        // Given two spots 8 m apart, "west" in zone "hall" and "east" in no zone, and a tracker that neither
        // merges nor smooths and decides zones at once, so every sample's answer is its own spot
        let spots = [Spot(name: "west", x: 0, y: 0, floor: 0, zone: "hall"), Spot(name: "east", x: 8, y: 0, floor: 0)]
        let map = try RadioMap(spots: spots, fingerprints: [
            (0, Fixtures.fingerprint([1: 1, 2: 0.2])), (1, Fixtures.fingerprint([1: 0.2, 2: 1])),
        ])
        let tracking = TrackerConfiguration(
            window: 0, smoother: AlphaBetaSmoother(alpha: 1, beta: 0, gateSlack: 100),
            zones: ZoneHysteresis(margin: 1, requiredUpdates: 1), silenceReset: 1000)
        let evaluator = Evaluator(
            builder: FingerprintBuilder(scale: DecibelScale(dynamicRange: 40, exponent: 1)),
            locator: Locator(metric: ManhattanMetric(penalty: 0.5), estimator: WeightedNearestSpots(neighbourCount: 1)))
        let west = GroundTruth(spot: "west", x: 0, y: 0, floor: 0), east = GroundTruth(spot: "east", x: 8, y: 0, floor: 0)
        func scan(_ heard: String, _ time: Double, _ truth: GroundTruth, device: String = "a") -> LabelledSample {
            let readings: [UInt16: Double] = switch heard {
            case "west": [1: -60, 2: -92]
            case "east": [1: -92, 2: -60]
            default: [:]
            }
            return LabelledSample(sample: Fixtures.sample(readings, time: time, device: device), truth: truth)
        }
        let walk = [
            scan("west", 0, west),              // a: enters hall; first sample, not stationary
            scan("west", 0.5, west, device: "b"), // b: enters hall; first sample
            scan("west", 1, west),              // a: still (1 s), no change
            scan("east", 2, west),              // a: still (1 s), a stray answer leaves hall: exit without enter, 1 change
            scan("nothing", 3, west, device: "b"), // b: still (2.5 s), an empty scan, no answer
            scan("west", 4, west),              // a: still (2 s), back into hall: 1 change
            scan("east", 5, east),              // a: moved, leaves hall: not counted
            scan("east", 6, east),              // a: still (1 s), no change
            scan("west", 13, west, device: "b"), // b: still (10 s), silence included
        ]
        // When replayed
        let report = evaluator.replay(walk, tracking: tracking, in: map)
        // Then 1 + 1 + 2 + 1 s of device a and 2.5 + 10 s of device b were stationary, with 2 zone changes
        let stationary = try #require(report.stationary)
        #expect(stationary.seconds == 17.5)
        #expect(stationary.zoneChanges == 2)
        #expect(try #require(stationary.zoneChangesPerMinute) == 2 / 17.5 * 60)
        #expect(report.queries == 9)
        #expect(report.emptySamples == 1)
        // And a window evaluation does not measure it, and the JSON leaves it out
        let windows = evaluator.evaluate(walk, windowSize: 1, in: map)
        #expect(windows.stationary == nil)
        let json = String(decoding: try JSONEncoder().encode(windows), as: UTF8.self)
        #expect(!json.contains("stationary"))
        #expect(try JSONDecoder().decode(EvaluationReport.self, from: JSONEncoder().encode(report)) == report)
    }

    @Test("scan-log lines decode, and bad lines are reported with their number and field")
    func decodesScanLog() {
        let log = """
            {"t": 1.0, "device": "d", "spot": "s", "x": 1, "y": 2, "floor": 0, "beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2, "rssi": -60}]}

            {"t": 2.0, "device": "d", "beacons": [{"uuid": "nope", "major": 1, "minor": 2, "rssi": -60}]}
            {"t": 3.0, "beacons": []}
            {not json
            {"t": "x", "device": "d", "beacons": []}
            """
        let decoded = ScanLogDecoder().decode(Data(log.utf8))
        #expect(decoded.lines.map(\.number) == [1])
        #expect(decoded.lines.first?.line.groundTruth == GroundTruth(spot: "s", x: 1, y: 2, floor: 0))
        #expect(decoded.errors.map(\.line) == [3, 4, 5, 6])
        #expect(decoded.errors[0].message.contains("not a UUID"))
        #expect(decoded.errors[1].message.contains("missing field 'device'"))
        #expect(decoded.errors[2].message.contains("not valid JSON"))
        #expect(decoded.errors[3].message.contains("'t'"))
    }

    @Test("venue definitions decode and report their problems")
    func venueProblems() throws {
        let json = """
            {"id": "v", "name": "V", "floors": [{"level": 0, "name": "G"}],
             "beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 1},
                         {"uuid": "e2c56db5-dffb-48d2-b060-d0f5a71096e0", "major": 1, "minor": 1, "floor": 3}],
             "spots": [{"name": "a", "x": 0, "y": 0, "floor": 0}, {"name": "a", "x": 1, "y": 0, "floor": 2}]}
            """
        let venue = try JSONDecoder().decode(VenueDefinition.self, from: Data(json.utf8))
        let problems = venue.problems()
        #expect(problems.contains { $0.contains("listed twice") && $0.contains(":1:1") }, "UUIDs compare case-insensitively")
        #expect(problems.contains { $0.contains("floor 3") })
        #expect(problems.contains { $0.contains("spot 'a' is listed twice") })
        #expect(problems.contains { $0.contains("floor 2") })
    }
}
