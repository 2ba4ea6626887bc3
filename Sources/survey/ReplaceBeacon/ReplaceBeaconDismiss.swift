import ArgumentParser
import FingerprintStore

extension Survey.ReplaceBeacon {
    /// `survey replace-beacon dismiss N`: reject a proposal.
    struct Dismiss: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dismiss",
            abstract: "Dismiss a proposed replacement or swap that is wrong: it is not proposed again until one of its beacons is reset.")

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: "The venue.")
        var venue: String

        @Option(name: .long, help: "Who dismisses it, for the record.")
        var `operator`: String?

        @Argument(help: ArgumentHelp("The proposal's number, as 'survey beacons' shows it.", valueName: "N"))
        var id: Int64

        func validate() throws {
            try Survey.ReplaceBeacon.validate(venue: venue)
            try Survey.ReplaceBeacon.validate(proposal: id)
        }

        func run() async throws {
            let fingerprintStore = try await store.open()
            let proposal = try await fingerprintStore.dismissBeaconProposal(venue: venue, id: id, operator: `operator`)
            if output.json { return try Output.json(proposal) }
            print("Dismissed proposal \(id): \(proposal.proposal.kind.rawValue) \(proposal.proposal.old) -> \(proposal.proposal.new).")
        }
    }
}
