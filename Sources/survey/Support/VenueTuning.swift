import FingerprintStore
import Foundation
package import Positioning
import PositioningTuning
import VenueServices

/// The tuning as `survey` runs and shows it: ``VenueTuner/tune(_:progress:)`` with a progress
/// bar, and its result for people to read.
package enum VenueTuning {
    /// Tunes `venue` and stores its tuning (bumping its revision).
    ///
    /// - Parameter progress: show a progress bar on standard error.
    static func tune(_ venue: String, in store: FingerprintStore, progress showProgress: Bool = true) async throws -> StoredTuning {
        let reporter = ProgressReporter(label: "tuning", unit: "candidates")
        do {
            return try await VenueTuner(store: store).tune(venue) { done, total in
                if showProgress { reporter.report(done, total) }
            }
        } catch let refusal as TuningRefusal {
            throw CLIError(refusal.reason)
        }
    }

    /// How the venue's map is searched, and why.
    package static func describeSearch(_ search: CandidateSearch?, recall: CandidateSearchRecall?) -> String {
        func percent(_ share: Double) -> String { String(format: "%.1f%%", share * 100) }
        let measured = recall.map {
            "recall of the exhaustive search's 8 nearest spots \(percent($0.at8)), of its 32 nearest \(percent($0.at32)) on \($0.queries) survey scans, reading \(percent($0.readShare)) of the map"
        }
        switch (search, measured) {
        case (.strongestBeacons(let queryBeacons, let referenceRank, let minimumShared, _, _)?, let measured?):
            return "strongest beacons, \(minimumShared) of the scan's \(queryBeacons) strongest among a fingerprint's \(referenceRank) strongest (\(measured))"
        case (.spotsFirst(let keep, let coarse)?, let measured?):
            let within = switch coarse {
            case .strongestBeacons(let queryBeacons, let referenceRank, let minimumShared, _, _):
                "\(minimumShared) of the scan's \(queryBeacons) strongest among a centroid's \(referenceRank) strongest"
            default: "every centroid sharing a beacon with the scan"
            }
            return "spots first, the fingerprints of the \(keep) nearest spot centroids, ranked where \(within) (\(measured))"
        case (_, let measured?): return "exact beacon index: the strongest-beacon search falls short under this metric (\(measured); at least 100% and \(percent(CandidateSearchRecall.required32)) are required)"
        default: return "exact beacon index (the map is small enough to read whole)"
        }
    }

    /// The tuning for people to read.
    static func text(_ tuning: StoredTuning, currentRevision: Int? = nil, candidates limit: Int = 10) -> String {
        let result = tuning.result, configuration = result.configuration
        var lines: [String] = []
        let protocols = result.devices > 1 ? "leave-one-spot-out and leave-one-device-out" : "leave-one-spot-out"
        lines.append("Venue '\(tuning.venue)' tuned at revision \(tuning.revision) (\(tuning.tunedAt.ISO8601Format())) in \(String(format: "%.1f", tuning.seconds)) s: \(result.queries) cross-validation queries, \(result.devices) device\(result.devices == 1 ? "" : "s") (\(protocols)).")
        if let currentRevision, currentRevision > tuning.revision {
            lines.append("The venue has changed since (revision \(currentRevision)): run 'survey tune --venue \(tuning.venue)' again.")
        }
        lines.append("  metric: \(configuration.metric)")
        lines.append("  references: \(describe(configuration.referenceWindow)); neighbours: \(result.score.estimator)")
        for (name, statistics) in [("leave-one-spot-out", result.score.spotOut), ("leave-one-device-out", result.score.deviceOut)] {
            guard let statistics else { continue }
            lines.append("  \(name) error: mean \(Output.metres(statistics.mean)), median \(Output.metres(statistics.median)), p90 \(Output.metres(statistics.p90)) (\(statistics.count) answers)")
        }
        if result.score.unanswered > 0 { lines.append("  unanswered: \(result.score.unanswered) (no common beacon once their spot was left out)") }
        lines.append("  candidate search: \(describeSearch(configuration.candidateSearch, recall: result.candidateSearchRecall))")
        lines.append("  unknown beyond distance \(configuration.maximumDistance.map { String(format: "%.4g", $0) } ?? "none") (\(result.unknownAtThreshold) cross-validation answers beyond it)")
        lines.append("  accuracy radius: \(String(format: "%.2f", configuration.accuracyScale)) x sqrt(spread² + \(Output.metres(configuration.resolution))²), holding the truth in \(Output.metres(result.withinAccuracy * 100))% of cross-validation answers")
        let model = configuration.uncertainty ?? .neighbourSpread
        if let scores = result.uncertaintyScores, let chosen = scores.first(where: { $0.model == model }) {
            let spread = scores.first { $0.model == .neighbourSpread }
            lines.append("  spread and covariance: \(model), chosen from \(scores.count) models by cross-validated log-loss \(String(format: "%.3f", chosen.logLoss))" + (spread.map { $0.model == model ? "" : " (neighbours' spread \(String(format: "%.3f", $0.logLoss)))" } ?? ""))
        }
        if let calibration = result.calibrationProtocols {
            let groups = result.groups ?? result.devices, kind = result.groupKind ?? "device"
            lines.append("  radius calibrated on: \(calibration.map(describe).joined(separator: ", ")), each weighing the same (\(groups) \(kind)\(groups == 1 ? "" : "s") in the survey)")
            if groups < 2 {
                lines.append("  the survey is one device in one session: the radius cannot see other phones or other days, so it is widened to hold 68% of the answers between spots alone (at-spot answers, the survey phone matching its own scans, are left out); record a second session (another phone, or another day) to calibrate it on them")
            }
        }
        if let trackerScale = configuration.trackerAccuracyScale {
            // A Kalman track's circle comes from calibrated answers already: its own factor is the ratio of the scales.
            let described = configuration.trackerGain == nil
                ? "\(String(format: "%.2f", trackerScale)) x sqrt(spread² + \(Output.metres(configuration.resolution))²), smoothed"
                : "\(String(format: "%.2f", trackerScale / max(configuration.accuracyScale, 1e-9))) x the Kalman track's own 68% circle"
            lines.append("  tracker radius: \(described): calibrated on the replayed survey")
        }
        if let tracker = result.tracker.first(where: {
            $0.window == configuration.trackerWindow && $0.alpha == configuration.trackerAlpha && $0.gain == configuration.trackerGain
        }),
            let errors = tracker.errors
        {
            let single = result.tracker.first { $0.window == 0 && $0.alpha == 1 && $0.gain == nil }?.errors
            lines.append("  tracker: merges \(tracker.window == 0 ? "the newest sample only" : "\(String(format: "%g", tracker.window)) s of samples"), \(tracker.gain.map { "\($0)" } ?? "smoothing gain \(String(format: "%g", tracker.alpha))"): replayed survey mean \(Output.metres(errors.mean))" + (single.map { " (single scans \(Output.metres($0.mean)))" } ?? ""))
        }
        lines.append("  candidates (best estimator of each), best first:")
        lines.append("     mean    p90  configuration")
        for score in result.candidates.prefix(limit) {
            lines.append(String(format: "  %7.2f %6.2f  ", score.objective, score.objectiveP90) + "\(score.candidate); \(score.estimator)")
        }
        if result.candidates.count > limit { lines.append("  ... \(result.candidates.count - limit) more (--json lists all)") }
        return lines.joined(separator: "\n")
    }

    static func describe(_ validation: SurveyCrossValidation.ValidationProtocol) -> String {
        switch validation {
        case .spotOut: "between spots (leave-one-spot-out)"
        case .groupOut: "other devices or sessions (leave-one-group-out)"
        case .atSpot: "at surveyed spots (own fingerprint out)"
        }
    }

    static func describe(_ window: ReferenceWindow) -> String {
        switch window {
        case .fingerprints(1): "every stored fingerprint"
        case .fingerprints(let count): "\(count) stored fingerprints merged"
        case .wholeRun: "each run (one device at one spot) merged"
        }
    }
}
