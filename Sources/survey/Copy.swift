import ArgumentParser
import FingerprintStore
import Foundation

extension Survey {
    /// `survey copy --from A --to B`: venues between any two stores, SQLite or PostgreSQL.
    struct Copy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy venues between two stores (SQLite files or PostgreSQL URLs), in one transaction on the target.",
            discussion: """
                Copies each venue's definition (retired beacons included), floor plans, zone polygons, every \
                fingerprint exactly, and its tuning. The target is written in one transaction: on any error \
                nothing is written. A venue that already has fingerprints in the target is refused (a copy adds). \
                API keys are not copied: create the cluster's keys with 'survey key create --db postgres://...'.

                  survey copy --from beaconfix.sqlite --to postgres://beaconfix@db.internal/beaconfix --venue demo-hall
                """)

        @Option(name: .long, help: ArgumentHelp("The store to copy from: a SQLite file or a postgres:// URL.", valueName: "path-or-url"))
        var from: String

        @Option(name: .long, help: ArgumentHelp("The store to copy into (a SQLite file is created if needed).", valueName: "path-or-url"))
        var to: String

        @Option(name: .long, help: "A venue to copy (repeat for several); every venue of the source when omitted.")
        var venue: [String] = []

        @Flag(name: .long, help: "Log what the stores do (debug level, on standard error).")
        var verbose = false

        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard !from.isEmpty, !to.isEmpty else { throw ValidationError("Give both --from and --to.") }
            guard from != to else { throw ValidationError("--from and --to name the same store.") }
            if let empty = venue.first(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                throw ValidationError("'\(empty)' is not a venue id.")
            }
        }

        func run() async throws {
            let source = try await StoreOptions.open(from, creating: false, verbose: verbose, option: "--from")
            let target = try await StoreOptions.open(to, creating: true, verbose: verbose, option: "--to")
            let summaries: [VenueCopySummary]
            do {
                summaries = try await target.copyVenues(venue.isEmpty ? nil : venue, from: source)
            } catch let error as StoreError {
                throw CLIError("\(error); nothing was written to \(target.path)")
            }
            if output.json { return try Output.json(summaries) }
            if summaries.isEmpty { print("\(source.path) holds no venue; nothing was copied.") }
            for summary in summaries {
                print("Copied venue '\(summary.venue)' to \(target.path) (revision \(summary.revision)): \(summary.fingerprints) fingerprints, \(summary.entries) entries, \(summary.floorPlans) floor plans\(summary.tuned ? ", its tuning" : "").")
            }
        }
    }
}
