import ScanFormats
package import ArgumentParser
import FingerprintStore
import Positioning

extension Survey {
    /// `survey record`: turn a survey walk into stored fingerprints.
    package struct Record: AsyncParsableCommand {
        package init() {}

        package static let configuration = CommandConfiguration(
            abstract: "Record a survey log (JSON Lines) into a venue's fingerprints, in one transaction.",
            discussion: """
                Consecutive samples of one device at one spot are grouped into windows of --window samples, one \
                fingerprint each. Spots missing from the venue are created from the lines' coordinates. A \
                malformed line stops the command with FILE:LINE and nothing written, unless --skip-bad. The default \
                window of 1 stores every scan, so that 'survey tune' can choose how many to merge per venue. At the \
                end the venue is tuned ('survey tune') unless --no-tune.

                A walking survey: with --path, lines without coordinates are placed where the surveyor was at \
                their time, on the line between the checkpoints before and after it (JSON Lines, one checkpoint a \
                line: {"t": ..., "spot": "G-A1"} or {"t": ..., "x": ..., "y": ..., "floor": 0}, with "via": \
                [[x, y], ...] for the corners walked through). A placed sample joins the venue's nearest spot \
                within --snap metres, or else a spot at the centre of its --cell grid cell. Samples before the \
                first checkpoint, after the last, or between checkpoints on two floors are left out and counted.
                """)

        @OptionGroup package var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: "The venue the survey belongs to.")
        var venue: String

        @Option(name: .long, help: "Consecutive samples per fingerprint (at least 1).")
        package var window: Int = PositioningConfiguration().surveyWindow

        @Option(name: .customLong("operator"), help: "Who walked the survey (kept with the session).")
        package var surveyor: String?

        @Flag(name: .long, help: "Skip and count malformed lines instead of refusing the file.")
        var skipBad = false

        @Flag(name: .long, help: "Add beacons heard but unknown to the venue instead of leaving them out.")
        var addUnknownBeacons = false

        @OptionGroup var walkOptions: WalkOptions

        @Flag(name: .long, help: "Do not tune the venue after recording (see 'survey tune').")
        package var noTune = false

        @Argument(help: ArgumentHelp("The survey log, or - for standard input.", valueName: "file"))
        package var file: String

        private var path: String? { walkOptions.path }
        private var cell: Double { walkOptions.cell }
        private var snap: Double { walkOptions.snap }

        package func validate() throws {
            guard window >= 1 else { throw ValidationError("--window must be at least 1 (got \(window)).") }
            guard !venue.isEmpty else { throw ValidationError("--venue must name a venue.") }
            guard path != "-" || file != "-" else { throw ValidationError("--path and the log cannot both be standard input.") }
        }

        package func run() async throws {
            let fingerprintStore = try await store.open()
            let details = try await fingerprintStore.venue(venue)  // an unknown venue fails before the file is read
            var walk: WalkingSurvey?
            if let path {
                do {
                    let walkedPath = try WalkPathFile.path(from: try ScanLogInput.read(path), spots: details.spots)
                    walk = WalkingSurvey(path: walkedPath, spots: WalkSpotAssignment(spots: details.spots, cellSize: cell, snapDistance: snap))
                } catch let error as WalkPathFile.LineError {
                    throw CLIError("\(path == "-" ? "standard input" : path):\(error.line): \(error.message); nothing was written")
                }
            }
            let progress = ProgressReporter(label: "recording", unit: "MB", unitSize: 1 << 20)
            let input = ScanLogSamples(try ScanLogInput.read(file), skipBad: skipBad, walk: walk) { done, total in
                if total >= 4 << 20 { progress.report(done, total) }
            }
            let summary: RecordSummary
            do {
                summary = try await fingerprintStore.record(
                    from: input, into: venue,
                    options: RecordOptions(
                        windowSize: window, operator: surveyor, sourceFile: file == "-" ? nil : file,
                        addUnknownBeacons: addUnknownBeacons, builder: PositioningConfiguration().builder))
            } catch let malformed as MalformedLines {
                throw ScanLogInput.malformedLines(malformed.errors, in: file)
            }
            // Nothing was written (the revision only moves when something is stored), but a surveyor who
            // recorded an empty file has the wrong file: say so rather than report success.
            let walked = walk.map { _ in input.walkPlacements }
            guard summary.samples > 0 else {
                if let walked, walked.leftOut > 0 {
                    throw CLIError("no sample of \(file == "-" ? "standard input" : file) lies on the walked path (\(walked.text)); nothing was recorded")
                }
                throw CLIError("\(file == "-" ? "standard input" : file) holds no scan line\(input.skipped > 0 ? " that could be read" : ""); nothing was recorded")
            }
            // The survey is stored whatever happens next: a tuning failure is reported, not a lost recording.
            if !output.json {
                if let walked { print("Walking survey: \(walked.text) (\(walk?.path.checkpoints.count ?? 0) checkpoints).") }
                print(summary.text(skipped: input.skipped))
            }
            var tuning: StoredTuning?
            var tuningError: String?
            if !noTune, summary.fingerprints > 0 {
                do {
                    tuning = try await VenueTuning.tune(venue, in: fingerprintStore, progress: !output.json)
                } catch {
                    tuningError = "\(error)"
                }
            }
            if output.json {
                try Output.json(RecordOutput(summary: summary, malformedLinesSkipped: input.skipped, walk: walked, tuning: tuning, tuningError: tuningError))
            } else if let tuning {
                print(VenueTuning.text(tuning, candidates: 3))
            }
            if let tuningError {
                throw CLIError("the survey was recorded, but tuning failed: \(tuningError); run 'survey tune --venue \(venue)' once it is fixed")
            }
        }
    }
}

