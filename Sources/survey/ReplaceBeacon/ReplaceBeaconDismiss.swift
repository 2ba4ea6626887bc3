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
        @OptionGroup var target: ProposalOptions

        func run() async throws {
            let fingerprintStore = try await store.open()
            let id = target.id
            let proposal = try await fingerprintStore.dismissBeaconProposal(
                venue: target.venue, id: id, operator: target.operator)
            if output.json { return try Output.json(proposal) }
            print("Dismissed proposal \(id): \(proposal.proposal.kind.rawValue) \(proposal.proposal.old) -> \(proposal.proposal.new).")
        }
    }
}
