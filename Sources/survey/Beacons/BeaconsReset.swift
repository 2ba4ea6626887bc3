import ArgumentParser
import FingerprintStore
import Foundation

extension Survey.Beacons {
    /// `survey beacons reset BEACON`: forget what was concluded of a beacon.
    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset",
            abstract: "Reverse what positiond concluded of a beacon: its state and evidence start afresh.",
            discussion: """
                For a beacon found silent or shifted that ops know to be fine (a state that was wrong, or a beacon \
                fixed): matching stops acting on the former state on every replica within a second, its proposals \
                are withdrawn, and the history records the reset. Evidence is then gathered anew.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: "The venue.")
        var venue: String

        @Option(name: .long, help: "Who resets it, for the history.")
        var `operator`: String?

        @Argument(help: ArgumentHelp("The beacon: its label in the venue, or UUID:major:minor.", valueName: "BEACON"))
        var beacon: String

        func validate() throws { try Survey.Beacons.validate(venue: venue) }

        func run() async throws {
            let fingerprintStore = try await store.open()
            let id = try await Survey.Beacons.beacon(beacon, in: venue, store: fingerprintStore)
            let change = try await fingerprintStore.resetBeaconHealth(venue: venue, beacon: id, operator: `operator`)
            if output.json { return try Output.json(change) }
            print("Reset \(beacon): \(change.from.rawValue) -> \(change.to.rawValue); its evidence is gathered afresh.")
        }
    }
}
