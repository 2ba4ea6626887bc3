import Configuration
import FingerprintStore
import Hummingbird
import Logging
import Metrics
import Prometheus

/// positiond: the positioning daemon event apps call.
@main
struct App {
    static func main() async throws {
        // Flags win over POSITIOND_* environment variables, which win over the defaults.
        let reader = ConfigReader(providers: [
            CommandLineArgumentsProvider(),
            EnvironmentVariablesProvider().prefixKeys(with: "positiond"),
        ])
        let settings = Settings(reader: reader)

        // Only the executable bootstraps logging and metrics; the libraries just take a Logger.
        LoggingSystem.bootstrap(StreamLogHandler.standardOutput)
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(Observability.metricsFactory(registry: registry))
        var logger = Logger(label: "positiond")
        logger.logLevel = settings.logLevel

        let problems = settings.problems()
        guard problems.isEmpty else {
            logger.critical("invalid settings: \(problems.joined(separator: "; "))")
            throw StartupError(message: problems.joined(separator: "; "))
        }
        // One pool for the file, opened here and passed down.
        let store = try FingerprintStore.open(path: settings.databasePath, logger: logger)
        let app = try await buildApplication(settings: settings, store: store, metrics: registry, logger: logger)
        // SIGTERM/SIGINT start a graceful shutdown: in-flight requests finish, sockets close cleanly.
        try await app.runService()
        logger.info("positiond stopped")
    }
}

/// A reason positiond refuses to start.
struct StartupError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
