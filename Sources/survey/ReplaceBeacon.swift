import ArgumentParser
import FingerprintStore
import Foundation
import Positioning

extension Survey {
    /// `survey replace-beacon`: swap a dead beacon without resurveying.
    struct ReplaceBeacon: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "replace-beacon",
            abstract: "Replace a failed beacon by a new one, or remove it, without resurveying; list or undo replacements.",
            discussion: """
                --old X --new Y: the new beacon inherits the old one's survey entries; with --calibration, a short walk \
                with ground truth at a few surveyed spots in which the new beacon is live, their mean RSSI is shifted \
                by the estimated offset (median over the spots of the new beacon's level against the other beacons, \
                minus the old one's). A calibration with fewer than 3 spots of evidence or a spread above 4 dB is \
                refused unless --force. --remove --old X retires a beacon with no successor. --list shows the audit \
                trail; --undo N reverses replacement N exactly. Each is one transaction; --dry-run writes nothing. \
                A running positiond picks the change up within seconds (the venue revision increases). A replacement, removal or undo re-tunes the venue ('survey tune') unless --no-tune.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: "The venue.")
        var venue: String

        @Option(name: .long, help: ArgumentHelp("The failed beacon.", valueName: "UUID:major:minor"))
        var old: String?

        @Option(name: .long, help: ArgumentHelp("The replacement beacon.", valueName: "UUID:major:minor"))
        var new: String?

        @Option(name: .long, help: ArgumentHelp("A calibration walk (JSON Lines with ground truth).", valueName: "file"))
        var calibration: String?

        @Flag(name: .long, help: "Retire --old without a successor.")
        var remove = false

        @Flag(name: .long, help: "List the venue's replacements.")
        var list = false

        @Option(name: .long, help: ArgumentHelp("Reverse replacement N.", valueName: "N"))
        var undo: Int64?

        @Flag(name: .long, help: "Go ahead even if the calibration is too thin to trust.")
        var force = false

        @Flag(name: .long, help: "Print what would change and write nothing.")
        var dryRun = false

        @Option(name: .customLong("operator"), help: "Who did it (kept in the audit trail).")
        var person: String?

        @Flag(name: .long, help: "Do not re-tune the venue after the change (see 'survey tune').")
        var noTune = false

        enum Mode {
            case replace(old: BeaconID, new: BeaconID)
            case remove(BeaconID)
            case list
            case undo(Int64)
        }

        func mode() throws -> Mode {
            func parse(_ text: String?, _ option: String) throws -> BeaconID {
                guard let text else { throw ValidationError("\(option) is required here.") }
                do {
                    return try BeaconID(parsing: text)
                } catch {
                    throw ValidationError("\(option): \(error.description).")
                }
            }
            let chosen = [list, remove, undo != nil].filter { $0 }.count
            guard chosen <= 1 else { throw ValidationError("--list, --remove and --undo are alternatives; give one.") }
            if list {
                guard old == nil, new == nil, calibration == nil else { throw ValidationError("--list takes no beacon or calibration.") }
                return .list
            }
            if let undo {
                guard undo >= 1 else { throw ValidationError("--undo needs a replacement number, as --list shows them.") }
                guard old == nil, new == nil, calibration == nil else { throw ValidationError("--undo takes no beacon or calibration.") }
                return .undo(undo)
            }
            if remove {
                guard new == nil, calibration == nil else { throw ValidationError("--remove takes --old only: there is no new beacon to calibrate.") }
                return .remove(try parse(old, "--old"))
            }
            let oldID = try parse(old, "--old"), newID = try parse(new, "--new")
            guard oldID != newID else { throw ValidationError("--old and --new must be different beacons.") }
            return .replace(old: oldID, new: newID)
        }

        func validate() throws {
            _ = try mode()
            if force, calibration == nil { throw ValidationError("--force only matters with --calibration.") }
        }

        func run() async throws {
            let fingerprintStore = try store.open()
            try await change(fingerprintStore)
            // The survey changed: the configuration chosen on the old one may no longer be the best.
            if case .list = try mode() { return }
            guard !dryRun, !noTune else { return }
            do {
                let tuning = try await VenueTuning.tune(venue, in: fingerprintStore, progress: !output.json)
                if !output.json { print(VenueTuning.text(tuning, candidates: 3)) }
            } catch {
                throw CLIError("the change was recorded, but re-tuning failed: \(error); run 'survey tune --venue \(venue)' once it is fixed")
            }
        }

        private func change(_ fingerprintStore: FingerprintStore) async throws {
            switch try mode() {
            case .list:
                let replacements = try fingerprintStore.replacements(of: venue)
                if output.json { return try Output.json(replacements) }
                if replacements.isEmpty { return print("Venue '\(venue)' has no beacon replacement.") }
                for replacement in replacements { print(describe(replacement)) }
            case .undo(let id):
                let report = try fingerprintStore.undoReplacement(id, venue: venue, dryRun: dryRun)
                if output.json { return try Output.json(report) }
                print("\(dryRun ? "Would undo" : "Undid") replacement \(id): \(report.old) is active again"
                    + (report.new.map { ", \($0) loses its \(report.entriesInherited) inherited entries" } ?? "")
                    + "; revision \(report.revisionBefore) → \(dryRun ? report.revisionBefore + 1 : report.revisionAfter).")
            case .remove(let oldID):
                let report = try fingerprintStore.replaceBeacon(
                    ReplacementRequest(venue: venue, old: oldID, new: nil, operator: person, dryRun: dryRun),
                    scale: PositioningConfiguration.defaultScale)
                if output.json { return try Output.json(report) }
                print(summary(report))
            case .replace(let oldID, let newID):
                let samples = try calibration.map {
                    try ScanLogInput(path: $0, skipBad: false, requireGroundTruth: true).labelledSamples()
                }
                let report = try fingerprintStore.replaceBeacon(
                    ReplacementRequest(
                        venue: venue, old: oldID, new: newID, calibration: samples, operator: person, force: force,
                        dryRun: dryRun),
                    scale: PositioningConfiguration.defaultScale)
                if output.json { return try Output.json(report) }
                print(summary(report))
            }
        }

        func summary(_ report: BeaconReplacement) -> String {
            var lines: [String] = []
            let verb = report.dryRun ? "Would " : ""
            switch report.kind {
            case .remove:
                lines.append("\(verb.isEmpty ? "Removed" : verb + "remove") \(report.old): retired, left out of matching.")
            case .replace:
                lines.append("\(verb.isEmpty ? "Replaced" : verb + "replace") \(report.old) by \(report.new ?? "?"): \(report.entriesInherited) survey entries inherited, offset \(String(format: "%+.1f", report.offset ?? 0)) dB.")
            }
            if let estimate = report.calibration {
                lines.append("Calibration: \(estimate.evidence.count) spots of evidence, offset \(String(format: "%+.1f", estimate.offset)) dB, spread \(String(format: "%.1f", estimate.spread)) dB\(report.forced ? " (too thin, forced)" : "").")
                for spot in estimate.evidence {
                    lines.append("  \(spot.spot): \(String(format: "%+.1f", spot.difference)) dB (\(spot.kind.rawValue.replacingOccurrences(of: "_", with: " ")), \(spot.commonBeacons) common beacons)")
                }
                if !estimate.spotsWithoutEvidence.isEmpty {
                    lines.append("  no evidence at: \(estimate.spotsWithoutEvidence.joined(separator: ", "))")
                }
            }
            lines.append(report.dryRun
                ? "Dry run: nothing was written (revision stays \(report.revisionBefore))."
                : "Replacement \(report.id ?? 0) recorded; revision \(report.revisionBefore) → \(report.revisionAfter).")
            return lines.joined(separator: "\n")
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
