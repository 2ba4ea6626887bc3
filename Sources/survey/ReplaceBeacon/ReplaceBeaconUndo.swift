import ArgumentParser
import FingerprintStore

extension Survey.ReplaceBeacon {
    /// `survey replace-beacon undo N`: reverse one replacement or removal exactly.
    struct Undo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "undo",
            abstract: "Reverse a replacement or removal exactly, by its number in 'survey replace-beacon list'.",
            discussion: """
                The old beacon is active again and a successor loses the entries it inherited; the audit row is \
                kept, marked undone. One transaction; --dry-run writes nothing. A running positiond picks the \
                change up within seconds (the venue revision increases). The venue is then re-tuned ('survey \
                tune') unless --no-tune.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var change: BeaconChangeOptions

        @Option(name: .long, help: "The venue.")
        var venue: String

        @Argument(help: ArgumentHelp("The replacement's number, as 'survey replace-beacon list' shows it.", valueName: "N"))
        var id: Int64

        func validate() throws {
            try Survey.ReplaceBeacon.validate(venue: venue)
            guard id >= 1 else { throw ValidationError("N must be a replacement number (1 or more), as 'survey replace-beacon list' shows them; got \(id).") }
        }

        func run() async throws {
            let fingerprintStore = try await store.open()
            let report = try await fingerprintStore.undoReplacement(id, venue: venue, dryRun: change.dryRun)
            if output.json {
                try Output.json(report)
            } else {
                print("\(change.dryRun ? "Would undo" : "Undid") replacement \(id): \(report.old) is active again"
                    + (report.new.map { ", \($0) loses its \(report.entriesInherited) inherited entries" } ?? "")
                    + "; revision \(report.revisionBefore) → \(change.dryRun ? report.revisionBefore + 1 : report.revisionAfter).")
            }
            try await Survey.ReplaceBeacon.retune(venue, in: fingerprintStore, after: change, json: output.json)
        }
    }
}
