package import FingerprintStore
package import Hummingbird
import HummingbirdWebSocket
package import Logging
import Positioning
package import Prometheus
import VenueServices

/// Builds the whole daemon: main and every test call this, so tests exercise the real wiring.
///
/// - Parameters:
///   - settings: read from flags and environment by `main`, or made up by a test.
///   - store: the deployment's database, opened once by the caller.
///   - metrics: the registry `/metrics` emits (the caller bootstraps swift-metrics with it).
/// - Throws: when there is no API key and the address is not loopback (the daemon would be open to
///   anyone), or when a venue's radio map cannot be built.
package func buildApplication(
    settings: Settings, store: FingerprintStore, metrics: PrometheusCollectorRegistry, logger: Logger
) async throws -> some ApplicationProtocol {
    let keys = try await KeyCache(store: store)
    if !keys.current.authenticationRequired {
        guard settings.isLoopback else {
            throw StartupError(message: "there is no API key in \(store.path), so positiond may only listen on loopback, not \(settings.host); create a key with 'survey key create --name NAME --scope admin' or use --host 127.0.0.1")
        }
        logger.warning("no API key in the database: serving WITHOUT authentication, on loopback only (\(settings.host):\(settings.port))")
    }

    let catalog = VenueCatalog()
    try await catalog.loadAll(from: store, logger: logger)
    // Replicas sharing a PostgreSQL store relay their devices' live messages to each other; a daemon on
    // a SQLite file is alone.
    let relay = store.isShared ? LiveRelay(remoteMemory: settings.deviceIdleTimeout) : nil
    let hub = LiveHub(
        bufferSize: settings.liveBuffer, maximumTotal: settings.maximumLiveSubscribers,
        maximumPerOwner: settings.maximumLiveSubscribersPerKey, relay: relay)
    let devices = DeviceRegistry(
        capacity: settings.maximumDevices, idleTimeout: settings.deviceIdleTimeout)
    let parser = SampleParser(settings: settings)
    let history = settings.historyEnabled
        ? HistoryRecorder(traceInterval: settings.historyTraceInterval, idleTimeout: settings.deviceIdleTimeout) : nil
    let flushSeconds = Double(settings.healthFlushInterval.components.seconds) + Double(settings.healthFlushInterval.components.attoseconds) / 1e18
    let beaconHealth = settings.healthEnabled
        ? BeaconHealthCollector(perBeat: max(1, Int((Double(settings.healthSamplesPerSecond) * flushSeconds).rounded(.up))), limit: settings.healthPendingLimit)
        : nil

    let router = Router(context: AppRequestContext.self)
    router.middlewares.add(SecurityHeadersMiddleware())
    router.middlewares.add(RequestIDMiddleware())
    router.middlewares.add(MetricsMiddleware())
    router.middlewares.add(AccessLogMiddleware(.info))
    let tickets = LiveTickets(lifetime: settings.liveTicketLifetime)
    let authentication = AuthenticationMiddleware(keys: keys, tickets: tickets)
    let api = PositiondAPI(
        store: store, catalog: catalog, devices: devices, hub: hub, parser: parser, metricsRegistry: metrics,
        document: try APIDocument(), tickets: tickets, web: WebAssets(leafletDirectory: settings.leafletDirectory, logger: logger),
        history: history, retuner: VenueRetuner(tuner: VenueTuner(store: store), logger: logger),
        minimumVisit: settings.minimumVisit, beaconHealth: beaconHealth)
    try api.register(on: router, authentication: authentication)
    LiveController(catalog: catalog, hub: hub).register(on: router.group("v1/venues").add(middleware: authentication))

    let watcher = RevisionWatcher(
        store: store, catalog: catalog, keys: keys, devices: devices, hub: hub,
        interval: settings.revisionPollInterval, flushInterval: settings.liveRelayFlushInterval, logger: logger)
    var app = Application(
        router: router,
        server: .http1WebSocketUpgrade(webSocketRouter: router),
        configuration: ApplicationConfiguration(address: .hostname(settings.host, port: settings.port), serverName: "positiond"),
        logger: logger)
    app.addServices(watcher)
    if let beaconHealth {
        app.addServices(BeaconHealthService(
            store: store, catalog: catalog, collector: beaconHealth, hub: hub, interval: settings.healthFlushInterval, logger: logger))
    }
    if let history {
        app.addServices(HistoryWriter(
            store: store, recorder: history, flushInterval: settings.historyFlushInterval, retention: settings.historyRetention, logger: logger))
    }
    return app
}
