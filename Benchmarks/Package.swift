// swift-tools-version: 6.1
import PackageDescription

// Benchmarks live in their own package so the main build and CI stay light:
//   cd Benchmarks && swift package benchmark
let package = Package(
    name: "beaconfix-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "beaconfix", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        /// Radio maps of any size from the propagation simulator, shared by the benchmarks and the profiler.
        .target(
            name: "SyntheticVenues",
            dependencies: [
                .product(name: "Positioning", package: "beaconfix"), .product(name: "ScanFormats", package: "beaconfix"),
                .product(name: "VenueSimulator", package: "beaconfix"), .product(name: "PositioningTuning", package: "beaconfix"),
            ]
        ),
        /// `BEACONFIX_BENCHMARK_SMOKE=1`: every benchmark runs a couple of iterations (CI's smoke run).
        /// Swift 5 mode: it edits the benchmark package's registry, `Benchmark.benchmarks`, a global that is
        /// only touched while a target registers its benchmarks, before any run.
        .target(
            name: "BenchmarkSmoke", dependencies: [.product(name: "Benchmark", package: "benchmark")],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        /// A plain loop of locates, to run under `valgrind --tool=callgrind` or `perf record`.
        .executableTarget(
            name: "Profile",
            dependencies: [
                "SyntheticVenues", .product(name: "Positioning", package: "beaconfix"), .product(name: "ScanFormats", package: "beaconfix"),
                .product(name: "FingerprintStore", package: "beaconfix"), .product(name: "PositioningTuning", package: "beaconfix"),
            ]
        ),
        /// Writes the `Tuning` benchmark's survey as venue.json and survey.jsonl, for scripts/tune-timing.sh.
        .executableTarget(
            name: "SyntheticSurvey",
            dependencies: ["SyntheticVenues", .product(name: "Positioning", package: "beaconfix"), .product(name: "ScanFormats", package: "beaconfix")]
        ),
        .executableTarget(
            name: "Matcher",
            dependencies: [
                "SyntheticVenues",
                "BenchmarkSmoke", .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Positioning", package: "beaconfix"), .product(name: "ScanFormats", package: "beaconfix"),
            ],
            path: "Benchmarks/Matcher",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Store",
            dependencies: [
                "BenchmarkSmoke", .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Positioning", package: "beaconfix"), .product(name: "ScanFormats", package: "beaconfix"),
                .product(name: "FingerprintStore", package: "beaconfix"), .product(name: "VenueSimulator", package: "beaconfix"),
                .product(name: "PositioningTuning", package: "beaconfix"),
            ],
            path: "Benchmarks/Store",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        /// `SurveyTuner().tune` (PositioningTuning) on a 300-spot, 24,000-line survey: the requirement "tunes in under 60 s on 2 cores".
        .executableTarget(
            name: "Tuning",
            dependencies: [
                "SyntheticVenues",
                "BenchmarkSmoke", .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Positioning", package: "beaconfix"), .product(name: "ScanFormats", package: "beaconfix"),
                .product(name: "PositioningTuning", package: "beaconfix"),
            ],
            path: "Benchmarks/Tuning",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        /// The visitor history: the analytics queries over a week of 5,000 devices, and one second of the
        /// history writer at 5,000 devices a second.
        .executableTarget(
            name: "Analytics",
            dependencies: [
                "BenchmarkSmoke", .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Positioning", package: "beaconfix"), .product(name: "ScanFormats", package: "beaconfix"),
                .product(name: "FingerprintStore", package: "beaconfix"), .product(name: "VenueSimulator", package: "beaconfix"),
            ],
            path: "Benchmarks/Analytics",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
