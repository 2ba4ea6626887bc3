import FingerprintStore
import Foundation
import Logging
import Positioning
import PositioningTuning
import ScanFormats
import TestSupport

/// venues/demo-hall in a fresh SQLite file: imported, and recorded unless asked not to, never tuned.
enum DemoVenue {
    static let logger: Logger = {
        var logger = Logger(label: "venue-services-test")
        logger.logLevel = .warning
        return logger
    }()

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("venues/demo-hall")

    static func file(_ name: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(name))
    }

    static func store(recorded: Bool = true) async throws -> FingerprintStore {
        let directory = try ScratchSpace.directory("venue-services")
        let store = try FingerprintStore.open(path: directory.appendingPathComponent("beaconfix.sqlite").path, logger: logger)
        let definition = try JSONDecoder().decode(VenueDefinition.self, from: file("venue.json"))
        var plans: [Int: FloorPlanImage] = [:]
        for floor in definition.floors {
            guard let plan = floor.plan else { continue }
            plans[floor.level] = try FloorPlanImage(data: file(plan.image), path: plan.image)
        }
        _ = try await store.importVenue(definition, plans: plans)
        if recorded {
            let configuration = PositioningConfiguration()
            _ = try await store.record(
                try ScanLogDecoder().decode(try file("survey.jsonl")).lines.map {
                    LabelledSample(sample: try $0.line.sample(), truth: $0.line.groundTruth!)
                },
                into: "demo-hall", options: RecordOptions(windowSize: configuration.surveyWindow, builder: configuration.builder))
        }
        return store
    }
}
