import ArgumentParser
import FingerprintStore
import Positioning

extension Survey.ReplaceBeacon {
    /// `survey replace-beacon accept N`: take a proposal of the beacons' health in one step.
    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept",
            abstract: "Accept a proposed replacement or swap, by its number in 'survey beacons'.",
            discussion: """
                A replacement hands the silent beacon's survey entries to the new id, shifted by the offset \
                positiond measured on live scans against the other beacons (as --calibration measures it on a \
                walk); a swap exchanges the two ids in the survey. Audited with the other replacements ('list'), \
                undone by 'undo'. One transaction; --dry-run writes nothing. The venue is then re-tuned unless \
                --no-tune.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var change: BeaconChangeOptions
        @OptionGroup var target: ProposalOptions

        func run() async throws {
            let fingerprintStore = try await store.open()
            let (venue, id) = (target.venue, target.id)
            let (proposal, report) = try await fingerprintStore.acceptBeaconProposal(
                venue: venue, id: id, operator: target.operator, scale: PositioningConfiguration.defaultScale,
                dryRun: change.dryRun)
            if output.json {
                try Output.json(AcceptOutput(proposal: proposal, replacement: report))
            } else {
                print("\(change.dryRun ? "Would accept" : "Accepted") proposal \(id) (\(proposal.proposal.kind.rawValue)).")
                print(Survey.ReplaceBeacon.summary(report))
            }
            try await Survey.ReplaceBeacon.retune(venue, in: fingerprintStore, after: change, json: output.json)
        }
    }

}

/// Which proposal `accept` and `dismiss` decide, and who decides it (for the audit trail).
struct ProposalOptions: ParsableArguments {
    @Option(name: .long, help: "The venue.")
    var venue: String

    @Option(name: .long, help: "Who decides it, for the audit trail.")
    var `operator`: String?

    @Argument(help: ArgumentHelp("The proposal's number, as 'survey beacons' shows it.", valueName: "N"))
    var id: Int64

    func validate() throws {
        try Survey.ReplaceBeacon.validate(venue: venue)
        guard id >= 1 else { throw ValidationError("N must be a proposal number (1 or more), as 'survey beacons' shows them; got \(id).") }
    }
}

/// `replace-beacon accept --json`.
struct AcceptOutput: Encodable {
    var proposal: StoredProposal
    var replacement: BeaconReplacement
}
