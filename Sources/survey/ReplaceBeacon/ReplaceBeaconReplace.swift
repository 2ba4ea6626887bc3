import ArgumentParser
import FingerprintStore
import Positioning

extension Survey.ReplaceBeacon {
    /// `survey replace-beacon replace --old X --new Y`: the new beacon inherits the old one's survey.
    struct Replace: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "replace",
            abstract: "Hand a failed beacon's survey entries to its replacement and retire the failed one.",
            discussion: """
                The new beacon inherits the old one's survey entries; the old one is retired, kept with an audit \
                row. With --calibration, a short walk with ground truth at a few surveyed spots in which the new \
                beacon is live, the inherited mean RSSIs are shifted by the estimated offset (median over the \
                spots of the new beacon's level against the other beacons, minus the old one's). A calibration \
                with fewer than 3 spots of evidence or a spread above 4 dB is refused unless --force.

                One transaction; --dry-run writes nothing. A running positiond picks the change up within seconds \
                (the venue revision increases). The venue is then re-tuned ('survey tune') unless --no-tune; \
                'survey replace-beacon undo' reverses the replacement.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var change: BeaconChangeOptions

        @Option(name: .long, help: "The venue.")
        var venue: String

        @Option(name: .long, help: ArgumentHelp("The failed beacon.", valueName: "UUID:major:minor"))
        var old: String

        @Option(name: .long, help: ArgumentHelp("The replacement beacon.", valueName: "UUID:major:minor"))
        var new: String

        @Option(name: .long, help: ArgumentHelp("A calibration walk (JSON Lines with ground truth).", valueName: "file"))
        var calibration: String?

        @Flag(name: .long, help: "Go ahead even if the calibration is too thin to trust.")
        var force = false

        @Option(name: .customLong("operator"), help: "Who did it (kept in the audit trail).")
        var person: String?

        /// The two beacons, parsed and checked to differ.
        func beacons() throws -> (old: BeaconID, new: BeaconID) {
            let oldID = try Survey.ReplaceBeacon.beacon(old, option: "--old")
            let newID = try Survey.ReplaceBeacon.beacon(new, option: "--new")
            guard oldID != newID else { throw ValidationError("--old and --new must be different beacons.") }
            return (oldID, newID)
        }

        func validate() throws {
            try Survey.ReplaceBeacon.validate(venue: venue)
            _ = try beacons()
            if force, calibration == nil { throw ValidationError("--force only matters with --calibration.") }
        }

        func run() async throws {
            let fingerprintStore = try await store.open()
            let (oldID, newID) = try beacons()
            let samples = try calibration.map {
                try ScanLogInput(path: $0, skipBad: false, requireGroundTruth: true).labelledSamples()
            }
            let report = try await fingerprintStore.replaceBeacon(
                ReplacementRequest(
                    venue: venue, old: oldID, new: newID, calibration: samples, operator: person, force: force,
                    dryRun: change.dryRun),
                scale: PositioningConfiguration.defaultScale)
            if output.json { try Output.json(report) } else { print(Survey.ReplaceBeacon.summary(report)) }
            try await Survey.ReplaceBeacon.retune(venue, in: fingerprintStore, after: change, json: output.json)
        }
    }
}
