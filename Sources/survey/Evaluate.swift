import ArgumentParser
import Foundation
import FingerprintStore
import Positioning

extension Survey {
    /// `survey evaluate`: how well the stored survey locates a walk with ground truth, or itself.
    struct Evaluate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure positioning errors of a venue's survey against a test walk, or by cross-validation.",
            discussion: """
                With --test, every window of --window consecutive samples of the walk is located and compared with
                its ground truth (--replay runs the walk through the tracker instead, sample by sample, as the
                daemon would). With --cross-validate, each spot's fingerprints are located among the other spots
                only (leave-one-spot-out), so a survey can be judged without a separate walk.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: "The venue whose survey is evaluated.")
        var venue: String

        @Option(name: .long, help: ArgumentHelp("A walk with ground truth (JSON Lines).", valueName: "file"))
        var test: String?

        @Option(name: .long, help: "Consecutive samples per query (at least 1).")
        var window: Int = 1

        @Flag(name: .long, help: "Replay the walk through the tracker (smoothing, 5 s window) instead of windows.")
        var replay = false

        @Flag(name: .long, help: "Leave-one-spot-out cross-validation of the survey itself.")
        var crossValidate = false

        func validate() throws {
            guard window >= 1 else { throw ValidationError("--window must be at least 1 (got \(window)).") }
            switch (test, crossValidate) {
            case (nil, false): throw ValidationError("Give a walk with --test FILE, or --cross-validate.")
            case (.some, true): throw ValidationError("--test and --cross-validate are alternatives; give one.")
            default: break
            }
            if replay, test == nil { throw ValidationError("--replay needs --test FILE.") }
        }

        func run() async throws {
            let fingerprintStore = try store.open()
            let clock = ContinuousClock()
            let loadStart = clock.now
            let survey = try fingerprintStore.survey(of: venue, scale: PositioningConfiguration.defaultScale)
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
            if let test {
                let input = try ScanLogInput(path: test, skipBad: false, requireGroundTruth: true)
                if replay {
                    report = evaluator.replay(try input.labelledSamples(), tracking: configuration.tracking, in: map)
                    mode = "replay of \(test) through the tracker"
                } else {
                    report = evaluator.evaluate(try input.labelledSamples(), windowSize: window, in: map)
                    mode = "\(test), windows of \(window)"
                }
            } else {
                report = try evaluator.crossValidate(spots: survey.spots, fingerprints: survey.fingerprints)
                mode = "leave-one-spot-out cross-validation"
            }
            if output.json {
                return try Output.json(EvaluationOutput(
                    venue: venue, revision: survey.revision, tunedRevision: survey.tuning?.revision, mode: mode, radioMap: loading,
                    report: report))
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

/// `evaluate --json`.
struct EvaluationOutput: Encodable {
    var venue: String
    var revision: Int
    /// The revision the venue was tuned at; absent when it uses the default configuration.
    var tunedRevision: Int?
    var mode: String
    var radioMap: RadioMapLoading
    var report: EvaluationReport
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
