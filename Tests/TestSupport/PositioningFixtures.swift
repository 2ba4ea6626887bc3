public import Foundation
public import Positioning
public import PositioningTuning
public import ScanFormats

/// Beacon identities and samples for tests.
public enum Fixtures {
    public static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!

    public static func beacon(_ minor: UInt16, major: UInt16 = 1) -> BeaconID {
        BeaconID(uuid: uuid, major: major, minor: minor)
    }

    /// A sample of `device` at `time` hearing `minor: rssi` pairs.
    public static func sample(_ readings: [UInt16: Double], time: Double = 0, device: String = "phone") -> Sample {
        Sample(
            device: device, time: time,
            readings: readings.sorted { $0.key < $1.key }.map { Reading(beacon: beacon($0.key), rssi: $0.value) })
    }

    /// A fingerprint with the given relative powers (mean RSSI derived from them for completeness).
    public static func fingerprint(_ powers: [UInt16: Float]) -> Fingerprint {
        var entries: [BeaconID: FingerprintEntry] = [:]
        for (minor, power) in powers {
            entries[beacon(minor)] = FingerprintEntry(
                relativePower: power, meanRSSI: -60 - 40 * Double(1 - power), dispersion: 0, visibility: 1)
        }
        return Fingerprint(entries: entries, sampleCount: 1)
    }

    /// A fingerprint with the given mean RSSI in dBm (relative powers from the default scale, for completeness).
    public static func fingerprint(rssi: [UInt16: Double]) -> Fingerprint {
        let strongest = rssi.values.max() ?? 0
        var entries: [BeaconID: FingerprintEntry] = [:]
        for (minor, level) in rssi {
            entries[beacon(minor)] = FingerprintEntry(
                relativePower: PositioningConfiguration.defaultScale.relativePower(rssi: level, strongest: strongest),
                meanRSSI: level, dispersion: 0, visibility: 1)
        }
        return Fingerprint(entries: entries, sampleCount: 1)
    }
}

/// The labelled datasets in ../shared/datasets (outside the repository; CI has them beside it).
public enum SharedDatasets {
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/datasets").standardizedFileURL

    public static var available: Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent("uji-geo-p12/survey.jsonl").path)
    }

    public static func labelledSamples(_ dataset: String, _ file: String) throws -> [LabelledSample] {
        let data = try Data(contentsOf: root.appendingPathComponent("\(dataset)/\(file)"))
        let decoded = ScanLogDecoder().decode(data)
        guard decoded.errors.isEmpty else { throw DatasetError(message: "\(decoded.errors)") }
        return try decoded.lines.map { try LabelledSample(sample: $0.line.sample(), truth: $0.line.groundTruth!) }
    }

    public static func venue(_ dataset: String) throws -> VenueDefinition {
        try JSONDecoder().decode(
            VenueDefinition.self, from: Data(contentsOf: root.appendingPathComponent("\(dataset)/venue.json")))
    }

    /// A dataset's survey as `survey record` stores it (one fingerprint a scan) and up to about 400 scans of
    /// its walk, spread over it (waldo has no walk: every 7th survey scan, each also in the map, stands in).
    public static func surveyAndScans(_ dataset: String) throws -> (spots: [Spot], references: [(spot: Int, fingerprint: Fingerprint)], queries: [Fingerprint]) {
        let venue = try venue(dataset)
        let builder = PositioningConfiguration().builder
        let survey = SurveyFingerprints(
            survey: try labelledSamples(dataset, "survey.jsonl"), windowSize: 1, spots: venue.spots, builder: builder)
        let walk = dataset == "wmu-waldo"
            ? Array(survey.surveyed.map(\.fingerprint).enumerated().filter { $0.offset % 7 == 0 }.map(\.element))
            : try labelledSamples(dataset, "test.jsonl").compactMap { try? builder.fingerprint(of: [$0.sample]) }
        let queries = walk.count > 400 ? walk.enumerated().filter { $0.offset % (walk.count / 400) == 0 }.map(\.element) : walk
        return (survey.spots, survey.surveyed.map { ($0.spot, $0.fingerprint) }, queries)
    }

    public struct DatasetError: Error { public var message: String }
}
