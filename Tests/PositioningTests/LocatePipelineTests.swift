import Foundation
import Positioning
import PositioningTuning
import Testing
import TestSupport

@Suite("Locate pipeline: one stateless locate for positiond and survey locate")
struct LocatePipelineTests {
    /// Three spots along a corridor, 4 m apart, and four beacons beside it.
    static let spots = [
        Spot(name: "west", x: 0, y: 0, floor: 0, zone: "hall"),
        Spot(name: "middle", x: 4, y: 0, floor: 0, zone: "hall"),
        Spot(name: "east", x: 8, y: 0, floor: 0, zone: "bar"),
    ]
    static let beaconX: [UInt16: Double] = [1: 0, 2: 3, 3: 6, 4: 9]

    /// A scan at `x` on the corridor: RSSI falling 20 dB per decade of distance, with a little noise.
    static func scan(atX x: Double, time: Double, using generator: inout SeededGenerator) -> Sample {
        var readings: [UInt16: Double] = [:]
        for (minor, beacon) in beaconX {
            let distance = max(0.5, ((x - beacon) * (x - beacon) + 4).squareRoot())
            readings[minor] = (-55 - 20 * log10(distance) + Double.random(in: -2...2, using: &generator)).rounded()
        }
        return Fixtures.sample(readings, time: time)
    }

    /// The default configuration and the radio map of a survey of 6 scans per spot.
    static func surveyed() throws -> (configuration: PositioningConfiguration, map: RadioMap) {
        var generator = SeededGenerator(seed: 11)
        let survey = spots.flatMap { spot in
            (0..<6).map { index in
                LabelledSample(
                    sample: scan(atX: spot.x, time: Double(index), using: &generator),
                    truth: GroundTruth(spot: spot.name, x: spot.x, y: spot.y, floor: spot.floor))
            }
        }
        let configuration = PositioningConfiguration()
        let fingerprints = SurveyFingerprints(
            survey: survey, windowSize: configuration.surveyWindow, spots: spots, builder: configuration.builder)
        return (configuration, try fingerprints.radioMap(configuration: configuration))
    }

    @Test("a window is located exactly as fingerprinting and matching it by hand locates it")
    func sameAnswerAsTheManualSteps() throws {
        // Given a surveyed corridor and three scans taken near its east end
        let (configuration, map) = try Self.surveyed()
        var generator = SeededGenerator(seed: 5)
        let window = (0..<3).map { Self.scan(atX: 7.5, time: Double($0), using: &generator) }
        // When the pipeline locates them
        let result = try LocatePipeline(configuration: configuration, map: map).locate(window)
        // Then the answer is the locator's on the window's fingerprint (too short a window to hold a frozen beacon)
        let manual = configuration.locator.locate(try configuration.builder.fingerprint(of: window), in: map)
        #expect(result == manual)
        #expect(result.position?.spot == "east")
        #expect(result.matchedBeacons == 4)
    }

    @Test("a frozen beacon's readings are dropped before fingerprinting, as positiond's locate drops them")
    func frozenBeaconsAreDropped() throws {
        // Given 16 scans at the middle in which beacon 1 freezes at -80 dBm after the fourth (a hung BLE stack
        // repeating a switched-off beacon), each with an RSSI 0 reading (iOS's unknown) that cleaning removes
        let (configuration, map) = try Self.surveyed()
        var generator = SeededGenerator(seed: 8)
        let window = (0..<16).map { index in
            var sample = Self.scan(atX: 4, time: Double(index), using: &generator)
            if index >= 4 { sample.readings[0].rssi = -80 }
            sample.readings.append(Reading(beacon: Fixtures.beacon(9), rssi: 0))
            return sample
        }
        let cleaned = window.map(configuration.builder.cleaner.clean)
        let stuck = StuckBeaconDetector.removingStuckReadings(from: cleaned, minimumRepeats: configuration.tracking.stuckRepeats)
        #expect(stuck.stuck == [Fixtures.beacon(1)], "the fixture freezes beacon 1")
        // When the pipeline lays the window out and locates it
        let pipeline = LocatePipeline(configuration: configuration, map: map)
        let query = try pipeline.query(for: window)
        let result = try pipeline.locate(window)
        // Then both are what clean → frozen-beacon removal → fingerprint → map → locator give by hand
        let manualQuery = map.query(for: try configuration.builder.fingerprint(ofCleaned: stuck.samples))
        #expect(query == manualQuery)
        #expect(query != map.query(for: try configuration.builder.fingerprint(of: window)), "the frozen readings were dropped")
        #expect(result == configuration.locator.locate(manualQuery, in: map))
        #expect(result.position?.spot == "middle")
    }

