package import ArgumentParser
import FingerprintStore
import Foundation
import Logging

/// Where the database is, shared by every subcommand that touches it.
package struct StoreOptions: ParsableArguments {
    package init() {}

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The beaconfix store: a SQLite file, or a cluster's PostgreSQL as postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.",
            valueName: "path-or-url"))
    package var db: String = "beaconfix.sqlite"

    @Flag(name: .long, help: "Log what the store does (debug level, on standard error).")
    var verbose = false

    /// Opens the store. Only commands that create data may create a SQLite file; a PostgreSQL database
    /// must exist (its schema is created or migrated on first use).
    func open(creating: Bool = false) async throws -> FingerprintStore {
        try await Self.open(db, creating: creating, verbose: verbose, option: "--db")
    }

    /// Opens the store at `location`; `option` names the flag in messages.
    static func open(_ location: String, creating: Bool, verbose: Bool, option: String) async throws -> FingerprintStore {
        if !FingerprintStore.isServer(location: location), !creating, !FileManager.default.fileExists(atPath: location) {
            throw CLIError("there is no database at \(location); create one with 'survey venue import VENUE.json' or pass \(option)")
        }
        do {
            return try await FingerprintStore.open(location: location, logger: CLILogging.logger(verbose: verbose))
        } catch let error as StoreError {
            throw CLIError("\(error)")
        }
    }
}

/// `--json` for commands whose output programs read.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print machine-readable JSON instead of text.")
    var json = false
}

/// Bootstraps logging once per process: only executables do this.
enum CLILogging {
    private static let bootstrapped: Void = LoggingSystem.bootstrap(StreamLogHandler.standardError)

    static func logger(verbose: Bool) -> Logger {
        _ = bootstrapped
        var logger = Logger(label: "beaconfix.survey")
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }
}

/// A walking survey's path file and how its placed samples join spots: `record --path` and `upload --path`.
struct WalkOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A walking survey's checkpoints (JSON Lines), which place the log's lines that have no coordinates.", valueName: "file"))
    var path: String?

    @Option(name: .long, help: "With --path: the grid cell, in metres, that gathers placed samples into spots.")
    var cell: Double = 1

    @Option(name: .long, help: "With --path: a placed sample within this many metres of a venue's spot joins that spot.")
    var snap: Double = 0.5

    func validate() throws {
        guard cell.isFinite, cell >= 0.05, cell <= 100 else { throw ValidationError("--cell must be from 0.05 to 100 metres (got \(cell)).") }
        guard snap.isFinite, snap >= 0, snap <= 100 else { throw ValidationError("--snap must be from 0 to 100 metres (got \(snap)).") }
    }
}
