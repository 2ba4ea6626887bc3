import ArgumentParser
import FingerprintStore
import Positioning

extension Survey.ReplaceBeacon {
    /// `survey replace-beacon remove --old X`: retire a beacon with no successor.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Retire a beacon with no successor, so live scans are no longer penalised for not hearing it.",
            discussion: """
                The beacon is kept, marked retired and left out of matching, with an audit row. One transaction; \
                --dry-run writes nothing. A running positiond picks the change up within seconds (the venue \
                revision increases). The venue is then re-tuned ('survey tune') unless --no-tune; 'survey \
                replace-beacon undo' brings the beacon back.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var change: BeaconChangeOptions

        @Option(name: .long, help: "The venue.")
        var venue: String

        @Option(name: .long, help: ArgumentHelp("The beacon to retire.", valueName: "UUID:major:minor"))
        var old: String

        @Option(name: .customLong("operator"), help: "Who did it (kept in the audit trail).")
        var person: String?

        func validate() throws {
            try Survey.ReplaceBeacon.validate(venue: venue)
            _ = try Survey.ReplaceBeacon.beacon(old, option: "--old")
        }

        func run() async throws {
            let fingerprintStore = try await store.open()
            let oldID = try Survey.ReplaceBeacon.beacon(old, option: "--old")
            let report = try await fingerprintStore.replaceBeacon(
                ReplacementRequest(venue: venue, old: oldID, new: nil, operator: person, dryRun: change.dryRun),
                scale: PositioningConfiguration.defaultScale)
            if output.json { try Output.json(report) } else { print(Survey.ReplaceBeacon.summary(report)) }
            try await Survey.ReplaceBeacon.retune(venue, in: fingerprintStore, after: change, json: output.json)
        }
    }
}
