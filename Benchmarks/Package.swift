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
        .executableTarget(
            name: "Matcher",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Positioning", package: "beaconfix"),
            ],
            path: "Benchmarks/Matcher",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