    @Test("a window with no usable reading is refused", arguments: [
        [Sample](),
        [Fixtures.sample([:]), Fixtures.sample([:], time: 1)],
        [Fixtures.sample([1: 0, 2: -130]), Fixtures.sample([3: .nan], time: 1)],
    ])
    func noUsableReading(window: [Sample]) throws {
        // Given a surveyed corridor
        let (configuration, map) = try Self.surveyed()
        // When locating a window that is empty, heard nothing, or heard only impossible readings
        #expect(throws: LocateRefusal.noUsableReading) {
            // Then it is refused before matching
            try LocatePipeline(configuration: configuration, map: map).locate(window)
        }
    }

    @Test("beacons foreign to the survey are refused, naming five of them and counting all")
    func noKnownBeacon() throws {
        // Given a surveyed corridor and a scan hearing 7 beacons it does not know
        let (configuration, map) = try Self.surveyed()
        let foreign: [UInt16] = [96, 95, 94, 93, 92, 91, 90]
        let window = [Fixtures.sample(Dictionary(uniqueKeysWithValues: foreign.map { ($0, -70) }))]
        // When locating it
        let refusal: LocateRefusal
        do {
            _ = try LocatePipeline(configuration: configuration, map: map).locate(window)
            Issue.record("expected a refusal")
            return
        } catch {
            refusal = error
        }
        // Then the refusal lists every beacon heard, sorted, and its messages name the first five
        let heard = foreign.sorted().map { Fixtures.beacon($0) }
        #expect(refusal == .noKnownBeacon(heard: heard))
        let named = heard.prefix(5).map(\.description).joined(separator: ", ")
        #expect(refusal.message(venue: "hall") == "no known beacon: none of the 7 beacons heard (\(named)) is surveyed in venue 'hall'")
        #expect(refusal.description == "no known beacon: none of the 7 beacons heard (\(named)) is surveyed in this venue")
        #expect(LocateRefusal.noUsableReading.message(venue: "hall")
            == "no known beacon: no usable beacon reading in the samples (all empty, 0 or out of range)")
    }

    @Test("a refused window answered anyway is unknown with reason no_known_beacon, its beacons unmapped")
    func refusalAsAnswer() throws {
        // Given a refusal for two foreign beacons
        let heard = [Fixtures.beacon(90), Fixtures.beacon(91)]
        // When it is turned into an answer and reported
        let report = LocationReport(LocationResult(refused: .noKnownBeacon(heard: heard)), revision: 3)
        // Then it reads as the locator's own answer for a scan of no known beacon
        #expect(report.status == .unknown)
        #expect(report.reason?.code == .noKnownBeacon)
        #expect(report.matchedBeacons == 0)
        #expect(report.unmappedBeacons == heard.map(\.description))
        #expect(LocationResult(refused: .noUsableReading).unmappedBeacons.isEmpty)
    }

    @Test("statuses and reason codes encode as the strings the API has always written")
    func typedValuesEncodeAsBefore() throws {
        // Given the typed status and codes
        // Then their raw values are the documented strings
        #expect(UnknownReason.Code.allCases.map(\.rawValue) == ["no_known_beacon", "too_few_beacons", "no_common_beacon", "too_far"])
        #expect(UnknownReason.tooFar(distance: 2, threshold: 1).code == .tooFar)
        // When an unknown report is encoded as the command line encodes it
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let result = LocationResult(outcome: .unknown(.tooFewBeacons(heard: 1, required: 2)), candidates: [], matchedBeacons: 1, unmappedBeacons: [])
        let json = String(decoding: try encoder.encode(LocationReport(result, revision: nil)), as: UTF8.self)
        // Then status and code are plain strings, and they decode back
        #expect(json == #"{"candidates":[],"matched_beacons":1,"reason":{"code":"too_few_beacons","message":"1 surveyed beacon heard; at least 2 needed"},"status":"unknown","unmapped_beacons":[]}"#)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decoder.decode(LocationReport.self, from: Data(json.utf8)) == LocationReport(result, revision: nil))
    }
}
