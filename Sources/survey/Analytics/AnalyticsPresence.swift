import ArgumentParser
import FingerprintStore
import Foundation

extension Survey.Analytics {
    struct Presence: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Devices present now per zone: seen within the last --window seconds.")

        @OptionGroup var store: StoreOptions
        @Option(name: .long, help: "The venue.") var venue: String
        @Option(name: .long, help: "Seconds: a device seen at most this long ago is present.") var window: Double = 300
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard window > 0, window <= 86_400 else { throw ValidationError("--window must be more than 0 and at most 86400 seconds.") }
        }

        func run() async throws {
            let report = try await AnalyticsText.run { try await store.open().presence(of: venue, window: window) }
            if output.json { return try Output.json(report) }
            print("Venue '\(report.venue)': \(report.total) device\(report.total == 1 ? "" : "s") present (seen in the last \(AnalyticsText.duration(report.window)), at \(AnalyticsText.time(report.at))).")
            for zone in report.zones { print("  \(zone.zone.padding(toLength: 24, withPad: " ", startingAt: 0)) \(zone.devices)") }
            if report.outside > 0 { print("  \("(outside every zone)".padding(toLength: 24, withPad: " ", startingAt: 0)) \(report.outside)") }
        }
    }
}
