// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every target, so the whole package follows one language mode.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "beaconfix",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Positioning", targets: ["Positioning"]),
        .library(name: "ScanFormats", targets: ["ScanFormats"]),
        .library(name: "PositioningTuning", targets: ["PositioningTuning"]),
        .library(name: "VenueSimulator", targets: ["VenueSimulator"]),
        .library(name: "FingerprintStore", targets: ["FingerprintStore"]),
        .library(name: "VenueServices", targets: ["VenueServices"]),
        .executable(name: "positiond", targets: ["positiond"]),
        .executable(name: "survey", targets: ["survey"]),
        // positiond's client for apps and scanner rigs, generated from the same openapi.yaml.
        .library(name: "BeaconfixClient", targets: ["BeaconfixClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The store's second engine, for a cluster of positiond replicas on one PostgreSQL.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["ConfigurationSupport"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: [.defaults, "CommandLineArguments"]),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The HTTP contract, spec-first: Sources/positiond/openapi.yaml generates positiond's types and server
        // protocol at build time, served on the Hummingbird router.
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        // The client library's transport.
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        // Reads openapi.yaml once at start-up to serve it as /openapi.json.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // Property-based tests: the fast parser is fuzzed against JSONDecoder.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        /// Netlib/OpenBLAS CBLAS interface (Debian: libblas-dev ships cblas.h and the cblas_* symbols).
        .systemLibrary(
            name: "CBLAS",
            pkgConfig: "blas",
            providers: [.apt(["libblas-dev"])]
        ),
        /// The prefetch hint the matcher's kernels give the CPU (Swift has no intrinsic for it).
        .target(name: "MatcherHints"),
        /// The dB-offset metric's column loop compiled for AVX2, chosen at run time where the CPU has it.
        .target(name: "MatcherKernels", dependencies: ["MatcherHints"]),
        .target(
            name: "Positioning",
            dependencies: ["CBLAS", "MatcherHints", "MatcherKernels"],
            swiftSettings: swiftSettings
        ),
        // Offline work on the model: choosing a venue's configuration by cross-validation on its survey,
        // and evaluating answers against ground truth (with the k-NN baseline). positiond links it to re-tune
        // after survey sessions; nothing on the locate path calls it.
        .target(
            name: "PositioningTuning",
            dependencies: ["Positioning"],
            swiftSettings: swiftSettings
        ),
        // The wire and file formats (scan logs, venue definitions, the fast parser, the streaming decoder,
        // a log read as labelled samples with the next piece decoded in the background) and the threads
        // they bring: Positioning stays pure maths, the store persistence.
        .target(
            name: "ScanFormats",
            // A survey log's lines are labelled samples, the tuner's and the evaluation's input.
            dependencies: ["Positioning", "PositioningTuning"],
            swiftSettings: swiftSettings
        ),
        // The propagation simulator (venues, surveys, walks, visitors, floor plans): an offline tool for the
        // tests, the benchmarks and `survey simulate`; positiond does not link it.
        .target(
            name: "VenueSimulator",
            dependencies: ["Positioning", "ScanFormats"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FingerprintStore",
            dependencies: [
                "Positioning",
                // A venue's stored tuning is the tuner's result.
                "PositioningTuning",
                "ScanFormats",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's own API, for binding the bulk inserts of `survey record` without boxing each value.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // PostgreSQL's pool runs as a ServiceLifecycle service, shut down gracefully when the store closes.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The application's services over the store, shared by survey and positiond: tuning (one orchestrator,
        // and the daemon's coalescing re-tuner).
        .target(
            name: "VenueServices",
            dependencies: [
                "FingerprintStore",
                "Positioning",
                "PositioningTuning",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "positiond",
            dependencies: [
                "FingerprintStore",
                "VenueServices",
                "Positioning",
                "ScanFormats",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "Yams", package: "Yams"),
            ],
            // The web pages' own HTML, scripts and styles, served as they are (no build step).
            resources: [.copy("Web")],
            swiftSettings: swiftSettings,
            plugins: [
                .plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator"),
                .plugin(name: "EmbedOpenAPIDocument"),
            ]
        ),
        .executableTarget(
            name: "survey",
            dependencies: [
                "FingerprintStore",
                "VenueServices",
                "Positioning",
                "PositioningTuning",
                "ScanFormats",
                // survey simulate.
                "VenueSimulator",
                // survey upload sends a log to a remote positiond through the generated client.
                "BeaconfixClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The generated client of positiond (types and client of openapi.yaml, linked from positiond's folder).
        .target(
            name: "BeaconfixClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // Compiles positiond's openapi.yaml into it, so the binary serves the document it was generated from.
        .plugin(name: "EmbedOpenAPIDocument", capability: .buildTool(), dependencies: ["EmbedText"]),
        .executableTarget(name: "EmbedText", path: "Plugins/EmbedText"),
        // What the test targets share: scratch folders removed when the test process exits, the survey
        // executable run as a user runs it, and `eventually` (polling, never a fixed sleep, before an assertion).
        // And the fixtures: beacons, samples, fingerprints, the shared datasets (read by ScanFormats), and the
        // demo venue in a fresh store.
        .target(
            name: "TestSupport",
            dependencies: [
                "Positioning", "PositioningTuning", "ScanFormats", "FingerprintStore",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PositioningTests",
            dependencies: ["Positioning", "PositioningTuning", "ScanFormats", "VenueSimulator", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        // The tuner, the evaluation and the k-NN baseline, and the accuracy measured with them on the shared datasets.
        .testTarget(
            name: "PositioningTuningTests",
            dependencies: ["Positioning", "PositioningTuning", "ScanFormats", "VenueSimulator", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ScanFormatsTests",
            dependencies: ["ScanFormats", "VenueSimulator", "Positioning", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FingerprintStoreTests",
            dependencies: ["FingerprintStore", "Positioning", "PositioningTuning", "ScanFormats", "VenueSimulator", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SurveyTests",
            dependencies: [
                "survey", "FingerprintStore", "Positioning", "PositioningTuning", "ScanFormats", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "VenueServicesTests",
            dependencies: ["VenueServices", "FingerprintStore", "Positioning", "PositioningTuning", "ScanFormats", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PositiondTests",
            dependencies: [
                "positiond", "FingerprintStore", "Positioning", "PositioningTuning", "ScanFormats", "VenueSimulator",
                "TestSupport", "BeaconfixClient",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
