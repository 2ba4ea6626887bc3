import ArgumentParser
import FingerprintStore
import Foundation

extension Survey.Beacons {
    /// `survey beacons hold BEACON`: matching leaves a beacon as surveyed whatever its state.
    struct Hold: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hold",
            abstract: "Suspend matching's tolerance for a beacon: its state is still judged and shown, but not acted on.",
            discussion: "'survey beacons release' resumes it. Recorded in the history.")

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: "The venue.")
        var venue: String

        @Option(name: .long, help: "Who holds it, for the history.")
        var `operator`: String?

        @Argument(help: ArgumentHelp("The beacon: its label in the venue, or UUID:major:minor.", valueName: "BEACON"))
        var beacon: String

        func validate() throws { try Survey.Beacons.validate(venue: venue) }

        func run() async throws {
            try await Survey.Beacons.setHeld(true, beacon: beacon, venue: venue, operator: `operator`, store: store, json: output.json)
        }
    }

    static func setHeld(_ held: Bool, beacon: String, venue: String, operator: String?, store: StoreOptions, json: Bool) async throws {
        let fingerprintStore = try await store.open()
        let id = try await Survey.Beacons.beacon(beacon, in: venue, store: fingerprintStore)
        let change = try await fingerprintStore.holdBeacon(venue: venue, beacon: id, held: held, operator: `operator`)
        if json { return try Output.json(change) }
        print(held ? "Held \(beacon): matching leaves it as surveyed (state \(change.to.rawValue))." : "Released \(beacon): matching acts on its state (\(change.to.rawValue)) again.")
    }
}
