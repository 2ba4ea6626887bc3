package import ArgumentParser
import Foundation
import FingerprintStore
import Positioning
import PositioningTuning

extension Survey {
    /// `survey evaluate`: how well the stored survey locates a walk with ground truth, or itself.
    package struct Evaluate: AsyncParsableCommand {
        package init() {}

        package static let configuration = CommandConfiguration(
            abstract: "Measure positioning errors of a venue's survey against a test walk, or by cross-validation.",
            discussion: """
                With --test, every window of --window consecutive samples of the walk is located and compared with \
                its ground truth (--replay runs the walk through the tracker instead, sample by sample, as the \
                daemon would). With --cross-validate, each spot's fingerprints are located among the other spots \
                only (leave-one-spot-out), so a survey can be judged without a separate walk.

                --compare knn also runs the simplest fingerprinting, k nearest neighbours on raw RSSI (missing \
                beacons at -105 dBm, the mean of the k nearest survey fingerprints' spots, every k from 1 to 20 \
                and the best one kept), on the same survey and the same queries: the same windows, or with \
                --replay every sample answered from its device's samples of the tracker's window (the smoothed \
                baseline a tracker must beat). The ratio matcher / k-NN is computed over the queries both located; \
                queries only one side located are counted apart, so an unknown answer flatters neither side. \
                Record the survey with --window 1 for the usual baseline: one reference per scan.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: "The venue whose survey is evaluated.")
        var venue: String

        @Option(name: .long, help: ArgumentHelp("A walk with ground truth (JSON Lines).", valueName: "file"))
        var test: String?

        @Option(name: .long, help: "Consecutive samples per query (at least 1).")
        var window: Int = 1

        @Flag(name: .long, help: "Replay the walk through the tracker (the venue's tracker window and smoothing), sample by sample, instead of windows.")
        var replay = false

        @Flag(name: .long, help: "Leave-one-spot-out cross-validation of the survey itself.")
        var crossValidate = false

        @Option(name: .long, help: "Also evaluate a baseline on the same survey and walk and compare the errors.")
        var compare: Baseline?

        @Flag(name: .long, help: "Replay the walk as a live venue would see it: each sample located first, then taken as evidence of the beacons' health, in time order; matching acts on what the monitor concludes (shifted beacons corrected, silent ones as the survey's cross-validation says, a wider radius). --json lists every state change and proposal with the sample it came at.")
        var adapt = false

        @OptionGroup(title: "Faults injected into the walk") var faults: FaultOptions

        /// The baselines `--compare` can run.
        enum Baseline: String, ExpressibleByArgument, CaseIterable {
            /// k nearest neighbours on raw RSSI, best k of 1...20.
            case knn
        }

        package func validate() throws {
            guard window >= 1 else { throw ValidationError("--window must be at least 1 (got \(window)).") }
            switch (test, crossValidate) {
            case (nil, false): throw ValidationError("Give a walk with --test FILE, or --cross-validate.")
            case (.some, true): throw ValidationError("--test and --cross-validate are alternatives; give one.")
            default: break
            }
            if replay, test == nil { throw ValidationError("--replay needs --test FILE.") }
            if compare != nil, test == nil {
                throw ValidationError("--compare needs --test FILE: the baseline is measured on the same walk.")
            }
            if adapt, test == nil { throw ValidationError("--adapt needs --test FILE: it replays a walk as live traffic.") }
            if !faults.isEmpty, test == nil { throw ValidationError("Faults are injected into a walk: give --test FILE.") }
        }

        package func run() async throws {
            let fingerprintStore = try await store.open()
            let clock = ContinuousClock()
            let loadStart = clock.now
            let survey = try await fingerprintStore.survey(of: venue, scale: PositioningConfiguration.defaultScale)
            let configuration = survey.configuration
            let loaded = clock.now
            let map = try survey.radioMap(configuration: configuration)
            let built = clock.now
            let loading = RadioMapLoading(
                fingerprints: map.count, beacons: map.beaconCount, readSeconds: (loaded - loadStart).seconds,
                buildSeconds: (built - loaded).seconds)
            let evaluator = Evaluator(builder: configuration.builder, locator: configuration.locator)
            let report: EvaluationReport
            let mode: String
            var comparison: Comparison?
            var adaptive: AdaptiveOutput?
            if let test {
                let walk = try ScanLogInput(path: test, skipBad: false, requireGroundTruth: true).labelledSamples()
                let injected = try faults.faults(venue: survey.venue, walk: walk)
                let samples = walk.map { LabelledSample(sample: injected.apply(to: $0.sample), truth: $0.truth) }
                let evaluation: WalkEvaluation
                if adapt {
                    let run = try Self.adaptiveRun(
                        walk, faults: injected, survey: survey, map: map, tracking: replay ? configuration.tracking : nil, windowSize: window)
                    evaluation = run.evaluation.walk
                    adaptive = AdaptiveOutput(run.evaluation, rules: run.rules, venue: survey.venue)
                } else {
                    evaluation = replay
                        ? evaluator.replayEvaluation(samples, tracking: configuration.tracking, in: map)
                        : evaluator.evaluation(samples, windowSize: window, in: map)
                }
                report = evaluation.report
                mode = (replay ? "replay of \(test) through the tracker" : "\(test), windows of \(window)")
                    + (injected.isEmpty ? "" : ", faults: " + injected.map { Self.describe($0, venue: survey.venue) }.joined(separator: "; "))
                    + (adapt ? ", adapting to the beacons' health" : "")
                if compare == .knn {
                    let knn = try RSSINearestNeighbours(spots: survey.spots, fingerprints: survey.fingerprints)
                    let tracking = configuration.tracking
                    // A tracked phone's fair counterpart is k-NN on the same samples the tracker merges.
                    let baseline = replay
                        ? knn.replay(
                            samples, window: tracking.window, maximumSamples: tracking.maximumWindowSamples,
                            silenceReset: tracking.silenceReset, builder: configuration.builder)
                        : knn.evaluate(samples, windowSize: window, builder: configuration.builder)
                    comparison = Comparison(
                        matcher: evaluation, windowSize: replay ? nil : window, windowSeconds: replay ? tracking.window : nil,
                        knn: baseline)
                }
            } else {
                report = try evaluator.crossValidate(spots: survey.spots, fingerprints: survey.fingerprints)
                mode = "leave-one-spot-out cross-validation"
            }
            if output.json {
                return try Output.json(EvaluationOutput(
                    venue: venue, revision: survey.revision, tunedRevision: survey.tuning?.revision, mode: mode, radioMap: loading,
                    report: report, comparison: comparison, adaptive: adaptive))
            }
            print("Venue '\(venue)' (revision \(survey.revision)), \(mode):")
            print("  configuration: " + Self.describe(survey.tuning))
            print("  radio map: \(loading.fingerprints) fingerprints x \(loading.beacons) beacons, read in \(Output.milliseconds(loading.readSeconds)), built in \(Output.milliseconds(loading.buildSeconds))")
            print("  queries \(report.queries), located \(report.located), unknown \(report.unlocated)"
                + (report.unknown.isEmpty ? "" : " (" + report.unknown.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ")")
                + (report.emptySamples == 0 ? "" : replay
                    ? ", of them empty scans \(report.emptySamples) (the tracker answers from the device's recent samples)"
                    : ", empty scans skipped \(report.emptySamples)"))
            if let errors = report.errors {
                print("  error: mean \(Output.metres(errors.mean)), median \(Output.metres(errors.median)), p75 \(Output.metres(errors.p75)), p90 \(Output.metres(errors.p90)), max \(Output.metres(errors.max))")
            }
            print("  floor hit rate \(Output.metres(report.floorHitRate * 100))%, spot hit rate \(Output.metres(report.spotHitRate * 100))%")
            if let within = report.withinAccuracy {
                print("  true position within the accuracy radius: \(Output.metres(within * 100))% (68% is what the radius promises)")
            }
            if let stationary = report.stationary {
                print("  standing still \(Output.metres(stationary.seconds)) s (ground truth unchanged between samples): "
                    + "zone changes \(stationary.zoneChanges)"
                    + (stationary.zoneChangesPerMinute.map { ", \(Output.metres($0)) per minute" } ?? ""))
            }
            if let comparison { comparison.print(matcher: report) }
            adaptive?.print()
        }
    }
}

extension Survey.Evaluate {
    /// Which configuration a venue's answers come from, for people.
    static func describe(_ tuning: StoredTuning?) -> String {
        guard let tuning else {
            return "the default configuration (the venue was never tuned; 'survey tune' chooses one from its survey)"
        }
        return "tuned at revision \(tuning.revision): \(tuning.result.configuration.metric); \(VenueTuning.describe(tuning.result.configuration.referenceWindow)); \(tuning.result.score.estimator)"
    }
}

/// The matcher's figures beside a baseline's, measured on the same queries.
struct Comparison: Encodable {
    var baseline = "knn"
    /// Samples per query of both sides (windows); absent with `--replay`.
    var windowSize: Int?
    /// With `--replay`: seconds of each device's recent samples the baseline averages, the tracker's window.
    var windowSeconds: Double?
    var bestK: Int
    /// The baseline at its best k, on every query.
    var report: EvaluationReport
    /// Mean error for every k tried.
    var byK: [NearestNeighboursEvaluation.Row]
    /// Both sides on the queries both located, and how many only one side located.
    var paired: PairedComparison
    /// Matcher / baseline over the queries both located (`paired.ratio`): below 1 means the matcher is better.
    var ratio: PairedComparison.Ratio?

    init(matcher: WalkEvaluation, windowSize: Int?, windowSeconds: Double?, knn: NearestNeighboursEvaluation) {
        self.windowSize = windowSize
        self.windowSeconds = windowSeconds
        bestK = knn.bestK
        report = knn.report
        byK = knn.byK
        paired = PairedComparison(matcher: matcher.errors, baseline: knn.errors)
        ratio = paired.ratio
    }

    /// The comparison as text, after the matcher's own report.
    func print(matcher: EvaluationReport) {
        let queries = if let windowSeconds {
            "every sample from its device's last \(Output.metres(windowSeconds)) s (the tracker's window):"
        } else if windowSize == 1 {
            "single scans:"
        } else {
            "windows of \(windowSize ?? 1):"
        }
        Swift.print("  compared with k-NN on raw RSSI (missing -105 dBm), best k \(bestK) of \(byK.first?.k ?? 1)...\(byK.last?.k ?? 1), \(queries)")
        Swift.print("    matcher: \(Self.figures(matcher))")
        Swift.print("    k-NN:    \(Self.figures(report))")
        Swift.print("    on the \(paired.bothLocated) queries both located: matcher \(Self.figures(paired.matcher)); k-NN \(Self.figures(paired.baseline))")
        Swift.print("    located by the matcher only \(paired.onlyMatcherLocated), by k-NN only \(paired.onlyBaselineLocated), by neither \(paired.neitherLocated)")
        if let ratio {
            Swift.print("    matcher / k-NN (queries both located): mean \(Output.metres(ratio.mean)), median \(Output.metres(ratio.median)), p90 \(Output.metres(ratio.p90))")
        }
        Swift.print("    k-NN mean error by k: " + byK.map { "\($0.k): \($0.meanError.map(Output.metres) ?? "-")" }.joined(separator: ", "))
    }

    /// Mean, median, p90, unknown count and share within the radius of `report`.
    static func figures(_ report: EvaluationReport) -> String {
        figures(report.errors) + ", unknown \(report.unlocated) of \(report.queries)"
            + (report.withinAccuracy.map { ", within accuracy_m \(Output.metres($0 * 100))%" } ?? "")
    }

    /// Mean, median and p90 of `errors`.
    static func figures(_ errors: ErrorStatistics?) -> String {
        errors.map { "mean \(Output.metres($0.mean)), median \(Output.metres($0.median)), p90 \(Output.metres($0.p90))" }
            ?? "nothing located"
    }
}

/// `evaluate --json`.
struct EvaluationOutput: Encodable {
    var venue: String
    var revision: Int
    /// The revision the venue was tuned at; absent when it uses the default configuration.
    var tunedRevision: Int?
    var mode: String
    var radioMap: RadioMapLoading
    var report: EvaluationReport
    /// With `--compare`: the baseline on the same survey and walk.
    var comparison: Comparison?
    /// With `--adapt`: the beacons' health as the replay saw it.
    var adaptive: AdaptiveOutput?
}

/// How long the survey took to read from the database and lay out as a radio map.
struct RadioMapLoading: Encodable {
    var fingerprints: Int
    var beacons: Int
    var readSeconds: Double
    var buildSeconds: Double
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
