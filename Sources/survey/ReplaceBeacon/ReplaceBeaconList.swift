import ArgumentParser
import FingerprintStore
import Foundation

extension Survey.ReplaceBeacon {
    /// `survey replace-beacon list`: the audit trail.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List a venue's beacon replacements and removals, oldest first.",
            discussion: """
                One line each: its number (what 'survey replace-beacon undo' takes), when, who, what changed and \
                whether it was undone since. Nothing is written and the venue is not re-tuned.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: "The venue.")
        var venue: String

        func validate() throws {
            try Survey.ReplaceBeacon.validate(venue: venue)
        }

        func run() async throws {
            let replacements = try await store.open().replacements(of: venue)
            if output.json { return try Output.json(replacements) }
            if replacements.isEmpty { return print("Venue '\(venue)' has no beacon replacement.") }
            for replacement in replacements { print(describe(replacement)) }
        }

        func describe(_ replacement: BeaconReplacement) -> String {
            let what = replacement.kind == .replace
                ? "\(replacement.old) → \(replacement.new ?? "?"), \(replacement.entriesInherited) entries, offset \(String(format: "%+.1f", replacement.offset ?? 0)) dB"
                : "\(replacement.old) removed"
            let state = replacement.undoneAt.map { "undone \($0.ISO8601Format())" } ?? "active"
            return "\(replacement.id ?? 0)  \(replacement.performedAt.ISO8601Format())  \(replacement.operator ?? "-")  \(what)  \(state)"
        }
    }
}
