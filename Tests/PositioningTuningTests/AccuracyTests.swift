import Foundation
import Positioning
import PositioningTuning
import Testing
import TestSupport

/// Accuracy on real, labelled recordings (../shared/datasets, outside the repository), with the
/// configuration `survey tune` chooses from each survey alone: test.jsonl is read only once the
/// configuration is fixed, and only to report (docs/accuracy.md).
@Suite("Accuracy on the shared datasets, tuned from their surveys", .enabled(if: SharedDatasets.available, "../shared/datasets is absent"))
struct AccuracyTests {
    struct Figures {
        var tuning: TuningResult
        var single: WalkEvaluation
        var windowed: WalkEvaluation
        var replay: WalkEvaluation
        var knn: NearestNeighboursEvaluation
        var knnWindowed: NearestNeighboursEvaluation
        /// k-NN on every sample from its device's samples of the tracker's window: the smoothed baseline.
        var knnTracked: NearestNeighboursEvaluation

        /// Each mode against its k-NN on the same queries.
        var singlePaired: PairedComparison { PairedComparison(matcher: single.errors, baseline: knn.errors) }
        var windowedPaired: PairedComparison { PairedComparison(matcher: windowed.errors, baseline: knnWindowed.errors) }
        var replayPaired: PairedComparison { PairedComparison(matcher: replay.errors, baseline: knnTracked.errors) }
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
        let tracking = configuration.tracking
        let figures = Figures(
            tuning: tuning, single: evaluator.evaluation(test, windowSize: 1, in: map),
            windowed: evaluator.evaluation(test, windowSize: 5, in: map),
            replay: evaluator.replayEvaluation(test, tracking: tracking, in: map),
            knn: knn.evaluate(test, windowSize: 1, builder: base.builder),
            knnWindowed: knn.evaluate(test, windowSize: 5, builder: base.builder),
            knnTracked: knn.replay(
                test, window: tracking.window, maximumSamples: tracking.maximumWindowSamples, silenceReset: tracking.silenceReset,
                builder: base.builder))
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
        func ratio(_ paired: PairedComparison) -> String {
            String(
                format: "ratio %.2f on %d both located (matcher only %d, k-NN only %d)", paired.ratio?.mean ?? .nan, paired.bothLocated,
                paired.onlyMatcherLocated, paired.onlyBaselineLocated)
        }
        let configuration = figures.tuning.configuration
        let scores = figures.tuning.uncertaintyScores ?? []
        func logLoss(_ model: UncertaintyModel) -> String {
            scores.first { $0.model == model }.map { String(format: "%.3f", $0.logLoss) } ?? "?"
        }
        let bestPosterior = scores.filter { $0.model != .neighbourSpread }.min { $0.logLoss < $1.logLoss }
            .map { "\($0.model) \(String(format: "%.3f", $0.logLoss))" } ?? "none"
        return """
            \(dataset): tuned \(configuration.metric), window \(configuration.referenceWindow), \(figures.tuning.score.estimator), \
            tracker \(configuration.trackerWindow) s / \(configuration.trackerGain.map { "\($0)" } ?? "\(configuration.trackerAlpha)"), \
            radius from \(configuration.uncertainty.map { "\($0)" } ?? "neighbours' spread") \
            (log-loss \(logLoss(configuration.uncertainty ?? .neighbourSpread)), neighbours' spread \(logLoss(.neighbourSpread)), \
            best posterior \(bestPosterior)); CV mean \(String(format: "%.2f", figures.tuning.score.objective)); \
            radius scales \(String(format: "%.2f / %.2f", configuration.accuracyScale, configuration.trackerAccuracyScale ?? .nan)) \
            calibrated on \((figures.tuning.calibrationProtocols ?? []).map(\.rawValue)); unknown beyond \(configuration.maximumDistance ?? .nan)
              single   \(line(figures.single.report))   k-NN (k \(figures.knn.bestK)) \(line(figures.knn.report))   \(ratio(figures.singlePaired))
              window 5 \(line(figures.windowed.report))   k-NN (k \(figures.knnWindowed.bestK)) \(line(figures.knnWindowed.report))   \(ratio(figures.windowedPaired))
              replay   \(line(figures.replay.report))   k-NN \(configuration.trackerWindow) s (k \(figures.knnTracked.bestK)) \(line(figures.knnTracked.report))   \(ratio(figures.replayPaired))
            """
    }

    /// The datasets with a test walk; the single-scan mean the tuned matcher must reach as a share of the
    /// best plain k-NN's, and the replay mean as a share of k-NN on the same samples the tracker merges
    /// (both on the queries both located; k chosen on the test walk, which flatters k-NN). The aims are
    /// 1.00 (never worse) and 0.85; kolakowski-flat does not reach them yet (docs/accuracy.md) and is held
    /// to what it reaches, so that it cannot get worse unnoticed.
    static let walks: [(dataset: String, single: Double, replay: Double)] = [
        ("uji-geo-p4", 0.85, 0.85), ("uji-geo-p12", 0.85, 0.85), ("uji-geo-p20", 0.90, 0.85), ("kolakowski-flat", 1.10, 1.10),
    ]

    @Test("tuned from the survey alone: every scan answered, single scans and replay against k-NN on the same queries, radii that hold the truth",
          arguments: walks.map(\.dataset))
    func tunedOnSurvey(dataset: String) throws {
        // Given the configuration tune chose from the survey, and the test walk read afterwards
        let figures = try Self.measure(dataset)
        let aims = try #require(Self.walks.first { $0.dataset == dataset })
        // Then unknown answers are at most the empty scans (replay answers them from recent samples when it
        // can) plus 1% of the walk: a better mean is never bought with unknowns
        let walkLength = Double(figures.replay.report.queries)  // the replay asks every sample of the walk
        for report in [figures.single.report, figures.windowed.report, figures.replay.report] {
            #expect(Double(report.unlocated) <= Double(report.emptySamples) + 0.01 * walkLength, "\(report)")
        }
        // And single scans reach their share of the best k-NN, and the tracker its share of smoothed k-NN,
        // on the queries both located
        let single = try #require(figures.singlePaired.ratio), replay = try #require(figures.replayPaired.ratio)
        #expect(single.mean <= aims.single, "single / k-NN \(single.mean)")
        #expect(replay.mean <= aims.replay, "replay / k-NN on the tracker's window \(replay.mean)")
        // And windows and the tracker do better than single scans
        let singleMean = try #require(figures.single.report.errors).mean
        #expect(try #require(figures.windowed.report.errors).mean < singleMean)
        #expect(try #require(figures.replay.report.errors).mean < singleMean)
        // And the accuracy radius is never overconfident: it holds the truth at least 60% of the time, for
        // single scans and tracked answers. Calibrated on cross-validation that imitates live phones (spot
        // left out, phone at its spot, session left out where there are several), it holds 65% to 69% on
        // kolakowski-flat and 76% to 88% on UJI, whose leave-one-spot-out holes are wider than the gaps between
        // its test points and their spots (docs/accuracy.md): above the 76% aimed at, held here to what it reaches.
        for report in [figures.single.report, figures.replay.report] {
            let within = try #require(report.withinAccuracy)
            #expect(within >= 0.60 && within <= 0.90, "\(within)")
        }
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
