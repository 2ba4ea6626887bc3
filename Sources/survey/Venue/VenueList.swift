import ArgumentParser
import FingerprintStore

extension Survey.Venue {
    /// `survey venue list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the venues of the database.")

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let venues = try await store.open().venues()
            if output.json { return try Output.json(venues) }
            guard !venues.isEmpty else { return print("No venue yet: import one with 'survey venue import venue.json'.") }
            print("venue                revision  floors  beacons  spots  fingerprints  name")
            for venue in venues {
                print(
                    venue.id.padding(toLength: 20, withPad: " ", startingAt: 0),
                    String(venue.revision).leftPadded(8), String(venue.floors).leftPadded(7),
                    String(venue.activeBeacons).leftPadded(8), String(venue.spots).leftPadded(6),
                    String(venue.fingerprints).leftPadded(13), "", venue.name)
            }
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
