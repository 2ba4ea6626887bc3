import FingerprintStore
import Foundation
import Positioning
import PositioningTuning

extension Survey.Evaluate {
    /// `--adapt`: the walk replayed through the venue's beacon-health monitor, with the rules its survey
    /// calls for (``BeaconHealthCalibration``).
    static func adaptiveRun(
        _ walk: [LabelledSample], faults: [BeaconFault], survey: VenueSurvey, map: RadioMap, tracking: TrackerConfiguration?, windowSize: Int
    ) throws -> (evaluation: AdaptiveEvaluation, rules: BeaconHealthRules) {
        let configuration = survey.configuration
        let rules = try BeaconHealthCalibration.rules(spots: survey.spots, survey: survey.surveyed, configuration: configuration)
        let expectations = BeaconExpectations(spots: survey.spots, survey: survey.fingerprints)
        let spots = survey.spots, surveyed = survey.surveyed, zoneAreas = survey.venue.zoneAreas
        let setup = AdaptiveSetup(expectations: expectations, rules: rules, tolerant: true) { silent in
            guard let assessed = try? DegradedVenue.assess(spots: spots, survey: surveyed, configuration: configuration, silent: silent) else {
                return (.intact, nil)
            }
            guard assessed.matching == .ignored else { return (assessed, nil) }
            let without = try? DegradedVenue.map(spots: spots, survey: surveyed, configuration: configuration, without: silent, zoneAreas: zoneAreas)
            return (assessed, without)
        }
        let evaluator = Evaluator(builder: configuration.builder, locator: configuration.locator)
        let evaluation = evaluator.adaptiveEvaluation(walk, faults: faults, tracking: tracking, windowSize: windowSize, in: map, setup: setup)
        return (evaluation, rules)
    }

    /// A fault for people, beacons by label where they have one.
    static func describe(_ fault: BeaconFault, venue: VenueDetails) -> String {
        let what = AdaptiveOutput.describe(fault) { AdaptiveOutput.name($0, venue: venue) }
        return what + " from t=\(Output.metres(fault.time))"
    }
}

/// `evaluate --adapt`'s part of the output.
struct AdaptiveOutput: Encodable {
    /// The thresholds the survey's own replay set.
    var rules: BeaconHealthRules
    var changes: [Change]
    var proposals: [BeaconProposal]
    /// The proposals still open at the end, their figures refined since.
    var openProposals: [BeaconProposal]
    var final: [Health]
    var degraded: DegradedVenue
    /// How much louder than the survey the walk heard the venue at the end, all beacons alike, dB.
    var recentGain: Double?
    var faults: [FaultDetection]

    /// A state change with the beacon's label.
    struct Change: Encodable {
        var label: String?
        var change: BeaconStateChange

        func encode(to encoder: any Encoder) throws {
            try change.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encodeIfPresent(label, forKey: .label)
        }

        enum Keys: String, CodingKey { case label }
    }

    /// A beacon's final health with its label.
    struct Health: Encodable {
        var label: String?
        var health: BeaconHealth

        func encode(to encoder: any Encoder) throws {
            try health.encode(to: encoder)
            var container = encoder.container(keyedBy: Change.Keys.self)
            try container.encodeIfPresent(label, forKey: .label)
        }
    }

    init(_ evaluation: AdaptiveEvaluation, rules: BeaconHealthRules, venue: VenueDetails) {
        self.rules = rules
        let label = { (beacon: BeaconID) in venue.beacons.first { $0.id == beacon }?.label }
        changes = evaluation.changes.map { Change(label: label($0.beacon), change: $0) }
        proposals = evaluation.proposals
        openProposals = evaluation.openProposals
        final = evaluation.final.map { Health(label: label($0.beacon), health: $0) }
        degraded = evaluation.degraded
        recentGain = evaluation.recentGain
        faults = evaluation.faults
        self.venue = venue
    }

    private let venue: VenueDetails
    private enum CodingKeys: String, CodingKey { case rules, changes, proposals, openProposals, final, degraded, recentGain, faults }

    static func name(_ beacon: BeaconID, venue: VenueDetails) -> String {
        venue.beacons.first { $0.id == beacon }?.label ?? beacon.description
    }

    func print() {
        let name = { (beacon: BeaconID) in Self.name(beacon, venue: venue) }
        Swift.print("  beacon health, each sample taken as evidence after it was located:")
        Swift.print("    rules from the survey's own replay: silent at \(Output.metres(rules.silentThreshold)) nats, shifted at \(Output.metres(rules.levelThreshold)) dB (a step of \(Output.metres(rules.shiftStep)) dB)"
            + (rules.calibration.map { " (\($0.samples) survey samples; largest healthy excursions \(Output.metres($0.largestSilentExcursion)) nats, \(Output.metres($0.largestLevelExcursion)) dB)" } ?? ""))
        if changes.isEmpty { Swift.print("    no state change") }
        for change in changes.map(\.change) {
            Swift.print("    sample \(change.sample): \(name(change.beacon)) \(change.from.rawValue) -> \(change.to.rawValue): \(change.reason)")
        }
        for proposal in proposals {
            Swift.print("    proposed \(proposal.kind.rawValue) \(name(proposal.old)) -> \(name(proposal.new)), offset \(Output.metres(proposal.offset)) dB (spread \(Output.metres(proposal.spread))): \(proposal.reason)")
        }
        for detection in faults {
            let what = AdaptiveOutput.describe(detection.fault, name: name)
            if let samples = detection.samplesToDetect {
                Swift.print("    \(what): named after \(samples) located samples (\(detection.expectedSamplesToDetect ?? 0) of them where the survey expects it)"
                    + (detection.offset.map { ", offset \(Output.metres($0)) dB" } ?? "") + (detection.finalOffset.map { ", \(Output.metres($0)) dB at the end" } ?? ""))
            } else {
                Swift.print("    \(what): not named (\(detection.expectedSamples) located samples under it expected the beacon)")
            }
        }
        if !degraded.silent.isEmpty {
            Swift.print("    silent beacons \(degraded.silent.map(name).joined(separator: ", ")): \(degraded.matching.rawValue), radius x\(Output.metres(degraded.radiusFactor))")
        }
        let counts = Dictionary(grouping: final.map(\.health.state), by: { $0 }).mapValues(\.count)
        Swift.print("    at the end: " + BeaconState.allCases.compactMap { state in counts[state].map { "\(state.rawValue) \($0)" } }.joined(separator: ", ")
            + (recentGain.map { "; the walk hears the venue \(Output.metres($0)) dB against the survey, all beacons alike" } ?? ""))
    }

    static func describe(_ fault: BeaconFault, name: (BeaconID) -> String) -> String {
        switch fault.kind {
        case .kill(let beacon): "\(name(beacon)) dead"
        case .shift(let beacon, let decibels): "\(name(beacon)) \(decibels > 0 ? "+" : "")\(Output.metres(decibels)) dB"
        case .swap(let first, let second): "\(name(first)) and \(name(second)) swapped"
        case .swapIn(let old, let new, let decibels): "\(name(old)) replaced by \(new) (\(decibels > 0 ? "+" : "")\(Output.metres(decibels)) dB)"
        }
    }
}
