import ScanFormats
import FingerprintStore
import Foundation
import GRDB
import Positioning
import PositioningTuning
import Testing

/// The shared UJI recordings, outside the repository.
enum UJI {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("../shared/datasets/uji-geo-p12").standardizedFileURL
    static var available: Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent("survey.jsonl").path) }

    static func lines(_ file: String) throws -> [ScanLine] {
        try ScanLogDecoder().decode(Data(contentsOf: root.appendingPathComponent(file))).lines.map(\.line)
    }

    static func venue() throws -> VenueDefinition {
        try JSONDecoder().decode(VenueDefinition.self, from: Data(contentsOf: root.appendingPathComponent("venue.json")))
    }
}

extension [ScanLine] {
    var labelled: [LabelledSample] {
        get throws { try map { LabelledSample(sample: try $0.sample(), truth: $0.groundTruth!) } }
    }

    /// The same lines with `old` renamed to `new` and `gain` dB added to its RSSI: a dead beacon swapped
    /// for a louder one of another identity.
    func replacing(_ old: BeaconID, by new: BeaconID, gain: Double) -> [ScanLine] {
        map { line in
            var line = line
            line.beacons = line.beacons.map { reading in
                guard (try? BeaconID(uuidString: reading.uuid, major: reading.major, minor: reading.minor)) == old else { return reading }
                return ScanLine.BeaconReading(uuid: new.uuid.uuidString, major: Int(new.major), minor: Int(new.minor), rssi: reading.rssi + gain)
            }
            return line
        }
    }
}

@Suite("Beacon replacement on uji-geo-p12", .enabled(if: UJI.available, "../shared/datasets is absent"))
struct ReplacementTests {
    let configuration = PositioningConfiguration()
    let newBeacon = try! BeaconID(parsing: "B9407F30-F5F8-466E-AFF9-25556B57FE6D:7:77")

    /// A store holding the p12 venue and survey, and the beacon seen at the most survey spots.
    func surveyedStore(_ engine: StoreEngine) async throws -> (FingerprintStore, BeaconID) {
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(try UJI.venue())
        _ = try await store.record(
            try UJI.lines("survey.jsonl").labelled, into: "uji-geo-p12",
            options: RecordOptions(windowSize: configuration.surveyWindow, builder: configuration.builder))
        var spotsSeeing: [BeaconID: Set<String>] = [:]
        for line in try UJI.lines("survey.jsonl") {
            for reading in line.beacons {
                spotsSeeing[try BeaconID(uuidString: reading.uuid, major: reading.major, minor: reading.minor), default: []].insert(line.spot!)
            }
        }
        let busiest = spotsSeeing.max { ($0.value.count, $1.key) < ($1.value.count, $0.key) }!.key
        return (store, busiest)
    }

    /// A calibration walk: the survey's samples (at most `samplesPerSpot`) at each of the `count` spots
    /// nearest the beacon.
    func calibrationWalk(near beacon: BeaconID, spots count: Int, samplesPerSpot: Int = 26) throws -> [ScanLine] {
        let venue = try UJI.venue()
        let place = venue.beacons.first { (try? $0.identity()) == beacon }!
        let nearest = venue.spots.sorted {
            $0.planarDistance(toX: place.x!, y: place.y!) < $1.planarDistance(toX: place.x!, y: place.y!)
        }.prefix(count).map(\.name)
        var perSpot: [String: Int] = [:]
        return try UJI.lines("survey.jsonl").filter { line in
            guard nearest.contains(line.spot!), !line.beacons.isEmpty, perSpot[line.spot!, default: 0] < samplesPerSpot else { return false }
            perSpot[line.spot!, default: 0] += 1
            return true
        }
    }

    func meanError(_ store: FingerprintStore, test: [ScanLine]) async throws -> Double {
        let map = try await store.survey(of: "uji-geo-p12", scale: configuration.builder.scale).radioMap(configuration: configuration)
        let report = Evaluator(builder: configuration.builder, locator: configuration.locator)
            .evaluate(try test.labelled, windowSize: 1, in: map)
        return try #require(report.errors).mean
    }

