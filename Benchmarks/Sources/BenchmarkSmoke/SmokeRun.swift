import Benchmark
import Foundation

/// The short run CI makes of every benchmark (scripts/benchmark-smoke.sh sets `BEACONFIX_BENCHMARK_SMOKE=1`):
/// each benchmark builds its data and runs a couple of iterations, so none can rot or crash unseen, in
/// minutes. Figures from a smoke run mean nothing.
public enum SmokeRun {
    /// Whether this process was asked for a smoke run.
    public static var isRequested: Bool { ProcessInfo.processInfo.environment["BEACONFIX_BENCHMARK_SMOKE"] == "1" }

    /// In a smoke run, cuts every benchmark registered so far to `iterations` iterations, no warm-up and
    /// at most a second of measuring; otherwise does nothing. Call it last in a target's `benchmarks`.
    public static func shortenRegisteredBenchmarks(iterations: Int = 2) {
        guard isRequested else { return }
        for benchmark in Benchmark.benchmarks {
            benchmark.configuration.warmupIterations = 0
            benchmark.configuration.maxIterations = iterations
            benchmark.configuration.maxDuration = .seconds(1)
        }
    }
}
