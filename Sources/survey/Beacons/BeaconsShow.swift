import ArgumentParser
import FingerprintStore
import Foundation
import Positioning

extension Survey.Beacons {
    /// `survey beacons show`: every beacon's state, the open proposals, the silent beacons' matching.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "List every beacon's health: state, since when, offset, last heard, evidence; and the open proposals.",
            discussion: """
                States: healthy; silent (not heard where the survey expects it); shifted (heard louder or quieter by \
                the offset shown, which matching corrects); unknown_beacon (an id heard often that the survey lacks); \
                insufficient_evidence (not yet heard where expected at enough places). 'fading' shows how far a \
                beacon has gone towards silent. Nothing is shown before positiond has located scans of the venue.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: "The venue.")
        var venue: String

        func validate() throws { try Survey.Beacons.validate(venue: venue) }

        func run() async throws {
            let fingerprintStore = try await store.open()
            let report = try await fingerprintStore.beaconHealthReport(of: venue)
            if output.json { return try Output.json(report) }
            print("Venue '\(venue)': beacon health from \(report.samples) located samples"
                + (report.updatedAt.map { ", updated \(ISO8601DateFormatter().string(from: $0))" } ?? " (positiond has taken none yet)"))
            if let rules = report.rules {
                print("  rules from the survey's own replay: silent at \(Output.metres(rules.silentThreshold)) nats, shifted at \(Output.metres(rules.levelThreshold)) dB, \(rules.minimumPlaces) places at least")
            }
            if let gain = report.recentGain {
                print("  recent scans hear the venue \(Output.metres(gain)) dB against the survey, all beacons alike")
            }
            print("")
            let header = ["beacon", "state", "since", "offset dB", "fading", "last heard", "heard/expected", "places", "devices"]
            var rows: [[String]] = [header]
            for item in report.items {
                let health = item.health
                let name = item.label.map { "\($0) \(health.beacon)" } ?? health.beacon.description
                let state = health.state.rawValue + (item.held ? " (held)" : "") + (health.irregularSince != nil ? " (irregular)" : "")
                    + (item.retired ? " (retired)" : "")
                let offset = health.offset.map { "\(String(format: "%+.1f", $0)) ± \(String(format: "%.1f", health.offsetUncertainty ?? 0))" }
                    ?? health.recentDifference.map { "(\(String(format: "%+.1f", $0)))" } ?? "-"
                rows.append([
                    name, state, Survey.Beacons.time(health.since), offset, "\(Int((health.silentProgress * 100).rounded()))%",
                    Survey.Beacons.time(health.evidence.lastHeard), "\(health.evidence.heardWhereExpected)/\(health.evidence.expectedSamples)",
                    "\(health.evidence.places)", "\(health.evidence.devices)",
                ])
            }
            let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                print("  " + row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  "))
            }
            if !report.degraded.silent.isEmpty {
                print("\n  silent beacons are \(report.degraded.matching == .ignored ? "ignored by matching" : "charged as absent, as surveyed"); accuracy_m widened x\(Output.metres(report.degraded.radiusFactor))"
                    + (report.degraded.chargedError.map { " (survey cross-validation: \(Output.metres($0)) m charged, \(Output.metres(report.degraded.ignoredError ?? 0)) m ignored, \(Output.metres(report.degraded.intactError ?? 0)) m intact)" } ?? ""))
            }
            if report.proposals.isEmpty {
                print("\n  no open proposal")
            } else {
                print("\n  open proposals ('survey replace-beacon accept --venue \(venue) N' accepts one, 'dismiss' rejects it):")
                for stored in report.proposals {
                    let proposal = stored.proposal
                    print("  \(stored.id): \(proposal.kind.rawValue) \(proposal.old) -> \(proposal.new), offset \(String(format: "%+.1f", proposal.offset)) dB, spread \(Output.metres(proposal.spread)) dB over \(proposal.places) places: \(proposal.reason)")
                }
            }
        }
    }
}
