import ArgumentParser
import FingerprintStore
import Foundation
import ScanFormats

extension Survey {
    /// `survey analytics`: what the visitor history positiond records says about a venue.
    struct Analytics: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "analytics",
            abstract: "Presence, dwell, funnels and heatmaps from the visitor history positiond records; the recording switch.",
            discussion: """
                positiond records each tracked device's zone visits, a position trace thinned to one point per \
                history.trace.seconds, and its last sighting, under a per-venue pseudonym (never the id the phone \
                sent). Times are ISO 8601 (2026-11-20T09:00:00Z, or a date: its midnight UTC) or Unix seconds. The \
                same answers come from positiond's /v1/venues/VENUE/analytics/... routes (scope admin).
                """,
            subcommands: [Presence.self, Dwell.self, Funnel.self, Heatmap.self, Recording.self])
    }
}

/// `--from` and `--to`, read as ISO 8601 or Unix seconds.
struct PeriodOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Start of the period (included): ISO 8601 or Unix seconds.", valueName: "time"))
    var from: String

    @Option(name: .long, help: ArgumentHelp("End of the period (excluded): ISO 8601 or Unix seconds.", valueName: "time"))
    var to: String

    func validate() throws {
        let (from, to) = try seconds()
        guard from < to else { throw ValidationError("--from must be before --to.") }
    }

    func seconds() throws -> (Double, Double) {
        do {
            return (try TimeParameter.seconds(of: from, name: "--from"), try TimeParameter.seconds(of: to, name: "--to"))
        } catch {
            throw ValidationError("\(error).")
        }
    }
}

enum AnalyticsText {
    /// `seconds` as `1 h 02 min`, `12 min 05 s` or `42 s`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        if total >= 3600 { return String(format: "%d h %02d min", total / 3600, total % 3600 / 60) }
        if total >= 60 { return String(format: "%d min %02d s", total / 60, total % 60) }
        return "\(total) s"
    }

    static func time(_ seconds: Double) -> String {
        Date(timeIntervalSince1970: seconds).ISO8601Format()
    }

    /// Runs a store query, its refusals as one line for the terminal.
    static func run<T>(_ query: () async throws -> T) async throws -> T {
        do {
            return try await query()
        } catch let error as StoreError {
            throw CLIError("\(error)")
        }
    }
}