    @Test("a replaced beacon positions as well as the intact survey; removing it is the fallback", arguments: BackendTests.engines)
    func fourFigures(engine: StoreEngine) async throws {
        // Given the p12 survey and its busiest beacon, swapped in the test walk for a new identity 6 dB louder
        let (store, old) = try await surveyedStore(engine)
        let test = try UJI.lines("test.jsonl")
        let modifiedTest = test.replacing(old, by: newBeacon, gain: 6)
        let calibration = try calibrationWalk(near: old, spots: 5).replacing(old, by: newBeacon, gain: 6)

        // (0) the intact survey on the original walk
        let intact = try await meanError(store, test: test)
        // (1) the modified walk against the unchanged survey: the replacement is simply unknown
        let unknownReplacement = try await meanError(store, test: modifiedTest)
        // (2) after removing the old beacon
        let removal = try await store.replaceBeacon(
            ReplacementRequest(venue: "uji-geo-p12", old: old, new: nil), scale: configuration.builder.scale)
        let removed = try await meanError(store, test: modifiedTest)
        _ = try await store.undoReplacement(removal.id!, venue: "uji-geo-p12")
        // (3) after replacing it with the 5-spot calibration
        let replacement = try await store.replaceBeacon(
            ReplacementRequest(venue: "uji-geo-p12", old: old, new: newBeacon, calibration: try calibration.labelled),
            scale: configuration.builder.scale)
        let replaced = try await meanError(store, test: modifiedTest)

        print("""
            replacement of \(old) on uji-geo-p12 (single scans, mean error): (0) intact \(intact), \
            (1) replacement unknown \(unknownReplacement), (2) old removed \(removed), (3) replaced with calibration \(replaced); \
            offset \(replacement.offset!) dB, spread \(replacement.calibration!.spread) dB, \
            \(replacement.entriesInherited) entries inherited
            """)
        // Then the replacement is within 5% of the intact survey, and better than doing nothing
        #expect(abs(replaced - intact) <= 0.05 * intact)
        #expect(unknownReplacement > intact)
        #expect(replaced < unknownReplacement)
        // And the offset estimate is within 1.5 dB of the 6 dB applied
        #expect(abs(try #require(replacement.offset) - 6) <= 1.5)
        #expect(replacement.calibration?.evidence.count == 5)
        #expect(replacement.revisionAfter == replacement.revisionBefore + 1)
    }

    @Test("a calibration too thin to trust is refused, and --force overrides", arguments: BackendTests.engines)
    func thinCalibration(engine: StoreEngine) async throws {
        let (store, old) = try await surveyedStore(engine)
        let before = try await StoreFixtures.snapshot(store)
        let thin = try calibrationWalk(near: old, spots: 2).replacing(old, by: newBeacon, gain: 6).labelled
        do {
            _ = try await store.replaceBeacon(
                ReplacementRequest(venue: "uji-geo-p12", old: old, new: newBeacon, calibration: thin),
                scale: configuration.builder.scale)
            Issue.record("a 2-spot calibration must be refused")
        } catch let error as StoreError {
            #expect(error.description.contains("too thin to trust"))
            #expect(error.description.contains("only 2 calibration spots"))
        }
        await #expect(try StoreFixtures.snapshot(store) == before, "a refused replacement writes nothing")
        let forced = try await store.replaceBeacon(
            ReplacementRequest(venue: "uji-geo-p12", old: old, new: newBeacon, calibration: thin, force: true),
            scale: configuration.builder.scale)
        #expect(forced.forced)
    }

    @Test("undo restores the exact previous entries and bumps the revision again", arguments: BackendTests.engines)
    func undoRestoresExactly(engine: StoreEngine) async throws {
        // Given the surveyed store, snapshotted
        let (store, old) = try await surveyedStore(engine)
        let before = try await StoreFixtures.snapshot(store).filter { !$0.hasPrefix("venue:") && !$0.hasPrefix("beacon:") }
        let beaconsBefore = try await store.venue("uji-geo-p12").activeBeacons
        let revisionBefore = try await store.revisions()["uji-geo-p12"]!
        // When a calibrated replacement is made and undone
        let calibration = try calibrationWalk(near: old, spots: 5).replacing(old, by: newBeacon, gain: 6).labelled
        let replacement = try await store.replaceBeacon(
            ReplacementRequest(venue: "uji-geo-p12", old: old, new: newBeacon, calibration: calibration, operator: "ops"),
            scale: configuration.builder.scale)
        await #expect(try store.venue("uji-geo-p12").activeBeacons.contains { $0.id == newBeacon })
        let undone = try await store.undoReplacement(replacement.id!, venue: "uji-geo-p12")
        // Then every fingerprint entry is as before, the old beacon is active and the new one out of matching
        let after = try await StoreFixtures.snapshot(store).filter {
            !$0.hasPrefix("venue:") && !$0.hasPrefix("beacon:") && !$0.hasPrefix("beaconReplacement:") && !$0.hasPrefix("replacementEntry:")
        }
        #expect(after == before)
        await #expect(try store.venue("uji-geo-p12").activeBeacons == beaconsBefore)
        #expect(try await store.revisions()["uji-geo-p12"] == revisionBefore + 2)
        #expect(undone.undoneAt != nil)
        // And the audit trail keeps both, newest first
        let trail = try await store.replacements(of: "uji-geo-p12")
        #expect(trail.map(\.id) == [replacement.id])
        #expect(trail.first?.operator == "ops")
        #expect(trail.first?.calibration?.evidence.count == 5)
        // And undoing twice is refused
        await #expect(throws: StoreError.self) { try await store.undoReplacement(replacement.id!, venue: "uji-geo-p12") }
    }

