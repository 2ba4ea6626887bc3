import ScanFormats
import FingerprintStore
import Foundation
import GRDB
import Positioning
import PositioningTuning
import TestSupport

/// Small venues and surveys for store tests.
enum StoreFixtures {
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    static func beacon(_ minor: Int) -> BeaconID {
        try! BeaconID(uuidString: uuid, major: 1, minor: minor)
    }

    /// Three beacons, three spots on one floor.
    static let venue = VenueDefinition(
        id: "hall", name: "Hall",
        floors: [VenueDefinition.Floor(level: 0, name: "Ground")],
        beacons: (1...3).map { VenueDefinition.Beacon(uuid: uuid, major: 1, minor: $0, x: Double($0), y: 0, floor: 0, label: "B\($0)") },
        spots: [
            Spot(name: "a", x: 0, y: 0, floor: 0, zone: "west"),
            Spot(name: "b", x: 5, y: 0, floor: 0, zone: "west"),
            Spot(name: "c", x: 10, y: 0, floor: 0, zone: "east"),
        ])

    /// `count` samples of `device` at `spot` hearing the given beacons (with a little variation).
    static func samples(at spot: String, x: Double, count: Int, rssi: [Int: Double], device: String = "phone", start: Double = 0) -> [LabelledSample] {
        (0..<count).map { index in
            LabelledSample(
                sample: Sample(
                    device: device, time: start + Double(index),
                    readings: rssi.sorted { $0.key < $1.key }.map { Reading(beacon: beacon($0.key), rssi: $0.value - Double(index % 2)) }),
                truth: GroundTruth(spot: spot, x: x, y: 0, floor: 0))
        }
    }

    static var survey: [LabelledSample] {
        samples(at: "a", x: 0, count: 6, rssi: [1: -55, 2: -70, 3: -85])
            + samples(at: "b", x: 5, count: 6, rssi: [1: -68, 2: -58, 3: -69], start: 10)
            + samples(at: "c", x: 10, count: 6, rssi: [1: -84, 2: -71, 3: -56], start: 20)
    }

    static var options: RecordOptions { RecordOptions(windowSize: 3, operator: "ana", sourceFile: "fixture.jsonl", builder: PositioningConfiguration().builder) }

    static func temporaryDirectory() throws -> URL {
        try ScratchSpace.directory("store")
    }

    /// Everything the store holds, as comparable rows (ids excluded), to prove that nothing changed.
    static func snapshot(_ store: FingerprintStore) async throws -> [String] {
        try await store.sqlRead { transaction in
            var rows: [String] = []
            for table in ["venue", "floor", "beacon", "spot", "surveySession", "fingerprint", "fingerprintEntry"] {
                for row in try await transaction.rows("SELECT * FROM \(sql: table) ORDER BY 1, 2") {
                    rows.append("\(table): " + zip(row.columns, row.values).map { "\($0.lowercased())=\($1)" }.joined(separator: " "))
                }
            }
            return rows
        }
    }
}
