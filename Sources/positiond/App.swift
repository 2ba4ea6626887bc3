import Configuration
import FingerprintStore
import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import Prometheus

/// positiond: the positioning daemon event apps call.
@main
struct App {
    static func main() async {
        do {
            try await run()
        } catch {
            // One line saying what to do, exit status 1: never a trap and a register dump.
            FileHandle.standardError.write(Data("positiond: \(StartupError.explain(error))\n".utf8))
            exit(1)
        }
    }

    static func run() async throws {
        if CommandLine.arguments.contains("--help") || CommandLine.arguments.contains("-h") {
            print(Settings.help)
            return
        }
        let unknown = Settings.unknownFlags(in: CommandLine.arguments)
        guard unknown.isEmpty else {
            throw StartupError(message: "unknown option\(unknown.count == 1 ? "" : "s") \(unknown.joined(separator: ", ")); 'positiond --help' lists the settings")
        }
        // Flags win over POSITIOND_* environment variables, which win over the defaults.
        let reader = ConfigReader(providers: [
            CommandLineArgumentsProvider(),
            EnvironmentVariablesProvider().prefixKeys(with: "positiond"),
        ])
        let settings = Settings(reader: reader)
        let problems = settings.problems()
        guard problems.isEmpty else {
            throw StartupError(message: "invalid settings: \(problems.joined(separator: "; ")) (positiond --help lists them)")
        }

        // Only the executable bootstraps logging and metrics; the libraries just take a Logger.
        LoggingSystem.bootstrap(StreamLogHandler.standardOutput)
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(Observability.metricsFactory(registry: registry))
        var logger = Logger(label: "positiond")
        logger.logLevel = settings.logLevel

        // One pool for the store, opened here and passed down: a file read-only when its schema is current
        // (the daemon only reads) and never created empty, or a PostgreSQL database the replicas share.
        let store: FingerprintStore
        do {
            store = try await FingerprintStore.open(location: settings.databasePath, role: .daemon, logger: logger)
        } catch let error as StoreError {
            // The store's errors name a PostgreSQL store without its password; the setting itself is never echoed.
            throw StartupError(message: "\(error)" + (error == .missingDatabase(path: settings.databasePath) ? ", or point --db (POSITIOND_DB) at an existing one" : ""))
        } catch {
            let shown = FingerprintStore.isServer(location: settings.databasePath) ? "the PostgreSQL store of --db (POSITIOND_DB)" : "the database '\(settings.databasePath)'"
            throw StartupError(message: "cannot open \(shown): \(error); is it a beaconfix database this user may read?")
        }
        let app = try await buildApplication(settings: settings, store: store, metrics: registry, logger: logger)
        // SIGTERM/SIGINT start a graceful shutdown: in-flight requests finish, sockets close cleanly; then
        // the store's connections close (PostgreSQL's pool shuts down as a service).
        do {
            try await app.runService()
        } catch let error as IOError {
            await store.close()
            throw StartupError.listening(error, host: settings.host, port: settings.port)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        logger.info("positiond stopped")
    }
}

/// A reason positiond refuses to start, as one sentence saying what to do.
package struct StartupError: Error, CustomStringConvertible {
    var message: String
    package var description: String { message }

    /// A failure to listen on `host:port`, in words.
    static func listening(_ error: IOError, host: String, port: Int) -> StartupError {
        let reason = switch error.errnoCode {
        case EADDRINUSE: "the port is already in use (another positiond?); stop that process or choose another port with --port (POSITIOND_PORT)"
        case EACCES: "this user may not listen on that port; choose a port above 1023 with --port"
        case EADDRNOTAVAIL: "that is not an address of this machine; use --host 127.0.0.1 or one of its addresses"
        default: "\(error)"
        }
        return StartupError(message: "cannot listen on \(host):\(port): \(reason)")
    }

    /// `error` as one line: a ``StartupError``'s message, or the error's own description.
    static func explain(_ error: any Error) -> String {
        if let startup = error as? StartupError { return startup.message }
        return "could not start: \(error)"
    }
}
