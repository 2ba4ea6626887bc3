import ArgumentParser
import FingerprintStore

extension Survey.Beacons {
    /// `survey beacons release BEACON`: matching acts on a beacon's state again.
    struct Release: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "release",
            abstract: "Resume matching's tolerance for a beacon 'survey beacons hold' suspended.")

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: "The venue.")
        var venue: String

        @Option(name: .long, help: "Who releases it, for the history.")
        var `operator`: String?

        @Argument(help: ArgumentHelp("The beacon: its label in the venue, or UUID:major:minor.", valueName: "BEACON"))
        var beacon: String

        func validate() throws { try Survey.Beacons.validate(venue: venue) }

        func run() async throws {
            try await Survey.Beacons.setHeld(false, beacon: beacon, venue: venue, operator: `operator`, store: store, json: output.json)
        }
    }
}
