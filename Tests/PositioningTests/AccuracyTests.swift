import Foundation
import Positioning
import Testing

/// Accuracy on real, labelled recordings (../shared/datasets, outside the repository).
@Suite("Accuracy on the shared UJI datasets", .enabled(if: SharedDatasets.available, "../shared/datasets is absent"))
struct AccuracyTests {
    /// Builds the radio map of `dataset`'s survey and evaluates its test walk.
    static func evaluate(
        _ dataset: String, window: Int, configuration: PositioningConfiguration = PositioningConfiguration()
    ) throws -> EvaluationReport {
        let venue = try SharedDatasets.venue(dataset)
        let survey = SurveyFingerprints(
            survey: try SharedDatasets.labelledSamples(dataset, "survey.jsonl"),
            windowSize: configuration.surveyWindow, spots: venue.spots, builder: configuration.builder)
        let map = try survey.radioMap()
        let evaluator = Evaluator(builder: configuration.builder, locator: configuration.locator)
        return evaluator.evaluate(try SharedDatasets.labelledSamples(dataset, "test.jsonl"), windowSize: window, in: map)
    }

    @Test("the default configuration beats the best k-NN reference (3.31 m) on uji-geo-p12 single scans")
    func beatsKNearestNeighbours() throws {
        // Given the p12 survey as reference and its test walk, one scan at a time
        let report = try Self.evaluate("uji-geo-p12", window: 1)
        // Then every non-empty scan is located, and the mean error is below scikit-learn's best k-NN
        let errors = try #require(report.errors)
        print("uji-geo-p12 single scans: mean \(errors.mean), median \(errors.median), p90 \(errors.p90), n \(errors.count)")
        #expect(report.queries == 218)
        #expect(report.unlocated == 0)
        #expect(report.emptySamples == 42)
        #expect(errors.mean < 3.31)
        #expect(report.floorHitRate == 1)
        // And it meets the aims set for the matcher: under 2.8 m single-scan, under 2.3 m with 5-sample windows
        #expect(errors.mean < 2.8)
        let windowed = try #require(try Self.evaluate("uji-geo-p12", window: 5).errors)
        #expect(windowed.mean < 2.3)
    }

    @Test("5-sample windows do better than single scans on every UJI power level",
          arguments: ["uji-geo-p4", "uji-geo-p12", "uji-geo-p20"])
    func windowsHelp(dataset: String) throws {
        let single = try #require(try Self.evaluate(dataset, window: 1).errors)
        let windowed = try #require(try Self.evaluate(dataset, window: 5).errors)
        print("\(dataset): single \(single.mean) / \(single.median) / \(single.p90); window 5 \(windowed.mean) / \(windowed.median) / \(windowed.p90)")
        #expect(single.mean < 3.31)
        #expect(windowed.mean < single.mean)
        #expect(windowed.mean < 2.5)
    }

    @Test("an empty scan gets a clear unknown, not a guess")
    func emptyScanIsUnknown() throws {
        let configuration = PositioningConfiguration()
        let survey = SurveyFingerprints(
            survey: try SharedDatasets.labelledSamples("uji-geo-p12", "survey.jsonl"), windowSize: 5,
            builder: configuration.builder)
        #expect(survey.emptySamples == 86)
        #expect(throws: FingerprintError.noValidReadings(samples: 1)) {
            try configuration.builder.fingerprint(of: [Sample(device: "phone", time: 0, readings: [])])
        }
    }
}

extension AccuracyTests {
    @Test("replaying the walk through the tracker smooths without losing accuracy")
    func replayThroughTracker() throws {
        // Given the p12 survey and the test walk replayed sample by sample, as the daemon sees a phone
        let configuration = PositioningConfiguration()
        let venue = try SharedDatasets.venue("uji-geo-p12")
        let map = try SurveyFingerprints(
            survey: try SharedDatasets.labelledSamples("uji-geo-p12", "survey.jsonl"),
            windowSize: configuration.surveyWindow, spots: venue.spots, builder: configuration.builder
        ).radioMap()
        let evaluator = Evaluator(builder: configuration.builder, locator: configuration.locator)
        let test = try SharedDatasets.labelledSamples("uji-geo-p12", "test.jsonl")
        // When replayed
        let replay = evaluator.replay(test, tracking: configuration.tracking, in: map)
        // Then every sample of the walk gets an answer and the error beats single scans
        let errors = try #require(replay.errors)
        print("uji-geo-p12 replay: mean \(errors.mean), median \(errors.median), p90 \(errors.p90), n \(errors.count)")
        #expect(replay.queries == test.count)
        #expect(errors.mean < 2.8)
    }
}
