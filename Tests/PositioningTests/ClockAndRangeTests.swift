import ScanFormats
import Foundation
import Positioning
import Testing
import TestSupport

/// Wrong clocks and strong readings: what the field's phones really send.
@Suite("Sample validation: clocks, RSSI range, plausible lines")
struct ClockAndRangeTests {
    let builder = FingerprintBuilder(scale: DecibelScale(dynamicRange: 40, exponent: 1))
    let locator = Locator(metric: ManhattanMetric(penalty: 0.5), estimator: WeightedNearestSpots(neighbourCount: 1))

    @Test("one sample from the future (milliseconds sent as seconds) does not freeze the device")
    func futureSampleDoesNotFreeze() throws {
        // Given a phone at the west end of the room, then one sample stamped in milliseconds
        let map = try StopAndGoTests.room()
        var tracker = DeviceTracker(device: "phone", configuration: TrackerConfiguration(window: 2))
        for second in 0..<3 {
            _ = try tracker.update(with: StopAndGoTests.sample(x: 0, time: 1_795_000_000 + Double(second)), builder: builder, locator: locator, map: map)
        }
        _ = try tracker.update(with: StopAndGoTests.sample(x: 0, time: 1_795_000_003_000), builder: builder, locator: locator, map: map)
        // When correct samples follow as the phone walks to the east end and stands there
        var last: TrackingUpdate?
        for second in 4..<30 {
            let x = min(20, Double(second - 4))
            last = try tracker.update(with: StopAndGoTests.sample(x: x, time: 1_795_000_000 + Double(second)), builder: builder, locator: locator, map: map)
        }
        // Then the device follows them: its last answer is the east end at the last correct time
        let update = try #require(last)
        #expect(update.time == 1_795_000_029)
        #expect(tracker.lastUpdate?.time == 1_795_000_029)
        #expect(try #require(update.position).x > 15, "the device froze at \(update.position.map { "\($0.x)" } ?? "nil")")
    }

    @Test("validation: a time in milliseconds, negative or not finite is refused naming the field; a recorded walk days old is fine")
    func times() {
        let validation = SampleValidation(futureTolerance: 300)
        let now = 1_795_400_000.0
        #expect(validation.problem(time: 1_795_000_000_000, field: "samples[0].t", now: now)?.contains("samples[0].t") == true)
        #expect(validation.problem(time: 1_795_000_000_000, field: "samples[0].t", now: now)?.contains("milliseconds") == true)
        #expect(validation.problem(time: now + 301, field: "t", now: now) != nil)
        #expect(validation.problem(time: now + 299, field: "t", now: now) == nil)
        #expect(validation.problem(time: -1, field: "t", now: now)?.contains("negative") == true)
        #expect(validation.problem(time: 12, field: "t", now: now) == nil)
        #expect(validation.problem(time: .infinity, field: "t", now: now) != nil)
        #expect(validation.problem(time: now - 4 * 86_400, field: "t", now: now) == nil)
    }

    @Test("RSSI: what BLE radios report is accepted (-14 dBm included); the cleaner drops what it does not trust and counts it", arguments: [
        (-14.0, true), (-127.0, true), (20.0, true), (0.0, true), (-128.0, false), (21.0, false), (Double.nan, false),
    ])
    func rssiRange(rssi: Double, accepted: Bool) {
        #expect((SampleValidation().problem(rssi: rssi, field: "rssi") == nil) == accepted)
    }

    @Test("a -14 dBm reading is used; +5 dBm is dropped and counted, never refusing the scan")
    func cleanerKeepsStrongReadings() {
        var report = CleaningReport()
        let cleaned = ReadingCleaner().clean(Fixtures.sample([1: -14, 2: 5, 3: -70]), report: &report)
        #expect(cleaned.readings.map(\.rssi).sorted() == [-70, -14])
        #expect(report.outOfRange == 1)
    }

    @Test("survey lines get the same validation: a strong reading passes, ms times and absurd coordinates are refused", arguments: [
        (#"{"t": 1795000000, "device": "p", "x": 1, "y": 2, "beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 1, "rssi": -14}]}"#, nil),
        (#"{"t": 1795000000000, "device": "p", "beacons": []}"#, "milliseconds"),
        (#"{"t": 1795000000, "device": "p", "x": 1e9, "y": 2, "beacons": []}"#, "field 'x'"),
        (#"{"t": 1795000000, "device": "p", "beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 1, "rssi": -130}]}"#, "-127...20"),
    ] as [(String, String?)])
    func surveyLines(line: String, problem: String?) {
        let decoded = ScanLogDecoder(now: 1_795_400_000).decode(Data(line.utf8))
        if let problem {
            #expect(decoded.lines.isEmpty)
            #expect(decoded.errors.first?.message.contains(problem) == true, "\(decoded.errors)")
        } else {
            #expect(decoded.errors.isEmpty, "\(decoded.errors)")
            #expect(decoded.lines.count == 1)
        }
    }
}