    @Test("a dry run reports the replacement and writes nothing", arguments: BackendTests.engines)
    func dryRun(engine: StoreEngine) async throws {
        let (store, old) = try await surveyedStore(engine)
        let before = try await StoreFixtures.snapshot(store)
        let report = try await store.replaceBeacon(
            ReplacementRequest(venue: "uji-geo-p12", old: old, new: newBeacon, dryRun: true), scale: configuration.builder.scale)
        #expect(report.dryRun)
        #expect(report.id == nil)
        #expect(report.entriesInherited > 0)
        #expect(report.revisionAfter == report.revisionBefore)
        await #expect(try StoreFixtures.snapshot(store) == before)
    }
}

@Suite("Beacon replacement rules")
struct ReplacementRuleTests {
    func store(_ engine: StoreEngine) async throws -> FingerprintStore {
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(StoreFixtures.venue)
        _ = try await store.record(StoreFixtures.survey, into: "hall", options: StoreFixtures.options)
        return store
    }

    @Test("unknown beacons, retired beacons and a new beacon the survey already saw are refused", arguments: BackendTests.engines)
    func refusals(engine: StoreEngine) async throws {
        let store = try await store(engine)
        let scale = PositioningConfiguration.defaultScale
        let stranger = StoreFixtures.beacon(77)
        await #expect(throws: StoreError.unknownBeacon(venue: "hall", beacon: stranger.description)) {
            try await store.replaceBeacon(ReplacementRequest(venue: "hall", old: stranger, new: nil), scale: scale)
        }
        await #expect(throws: StoreError.self) {
            try await store.replaceBeacon(ReplacementRequest(venue: "hall", old: StoreFixtures.beacon(1), new: StoreFixtures.beacon(2)), scale: scale)
        }
        _ = try await store.replaceBeacon(ReplacementRequest(venue: "hall", old: StoreFixtures.beacon(1), new: nil), scale: scale)
        await #expect(throws: StoreError.self) {
            try await store.replaceBeacon(ReplacementRequest(venue: "hall", old: StoreFixtures.beacon(1), new: nil), scale: scale)
        }
    }

    @Test("a later replacement of the same beacons must be undone first", arguments: BackendTests.engines)
    func undoOrder(engine: StoreEngine) async throws {
        let store = try await store(engine)
        let scale = PositioningConfiguration.defaultScale
        let first = try await store.replaceBeacon(
            ReplacementRequest(venue: "hall", old: StoreFixtures.beacon(1), new: StoreFixtures.beacon(11)), scale: scale)
        let second = try await store.replaceBeacon(
            ReplacementRequest(venue: "hall", old: StoreFixtures.beacon(11), new: StoreFixtures.beacon(12)), scale: scale)
        await #expect(throws: StoreError.self) { try await store.undoReplacement(first.id!, venue: "hall") }
        _ = try await store.undoReplacement(second.id!, venue: "hall")
        _ = try await store.undoReplacement(first.id!, venue: "hall")
        await #expect(try store.venue("hall").activeBeacons.map(\.id) == (1...3).map(StoreFixtures.beacon))
    }

    @Test("the new beacon inherits every entry of the old one, shifted by the offset, and matching uses it", arguments: BackendTests.engines)
    func inheritance(engine: StoreEngine) async throws {
        let store = try await store(engine)
        let report = try await store.replaceBeacon(
            ReplacementRequest(venue: "hall", old: StoreFixtures.beacon(3), new: StoreFixtures.beacon(33)),
            scale: PositioningConfiguration.defaultScale)
        #expect(report.entriesInherited == 6)
        let survey = try await store.survey(of: "hall", scale: PositioningConfiguration.defaultScale)
        #expect(survey.fingerprints.allSatisfy { $0.fingerprint.entries[StoreFixtures.beacon(33)] != nil })
        #expect(survey.fingerprints.allSatisfy { $0.fingerprint.entries[StoreFixtures.beacon(3)] == nil })
        let venue = try await store.venue("hall")
        #expect(venue.activeBeacons.first { $0.id == StoreFixtures.beacon(33) }?.label == "B3", "the new beacon hangs where the old one did")
    }
}
