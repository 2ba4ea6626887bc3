import ArgumentParser
import FingerprintStore
import Positioning

extension Survey {
    /// `survey tune`: choose a venue's positioning configuration by cross-validation on its own survey.
    struct Tune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Choose a venue's positioning configuration by cross-validation on its own survey, and store it.",
            discussion: """
                Every configuration of a documented search space (reference window, metric and penalties, \
                neighbours and their weighting, tracker window and smoothing) is scored by leave-one-spot-out \
                cross-validation on the stored survey: each survey scan is located with its own spot left out, as \
                a live scan between surveyed spots must be. When several devices surveyed, leave-one-device-out \
                runs too, since live phones are never the survey phone. The configuration with the lowest mean \
                error wins (ties: lower p90); the unknown threshold and the accuracy radius are calibrated on its \
                cross-validation answers. No test walk is read. The tuning is stored with the venue and bumps its \
                revision, so a running positiond picks it up. 'survey record' tunes at its end unless --no-tune. \
                --show prints the stored tuning instead.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: "The venue to tune.")
        var venue: String

        @Flag(name: .long, help: "Print the stored tuning and its cross-validation table; tune nothing.")
        var show = false

        @Flag(name: .long, help: "No progress bar on standard error.")
        var quiet = false

        func validate() throws {
            guard !venue.isEmpty else { throw ValidationError("--venue must name a venue.") }
        }

        func run() async throws {
            let fingerprintStore = try await store.open()
            let current = try await fingerprintStore.venue(venue).revision
            let tuning: StoredTuning
            if show {
                guard let stored = try await fingerprintStore.tuning(of: venue) else {
                    throw CLIError("venue '\(venue)' was never tuned: it uses the default configuration; run 'survey tune --venue \(venue)'")
                }
                tuning = stored
            } else {
                tuning = try await VenueTuning.tune(venue, in: fingerprintStore, progress: !quiet && !output.json)
            }
            if output.json { return try Output.json(tuning) }
            print(VenueTuning.text(tuning, currentRevision: current))
        }
    }
}
