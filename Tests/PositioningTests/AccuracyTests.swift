import Foundation
import Positioning
import Testing

/// Accuracy on real, labelled recordings (../shared/datasets, outside the repository), with the
/// configuration `survey tune` chooses from each survey alone: test.jsonl is read only once the
/// configuration is fixed, and only to report (README, "Accuracy").
@Suite("Accuracy on the shared datasets, tuned from their surveys", .enabled(if: SharedDatasets.available, "../shared/datasets is absent"))
struct AccuracyTests {
    struct Figures {
        var tuning: TuningResult
        var single: EvaluationReport
        var windowed: EvaluationReport
        var replay: EvaluationReport
        var knn: NearestNeighboursEvaluation
        var knnWindowed: NearestNeighboursEvaluation
    }

    /// Tunes on `dataset`'s survey (recorded one scan per fingerprint, as `survey record` does), then
    /// evaluates its test walk: single scans, 5-sample windows, replay through the tracker, and the plain
    /// k-NN baseline on the same references and walk.
    static func measure(_ dataset: String) throws -> Figures {
        let venue = try SharedDatasets.venue(dataset)
        let base = PositioningConfiguration()
        let survey = SurveyFingerprints(
            survey: try SharedDatasets.labelledSamples(dataset, "survey.jsonl"), windowSize: 1, spots: venue.spots, builder: base.builder)
        let validation = SurveyCrossValidation(spots: survey.spots, survey: survey.surveyed, scale: base.builder.scale)
        let tuning = try #require(try SurveyTuner().tune(validation))
        let configuration = tuning.configuration.positioning(base: base)
        // The configuration is fixed: only now is the test walk read.
        let test = try SharedDatasets.labelledSamples(dataset, "test.jsonl")
        let map = try survey.radioMap(configuration: configuration)
        let evaluator = Evaluator(builder: configuration.builder, locator: configuration.locator)
        let knn = try RSSINearestNeighbours(spots: survey.spots, fingerprints: survey.fingerprints)
        let figures = Figures(
            tuning: tuning, single: evaluator.evaluate(test, windowSize: 1, in: map),
            windowed: evaluator.evaluate(test, windowSize: 5, in: map),
            replay: evaluator.replay(test, tracking: configuration.tracking, in: map),
            knn: knn.evaluate(test, windowSize: 1, builder: base.builder),
            knnWindowed: knn.evaluate(test, windowSize: 5, builder: base.builder))
        print(describe(dataset, figures))
        return figures
    }

    static func describe(_ dataset: String, _ figures: Figures) -> String {
        func line(_ report: EvaluationReport) -> String {
            guard let errors = report.errors else { return "nothing located" }
            return String(
                format: "%.2f / %.2f / %.2f, unknown %d of %d, within radius %.0f%%", errors.mean, errors.median, errors.p90,
                report.unlocated, report.queries, (report.withinAccuracy ?? 0) * 100)
        }
        let configuration = figures.tuning.configuration
        return """
            \(dataset): tuned \(configuration.metric), window \(configuration.referenceWindow), \(figures.tuning.score.estimator), \
            tracker \(configuration.trackerWindow) s / \(configuration.trackerAlpha); CV mean \(String(format: "%.2f", figures.tuning.score.objective))
              single   \(line(figures.single))   k-NN (k \(figures.knn.bestK)) \(line(figures.knn.report))
              window 5 \(line(figures.windowed))   k-NN (k \(figures.knnWindowed.bestK)) \(line(figures.knnWindowed.report))
              replay   \(line(figures.replay))
            """
    }

    /// The datasets with a test walk, and the single-scan mean the tuned matcher must reach as a share of
    /// the best plain k-NN's (k chosen on the test walk, which flatters k-NN). The aim is 0.85 everywhere;
    /// uji-geo-p20 and kolakowski-flat do not reach it yet (README, "Accuracy"), and are held to what
    /// they reach, so that they cannot get worse unnoticed.
    static let walks: [(dataset: String, ratio: Double)] = [
        ("uji-geo-p4", 0.85), ("uji-geo-p12", 0.85), ("uji-geo-p20", 0.90), ("kolakowski-flat", 1.10),
    ]

    @Test("tuned from the survey alone: single scans against k-NN, windows and replay better than single scans, a radius that means 68%",
          arguments: walks.map(\.dataset))
    func tunedOnSurvey(dataset: String) throws {
        // Given the configuration tune chose from the survey, and the test walk read afterwards
        let figures = try Self.measure(dataset)
        let single = try #require(figures.single.errors), knn = try #require(figures.knn.report.errors)
        // Then (almost) every scan is answered: a better mean is never bought with unknowns
        #expect(Double(figures.single.unlocated) <= 0.01 * Double(figures.single.queries))
        // And single scans reach their share of the best k-NN
        let ratio = try #require(Self.walks.first { $0.dataset == dataset }?.ratio)
        #expect(single.mean <= ratio * knn.mean, "single \(single.mean) vs k-NN \(knn.mean)")
        // And windows and the tracker do better than single scans
        #expect(try #require(figures.windowed.errors).mean < single.mean)
        #expect(try #require(figures.replay.errors).mean < single.mean)
        // And the accuracy radius is never overconfident: it holds the truth at least 60% of the time. It is
        // calibrated to 68% of the leave-one-spot-out answers, whose holes in the survey are wider than the
        // gaps between the UJI test points and their nearest spots, so there it holds 79% to 86% (README,
        // "Accuracy"): above the 76% aimed at, held here to what it reaches.
        let within = try #require(figures.single.withinAccuracy)
        #expect(within >= 0.60 && within <= 0.90, "\(within)")
    }

    @Test("wmu-waldo (no test walk): tuning gives a cross-validation figure and a calibrated radius")
    func waldoCrossValidation() throws {
        // Given the sparse library survey (most scans hear 1 to 3 beacons)
        let venue = try SharedDatasets.venue("wmu-waldo")
        let base = PositioningConfiguration()
        let survey = SurveyFingerprints(
            survey: try SharedDatasets.labelledSamples("wmu-waldo", "survey.jsonl"), windowSize: 1, spots: venue.spots, builder: base.builder)
        // When it is tuned
        let tuning = try #require(try SurveyTuner().tune(
            SurveyCrossValidation(spots: survey.spots, survey: survey.surveyed, scale: base.builder.scale)))
        let spotOut = try #require(tuning.score.spotOut)
        print("wmu-waldo: tuned \(tuning.configuration.metric), window \(tuning.configuration.referenceWindow), \(tuning.score.estimator); CV mean \(spotOut.mean) / median \(spotOut.median) / p90 \(spotOut.p90) cells, within radius \(tuning.withinAccuracy)")
        // Then every survey scan gets an answer and the radius holds 68% of them
        #expect(tuning.score.unanswered == 0)
        #expect(abs(tuning.withinAccuracy - 0.68) < 0.03)
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
