import Foundation
import Positioning
import Testing

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
        var windower = SampleWindower(size: size)
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
