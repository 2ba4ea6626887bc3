import ArgumentParser
import FingerprintStore
import Foundation
import Positioning

extension Survey {
    /// `survey replace-beacon`: swap, retire or restore beacons without resurveying.
    struct ReplaceBeacon: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "replace-beacon",
            abstract: "Replace a failed beacon by a new one, or remove it, without resurveying; list or undo replacements.",
            discussion: """
                'replace' hands a failed beacon's survey entries to its successor, 'remove' retires a beacon with \
                no successor, 'list' shows the audit trail and 'undo' reverses one replacement or removal exactly; \
                'accept' and 'dismiss' take or reject a replacement or swap that positiond proposed from live \
                traffic ('survey beacons' lists them). \
                Each change is one transaction and bumps the venue revision, which a running positiond picks up \
                within seconds; the venue is then re-tuned ('survey tune') unless --no-tune, and --dry-run \
                writes nothing. The flag forms of earlier versions ('--old X --new Y', '--remove', '--list', \
                '--undo N') are refused with the subcommand to run instead.
                """,
            subcommands: [Replace.self, Remove.self, List.self, Undo.self, Accept.self, Dismiss.self, FlagForms.self],
            defaultSubcommand: FlagForms.self)
    }
}

/// What every change of a venue's beacons takes: whether to write at all and whether to re-tune after.
struct BeaconChangeOptions: ParsableArguments {
    @Flag(name: .long, help: "Print what would change and write nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Do not re-tune the venue after the change (see 'survey tune').")
    var noTune = false
}

extension Survey.ReplaceBeacon {
    /// The beacon `text` names, or a validation error naming `option`.
    static func beacon(_ text: String, option: String) throws -> BeaconID {
        do {
            return try BeaconID(parsing: text)
        } catch {
            throw ValidationError("\(option): \(error.description).")
        }
    }

    /// Refuses an empty `--venue`, which the store would only report as an unknown venue.
    static func validate(venue: String) throws {
        guard !venue.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--venue must not be empty.") }
    }

    /// Re-tunes `venue` after a change, unless it was a dry run or the operator said not to.
    ///
    /// The survey changed: the configuration chosen on the old one may no longer be the best.
    static func retune(_ venue: String, in store: FingerprintStore, after change: BeaconChangeOptions, json: Bool) async throws {
        guard !change.dryRun, !change.noTune else { return }
        do {
            let tuning = try await VenueTuning.tune(venue, in: store, progress: !json)
            if !json { print(VenueTuning.text(tuning, candidates: 3)) }
        } catch {
            throw CLIError("the change was recorded, but re-tuning failed: \(error); run 'survey tune --venue \(venue)' once it is fixed")
        }
    }

    /// A replacement or removal just made (or, for a dry run, that would be made), for people to read.
    static func summary(_ report: BeaconReplacement) -> String {
        var lines: [String] = []
        let verb = report.dryRun ? "Would " : ""
        switch report.kind {
        case .remove:
            lines.append("\(verb.isEmpty ? "Removed" : verb + "remove") \(report.old): retired, left out of matching.")
        case .replace:
            lines.append("\(verb.isEmpty ? "Replaced" : verb + "replace") \(report.old) by \(report.new ?? "?"): \(report.entriesInherited) survey entries inherited, offset \(String(format: "%+.1f", report.offset ?? 0)) dB.")
        case .swap:
            lines.append("\(verb.isEmpty ? "Swapped" : verb + "swap") \(report.old) and \(report.new ?? "?"): each takes the other's place in the survey.")
        }
        if let proposal = report.proposal {
            lines.append("From beacon proposal: offset \(String(format: "%+.1f", proposal.offset)) dB, spread \(String(format: "%.1f", proposal.spread)) dB over \(proposal.places) places, measured on live scans.")
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
}
