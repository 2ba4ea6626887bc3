import FingerprintStore
import Foundation
import Hummingbird
import OpenAPIHummingbird
import OpenAPIRuntime
import Prometheus
import VenueServices

/// positiond's HTTP API: the server protocol generated from openapi.yaml, implemented by the controllers
/// (`Controllers/`, one extension each), on the application's Hummingbird router.
struct PositiondAPI: APIProtocol {
    let store: FingerprintStore
    let catalog: VenueCatalog
    let devices: DeviceRegistry
    let hub: LiveHub
    let parser: SampleParser
    let metricsRegistry: PrometheusCollectorRegistry
    let document: APIDocument
    let tickets: LiveTickets
    let web: WebAssets
    /// The visitor history's collector on the request path; nil when `history.enabled` is off.
    let history: HistoryRecorder?
    /// Tunes a venue again after a survey session is committed.
    let retuner: VenueRetuner
    /// Dwell's default minimum visit, seconds (`analytics.min.visit.seconds`).
    let minimumVisit: Double
    /// Gathers located scans as evidence of the beacons' health; nil when `health.enabled` is off.
    let beaconHealth: BeaconHealthCollector?
    let locateOutcomes = Observability.LocateOutcomes(route: "locate")
    let samplesOutcomes = Observability.LocateOutcomes(route: "samples")

    /// How the generated server writes JSON: compact, with sorted keys and ISO 8601 dates (the API's
    /// conventions, and the bytes the hand-written fast routes produce).
    static let configuration = Configuration(jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])

    /// Registers every generated operation on `router`, behind `authentication` for the /v1 routes.
    ///
    /// The generated server sees neither the Hummingbird context nor the body limit, so the group adds
    /// them: ``BodyLimitMiddleware`` refuses oversized bodies before the generated decoder buffers them,
    /// ``RequestScopeMiddleware`` hands the authenticated context to the handlers, and
    /// ``GeneratedServerErrorMiddleware`` turns the generated server's errors into the API's.
    func register(on router: Router<AppRequestContext>, authentication: AuthenticationMiddleware) throws {
        let group = router.group()
            .add(middleware: PathScopedMiddleware(prefix: "/v1/", middleware: authentication))
            .add(middleware: BodyLimitMiddleware(maximumBytes: parser.settings.maximumBodyBytes))
            .add(middleware: RequestScopeMiddleware())
            .add(middleware: GeneratedServerErrorMiddleware())
        try registerHandlers(on: group, configuration: Self.configuration)
        // The hot routes need none of that: they take the context and enforce the body limit themselves.
        registerHotRoutes(on: router.group("v1/venues").add(middleware: authentication))
        registerWebFiles(on: router)
    }
}

/// Runs `middleware` only on requests whose path starts with `prefix`: the generated server registers
/// every route on one transport, and only /v1 needs an API key.
struct PathScopedMiddleware<Wrapped: RouterMiddleware<AppRequestContext>>: RouterMiddleware {
    typealias Context = AppRequestContext
    let prefix: String
    let middleware: Wrapped

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix(prefix) else { return try await next(request, context) }
        return try await middleware.handle(request, context: context, next: next)
    }
}
