import Positioning
import Testing
import TestSupport

@Suite("Cleaning readings and stuck beacons")
struct CleaningTests {
    @Test("drops unknown, impossible and non-finite readings and merges duplicates")
    func cleansSample() {
        // Given a sample with every kind of bad reading and a duplicated beacon
        let b = { (minor: UInt16) in Fixtures.beacon(minor) }
        let sample = Sample(device: "phone", time: 0, readings: [
            Reading(beacon: b(1), rssi: 0),
            Reading(beacon: b(2), rssi: .nan),
            Reading(beacon: b(3), rssi: -.infinity),
            Reading(beacon: b(4), rssi: -130),
            Reading(beacon: b(5), rssi: 5),
            Reading(beacon: b(6), rssi: -70),
            Reading(beacon: b(6), rssi: -60),
            Reading(beacon: b(7), rssi: -80),
        ])
        // When it is cleaned
        var report = CleaningReport()
        let cleaned = ReadingCleaner().clean(sample, report: &report)
        // Then only the two real beacons remain, the duplicate averaged, and every drop is counted
        #expect(cleaned.readings == [Reading(beacon: b(6), rssi: -65), Reading(beacon: b(7), rssi: -80)])
        #expect(report.unknownRSSI == 1)
        #expect(report.nonFinite == 2)
        #expect(report.outOfRange == 2)
        #expect(report.duplicatesMerged == 1)
        #expect(report.dropped == 5)
    }

    @Test("an empty sample stays empty")
    func emptySample() {
        let cleaned = ReadingCleaner().clean(Sample(device: "phone", time: 0, readings: []))
        #expect(cleaned.readings.isEmpty)
    }

    @Test("a beacon frozen at one RSSI is recognised as stuck; a live one is not")
    func stuckBeacon() {
        // Given 8 samples in which beacon 1 never changes and beacon 2 fluctuates
        var detector = StuckBeaconDetector(minimumRepeats: 8)
        for second in 0..<8 {
            #expect(!detector.isStuck(Fixtures.beacon(1)), "not stuck before the 8th repeat")
            detector.observe(Fixtures.sample([1: -71, 2: -60 - Double(second % 3)], time: Double(second)))
        }
        // Then beacon 1 is stuck and beacon 2 is not
        #expect(detector.stuckBeacons == [Fixtures.beacon(1)])
        // And when beacon 1 varies again it recovers
        detector.observe(Fixtures.sample([1: -72, 2: -61], time: 8))
        #expect(detector.stuckBeacons.isEmpty)
    }

    @Test("a long gap or a missing sample restarts the run")
    func gapRestartsRun() {
        var detector = StuckBeaconDetector(minimumRepeats: 3, maximumGap: 10)
        detector.observe(Fixtures.sample([1: -70], time: 0))
        detector.observe(Fixtures.sample([1: -70], time: 1))
        detector.observe(Fixtures.sample([1: -70], time: 60))
        #expect(!detector.isStuck(Fixtures.beacon(1)))
        detector.observe(Fixtures.sample([2: -70], time: 61))
        detector.observe(Fixtures.sample([1: -70], time: 62))
        detector.observe(Fixtures.sample([1: -70], time: 63))
        #expect(!detector.isStuck(Fixtures.beacon(1)))
        detector.observe(Fixtures.sample([1: -70], time: 64))
        #expect(detector.isStuck(Fixtures.beacon(1)))
    }

    @Test("removing stuck readings from a sequence keeps the live beacons")
    func removingStuck() {
        let samples = (0..<10).map { Fixtures.sample([1: -71, 2: -60 - Double($0 % 4)], time: Double($0)) }
        let (kept, stuck) = StuckBeaconDetector.removingStuckReadings(from: samples, minimumRepeats: 8)
        #expect(stuck == [Fixtures.beacon(1)])
        #expect(kept[9].readings.map(\.beacon) == [Fixtures.beacon(2)])
        #expect(kept[0].readings.count == 2)
    }
}
