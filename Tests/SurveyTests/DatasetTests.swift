import ScanFormats
import Foundation
import Positioning
import PositioningTuning
import Testing
import TestSupport

/// ../shared/datasets/uji-geo-p12, outside the repository.
enum UJIDataset {
    static let root = SurveyProcess.packageRoot.appendingPathComponent("../shared/datasets/uji-geo-p12").standardizedFileURL
    static var available: Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent("survey.jsonl").path) }
}

/// venue import → record → evaluate on the shared UJI recordings, through the command line and the
/// SQLite file, must give the same figures as Positioning on the same files.
@Suite("survey: end to end on uji-geo-p12", .enabled(if: UJIDataset.available, "../shared/datasets is absent"))
struct DatasetTests {
    static let root = UJIDataset.root

    func labelled(_ file: String) throws -> [LabelledSample] {
        let decoded = ScanLogDecoder().decode(try Data(contentsOf: Self.root.appendingPathComponent(file)))
        return try decoded.lines.map { try LabelledSample(sample: $0.line.sample(), truth: $0.line.groundTruth!) }
    }

    struct Output: Decodable {
        struct Report: Decodable {
            struct Errors: Decodable { var mean: Double; var median: Double; var p90: Double; var count: Int }
            var queries: Int
            var errors: Errors
        }
        var report: Report
    }

    @Test("the CLI's evaluation agrees with the Positioning accuracy figures", arguments: [1, 5])
    func agreesWithPositioning(window: Int) throws {
        // Given the venue imported and its survey recorded through the CLI into a fresh database
        let directory = try SurveyProcess.temporaryDirectory()
        let db = directory.appendingPathComponent("uji.sqlite").path
        let imported = try SurveyProcess.run(["venue", "import", Self.root.appendingPathComponent("venue.json").path, "--db", db])
        #expect(imported.status == 0, "\(imported.stderr)")
        // (untuned, so that both sides use the default configuration)
        let recorded = try SurveyProcess.run([
            "record", "--venue", "uji-geo-p12", "--no-tune", Self.root.appendingPathComponent("survey.jsonl").path, "--db", db,
        ])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stdout.contains("Skipped 86 empty scans"))
        // When the test walk is evaluated through the CLI
        let evaluated = try SurveyProcess.run([
            "evaluate", "--venue", "uji-geo-p12", "--test", Self.root.appendingPathComponent("test.jsonl").path,
            "--window", "\(window)", "--json", "--db", db,
        ])
        #expect(evaluated.status == 0, "\(evaluated.stderr)")
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let cli = try decoder.decode(Output.self, from: Data(evaluated.stdout.utf8)).report
        // Then the figures equal Positioning's evaluation of the same files without the store
        let configuration = PositioningConfiguration()
        let venue = try JSONDecoder().decode(VenueDefinition.self, from: Data(contentsOf: Self.root.appendingPathComponent("venue.json")))
        let map = try SurveyFingerprints(
            survey: try labelled("survey.jsonl"), windowSize: configuration.surveyWindow, spots: venue.spots,
            builder: configuration.builder
        ).radioMap(configuration: configuration)
        let direct = try #require(Evaluator(builder: configuration.builder, locator: configuration.locator)
            .evaluate(try labelled("test.jsonl"), windowSize: window, in: map).errors)
        print("uji-geo-p12 via CLI, window \(window): mean \(cli.errors.mean), median \(cli.errors.median), p90 \(cli.errors.p90)")
        #expect(cli.errors.count == direct.count)
        #expect(abs(cli.errors.mean - direct.mean) < 1e-6)
        #expect(abs(cli.errors.p90 - direct.p90) < 1e-6)
        #expect(cli.errors.mean < 3.31)
    }
}
