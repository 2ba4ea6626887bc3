import ScanFormats
import FingerprintStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Metrics
import NIOCore
import Positioning
import PositioningTuning
import positiond
import Prometheus
import Testing
import TestSupport

/// Process-wide test set-up: swift-metrics can be bootstrapped once per process, as an executable would.
enum TestEnvironment {
    static let metrics: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(Observability.metricsFactory(registry: registry))
        return registry
    }()

    static let logger: Logger = {
        var logger = Logger(label: "positiond-test")
        logger.logLevel = .warning
        return logger
    }()

    /// venues/demo-hall's files.
    static func demoFile(_ name: String) throws -> Data {
        try DemoVenue.file(name)
    }

    static var walk: [ScanLine] {
        get throws { ScanLogDecoder().decode(try demoFile("walk.jsonl")).lines.map(\.line) }
    }

    /// A fresh database file holding demo-hall, imported, recorded and tuned as `make run` does.
    static func demoStore() async throws -> FingerprintStore {
        let store = try await untunedDemoStore()
        try await store.saveTuning(try await demoTuning.value, of: "demo-hall", surveyRevision: try store.venue("demo-hall").revision, seconds: 0)
        return store
    }

    /// demo-hall imported and recorded, not tuned (a venue on the default configuration); `adjust` may
    /// change its definition before the import (a geo anchor, none).
    static func untunedDemoStore(_ adjust: (inout VenueDefinition) -> Void = { _ in }) async throws -> FingerprintStore {
        try await DemoVenue.store(logger: logger, adjust)
    }

    /// What `survey tune` chooses for demo-hall: computed once per test process, stored in every demo store.
    /// At high priority: tests waiting for it are suspended, not blocked, and the others running meanwhile
    /// must not starve it.
    static let demoTuning = Task<TuningResult, any Error>(priority: .high) {
        let survey = try await untunedDemoStore().survey(of: "demo-hall", scale: PositioningConfiguration.defaultScale)
        let validation = SurveyCrossValidation(spots: survey.spots, survey: survey.surveyed, scale: PositioningConfiguration.defaultScale)
        guard let result = try SurveyTuner().tune(validation) else { throw TuningFailed() }
        return result
    }

    struct TuningFailed: Error {}

    /// Settings for tests: fast revision polling, small limits that tests can reach.
    static func settings(_ adjust: (inout Settings) -> Void = { _ in }) -> Settings {
        var settings = Settings()
        settings.port = 0
        settings.revisionPollInterval = .milliseconds(100)
        settings.maximumBodyBytes = 64 * 1024
        settings.maximumSamples = 20
        settings.maximumReadings = 50
        // The beacons' gauges are process-wide and tests run in parallel: only the suite about the beacons'
        // health judges them, one test at a time.
        settings.healthEnabled = false
        adjust(&settings)
        return settings
    }

    static func app(store: FingerprintStore, settings: Settings = settings()) async throws -> some ApplicationProtocol {
        try await buildApplication(settings: settings, store: store, metrics: metrics, logger: logger)
    }

    /// `{"samples": [...]}` of scan-log lines.
    static func body(_ lines: [ScanLine]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try! encoder.encode(["samples": lines]), as: UTF8.self)
    }
}

extension TestClientProtocol {
    /// Executes a request and checks the response against openapi.yaml, by decoding its body into the
    /// generated type the document names (``Contract``): every response of the suite goes through here.
    func call(
        _ method: HTTPRequest.Method, _ uri: String, body: String? = nil, token: String? = nil, headers: HTTPFields = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> TestResponse {
        var headers = headers
        if let token { headers[.authorization] = "Bearer \(token)" }
        if body != nil { headers[.contentType] = "application/json" }
        let response = try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        let problems = try Contract.shared.get().problems(
            method: method.rawValue, path: uri, status: Int(response.status.code), contentType: response.headers[.contentType],
            body: Data(buffer: response.body))
        #expect(problems.isEmpty, "\(method) \(uri) → \(response.status.code) does not match openapi.yaml: \(problems)", sourceLocation: sourceLocation)
        return response
    }
}

extension TestResponse {
    /// The body as JSON.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }

    var text: String { String(buffer: body) }

    /// The message of an error body.
    var errorMessage: String { ((json["error"] as? [String: Any])?["message"] as? String) ?? "" }
}
