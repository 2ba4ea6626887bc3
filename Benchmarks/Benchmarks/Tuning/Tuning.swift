import Benchmark
import BenchmarkSmoke
import Positioning
import PositioningTuning
import ScanFormats
import SyntheticVenues

/// The survey of the tuning requirement (300 spots, 24 beacons, 80 scans per spot: 24,000 lines), built
/// once per process by the benchmark's setup.
nonisolated(unsafe) var gridSurvey: SurveyFingerprints?

func survey() -> SurveyFingerprints {
    if let gridSurvey { return gridSurvey }
    // A smoke run (CI) tunes a survey a tenth of the size: it checks the benchmark still runs, not its figure.
    let source = SmokeRun.isRequested ? GridSurvey(spots: 60, samplesPerSpot: 40) : GridSurvey()
    let fingerprints = source.fingerprints()
    gridSurvey = fingerprints
    let validation = SurveyCrossValidation(
        spots: fingerprints.spots, survey: fingerprints.surveyed, scale: PositioningConfiguration.defaultScale)
    let space = TuningSearchSpace.standard
    print("survey of \(source.lines.count) lines at \(source.venue.definition.spots.count) spots: \(fingerprints.surveyed.count) fingerprints, \(validation.queries.count) cross-validation queries, \(space.mapCandidates.count) map candidates x \(space.estimators.count) estimators")
    return fingerprints
}

let benchmarks: @Sendable () -> Void = {
    // One sequential tuning takes over a minute on a 2-core VM: at most 3 iterations (about 4 minutes), no warm-up.
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .peakMemoryResident],
        timeUnits: .milliseconds, warmupIterations: 0, maxDuration: .seconds(150), maxIterations: 3)

    // What `survey tune` does, on one core: every map candidate of the standard search space one after
    // the other (the CLI scores them on every core), then the winner's calibration and tracker replay.
    Benchmark("tune a 300-spot, 24000-line survey (sequential)", configuration: .init(setup: { _ = survey() })) { benchmark in
        let survey = survey()
        for _ in benchmark.scaledIterations {
            let validation = SurveyCrossValidation(
                spots: survey.spots, survey: survey.surveyed, scale: PositioningConfiguration.defaultScale)
            blackHole(try! SurveyTuner().tune(validation))
        }
    }
    SmokeRun.shortenRegisteredBenchmarks(iterations: 1)
}
