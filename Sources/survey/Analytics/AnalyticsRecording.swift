import ArgumentParser
import FingerprintStore
import Foundation

extension Survey.Analytics {
    struct Recording: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show, or switch on or off, the recording of a venue's visitor history.",
            discussion: "Every running positiond picks the change up within a second. What is stored stays until retention removes it.")

        enum Switch: String, ExpressibleByArgument, CaseIterable {
            case on, off
        }

        @OptionGroup var store: StoreOptions
        @Option(name: .long, help: "The venue.") var venue: String
        @Argument(help: "on or off; omit to show the setting.") var state: Switch?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let result = try await AnalyticsText.run {
                let opened = try await store.open()
                if let state { return try await opened.setHistoryRecording(of: venue, to: state == .on) }
                return try await opened.historyRecording(of: venue)
            }
            if output.json { return try Output.json(result) }
            print("Venue '\(result.venue)': visitor history \(result.recording ? "recorded" : "not recorded").")
        }
    }
}
