public import FingerprintStore
public import Foundation
public import Logging
import Positioning
import PositioningTuning
public import ScanFormats

/// venues/demo-hall in a fresh SQLite file, imported (with its floor plans) and recorded as `make run` does,
/// never tuned.
public enum DemoVenue {
    public static let logger: Logger = {
        var logger = Logger(label: "beaconfix-test")
        logger.logLevel = .warning
        return logger
    }()

    public static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("venues/demo-hall")

    /// One of venues/demo-hall's files.
    public static func file(_ name: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(name))
    }

    /// - Parameters:
    ///   - recorded: record survey.jsonl after the import.
    ///   - adjust: changes the definition before it is imported.
    public static func store(
        recorded: Bool = true, logger: Logger = logger, _ adjust: (inout VenueDefinition) -> Void = { _ in }
    ) async throws -> FingerprintStore {
        let directory = try ScratchSpace.directory("demo-venue")
        let store = try FingerprintStore.open(path: directory.appendingPathComponent("beaconfix.sqlite").path, logger: logger)
        var definition = try JSONDecoder().decode(VenueDefinition.self, from: file("venue.json"))
        adjust(&definition)
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
