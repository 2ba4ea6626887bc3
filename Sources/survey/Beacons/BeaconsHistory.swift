import ArgumentParser
import FingerprintStore
import Foundation

extension Survey.Beacons {
    /// `survey beacons history`: the state changes, newest first.
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "List the venue's beacon state changes, newest first, with their evidence and who made them.")

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: "The venue.")
        var venue: String

        @Option(name: .long, help: "At most this many changes.")
        var limit = 100

        func validate() throws {
            try Survey.Beacons.validate(venue: venue)
            guard limit >= 1 else { throw ValidationError("--limit must be at least 1 (got \(limit)).") }
        }

        func run() async throws {
            let fingerprintStore = try await store.open()
            let changes = try await fingerprintStore.beaconHealthHistory(of: venue, limit: limit)
            if output.json { return try Output.json(changes) }
            let labels = try await Survey.Beacons.labels(of: venue, in: fingerprintStore)
            if changes.isEmpty { print("Venue '\(venue)': no beacon state change recorded.") }
            for change in changes {
                print("\(ISO8601DateFormatter().string(from: change.at))  \(Survey.Beacons.name(change.beacon, labels: labels)): \(change.from.rawValue) -> \(change.to.rawValue)"
                    + (change.actor.map { " by \($0)" } ?? "") + ": \(change.reason)")
            }
        }
    }
}
