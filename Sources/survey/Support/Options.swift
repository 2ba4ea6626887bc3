import ArgumentParser
import FingerprintStore
import Foundation
import Logging

/// Where the database is, shared by every subcommand that touches it.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The beaconfix database file.", valueName: "path"))
    var db: String = "beaconfix.sqlite"

    @Flag(name: .long, help: "Log what the store does (debug level, on standard error).")
    var verbose = false

    /// Opens the database. Only commands that create data may create the file.
    func open(creating: Bool = false) throws -> FingerprintStore {
        if !creating, !FileManager.default.fileExists(atPath: db) {
            throw CLIError("there is no database at \(db); create one with 'survey venue import VENUE.json' or pass --db")
        }
        return try FingerprintStore.open(path: db, logger: CLILogging.logger(verbose: verbose))
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