/// `record --json`: the store's summary plus what the command skipped.
struct RecordOutput: Encodable {
    var summary: RecordSummary
    var malformedLinesSkipped: Int
    /// With --path: how the walk placed the lines without coordinates.
    var walk: WalkPlacementCounts?
    /// The tuning made at the end, unless --no-tune.
    var tuning: StoredTuning?
    var tuningError: String?
}

extension RecordSummary {
    func text(skipped: Int) -> String {
        var lines = ["Recorded \(fingerprints) fingerprints from \(samples) samples into '\(venue)' (revision \(revision))."]
        if skipped > 0 { lines.append("Skipped \(skipped) malformed lines.") }
        if emptySamples > 0 { lines.append("Skipped \(emptySamples) empty scans (no beacon heard).") }
        if unusableWindows > 0 { lines.append("Skipped \(unusableWindows) windows with no usable reading.") }
        if cleaning.dropped > 0 {
            lines.append("Dropped \(cleaning.dropped) readings (\(cleaning.unknownRSSI) with RSSI 0, \(cleaning.outOfRange) out of range).")
        }
        if !unknownBeaconReadings.isEmpty {
            let total = unknownBeaconReadings.values.reduce(0, +)
            lines.append("Left out \(total) readings of \(unknownBeaconReadings.count) beacons unknown to the venue (--add-unknown-beacons adds them):")
            for (beacon, count) in unknownBeaconReadings.sorted(by: { $0.key < $1.key }) { lines.append("  \(beacon): \(count)") }
        }
        if !beaconsAdded.isEmpty { lines.append("Added \(beaconsAdded.count) beacons: \(beaconsAdded.joined(separator: ", ")).") }
        if !spotsCreated.isEmpty { lines.append("Created \(spotsCreated.count) spots from the log's coordinates.") }
        lines.append("Fingerprints per spot (added / total, median beacons):")
        for spot in spots {
            lines.append("  \(spot.spot): \(spot.added) / \(spot.total), \(spot.medianBeacons) beacons")
        }
        if spotsToRevisit.isEmpty {
            lines.append("Every spot has at least 3 fingerprints seeing at least 3 beacons.")
        } else {
            lines.append("Revisit \(spotsToRevisit.count) spots (fewer than 3 fingerprints or 3 beacons): \(spotsToRevisit.joined(separator: ", ")).")
        }
        return lines.joined(separator: "\n")
    }
}

extension WalkPlacementCounts {
    var text: String {
        var parts = ["placed \(placed) samples along the path"]
        if leftOut > 0 {
            let reasons = [(beforeFirstCheckpoint, "before the first checkpoint"), (afterLastCheckpoint, "after the last"), (betweenFloors, "between checkpoints on two floors")]
                .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
            parts.append("left out \(leftOut) (\(reasons.joined(separator: ", ")))")
        }
        return parts.joined(separator: "; ")
    }
}
