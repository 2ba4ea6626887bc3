import FingerprintStore
import Foundation
import Positioning

// The beacon-health answers of openapi.yaml, made from the store's values.

/// The store's report (inside the extension below, `BeaconHealthReport` names the generated type).
typealias StoredBeaconHealthReport = BeaconHealthReport

extension Components.Schemas.BeaconHealthState {
    init(_ state: BeaconState) {
        switch state {
        case .insufficientEvidence: self = .insufficientEvidence
        case .healthy: self = .healthy
        case .silent: self = .silent
        case .shifted: self = .shifted
        case .unknownBeacon: self = .unknownBeacon
        }
    }
}

extension Components.Schemas.BeaconEvidence {
    init(_ evidence: BeaconEvidence) {
        self.init(
            expectedSamples: evidence.expectedSamples, heardWhereExpected: evidence.heardWhereExpected, heardSamples: evidence.heardSamples,
            places: evidence.places, devices: evidence.devices, lastHeard: evidence.lastHeard.map(Date.init(timeIntervalSince1970:)))
    }
}

extension Components.Schemas.BeaconHealthReport {
    /// `report`, its rules those of the venue's survey (`rules`) until the stored monitor has its own.
    init(_ report: StoredBeaconHealthReport, revision: Int, rules: BeaconHealthRules, labels: [BeaconID: String]) {
        let rules = report.rules ?? rules
        self.init(
            venue: report.venue, revision: revision, samples: report.samples, updatedAt: report.updatedAt,
            recentGainDb: report.recentGain,
            beacons: report.items.map { item in
                let health = item.health
                return .init(
                    id: health.beacon.description, label: item.label, surveyed: item.surveyed, retired: item.retired ? true : nil,
                    state: .init(health.state), since: health.since.map(Date.init(timeIntervalSince1970:)), offsetDb: health.offset,
                    offsetUncertaintyDb: health.offsetUncertainty, recentDifferenceDb: health.recentDifference,
                    silentProgress: health.silentProgress, irregularSince: health.irregularSince.map(Date.init(timeIntervalSince1970:)),
                    held: item.held, x: item.x, y: item.y, floor: item.floor, evidence: .init(health.evidence))
            },
            proposals: report.proposals.map { .init($0, labels: labels) },
            degraded: .init(report.degraded),
            rules: .init(
                silentThreshold: rules.silentThreshold, levelThreshold: rules.levelThreshold, shiftStepDb: rules.shiftStep,
                minimumPlaces: rules.minimumPlaces, surveySamples: rules.calibration?.samples))
    }
}

extension Components.Schemas.BeaconProposal {
    init(_ stored: StoredProposal, labels: [BeaconID: String]) {
        let proposal = stored.proposal
        self.init(
            id: stored.id, kind: proposal.kind == .replace ? .replace : .swap, old: proposal.old.description, new: proposal.new.description,
            oldLabel: labels[proposal.old], newLabel: labels[proposal.new], offsetDb: proposal.offset, spreadDb: proposal.spread,
            reverseOffsetDb: proposal.reverseOffset, places: proposal.places, readings: proposal.readings,
            proposedAt: Date(timeIntervalSince1970: proposal.time), reason: proposal.reason,
            status: .init(rawValue: stored.status.rawValue) ?? .open, decidedAt: stored.decidedAt, _operator: stored.operator,
            replacement: stored.replacement)
    }
}

extension Components.Schemas.DegradedVenue {
    init(_ degraded: DegradedVenue) {
        self.init(
            silent: degraded.silent.map(\.description), matching: degraded.matching == .ignored ? .ignored : .chargedAbsent,
            radiusFactor: degraded.radiusFactor, intactErrorM: degraded.intactError, chargedErrorM: degraded.chargedError,
            ignoredErrorM: degraded.ignoredError, queries: degraded.queries == 0 ? nil : degraded.queries)
    }
}

extension Components.Schemas.BeaconHealthChange {
    init(_ change: BeaconHealthChangeRecord, labels: [BeaconID: String]) {
        self.init(
            id: change.id, beacon: change.beacon, label: (try? BeaconID(parsing: change.beacon)).flatMap { labels[$0] },
            from: .init(change.from), to: .init(change.to), at: change.at, recordedAt: change.recordedAt, offsetDb: change.offset,
            offsetUncertaintyDb: change.offsetUncertainty, evidence: .init(change.evidence), reason: change.reason, actor: change.actor)
    }
}

extension Components.Schemas.ReplacementSummary {
    init(_ replacement: BeaconReplacement) {
        let kind: KindPayload = switch replacement.kind {
        case .replace: .replace
        case .remove: .remove
        case .swap: .swap
        }
        self.init(
            id: replacement.id, kind: kind, old: replacement.old, new: replacement.new, offsetDb: replacement.offset,
            entriesInherited: replacement.entriesInherited, dryRun: replacement.dryRun, revisionBefore: replacement.revisionBefore,
            revisionAfter: replacement.revisionAfter)
    }
}

extension VenueDetails {
    /// The venue's beacons' labels, by id.
    var beaconLabels: [BeaconID: String] {
        Dictionary(beacons.compactMap { beacon in beacon.label.map { (beacon.id, $0) } }, uniquingKeysWith: { first, _ in first })
    }

    /// The beacon a path names: `UUID:major:minor`, or a label of the venue.
    func beacon(named text: String) -> BeaconID? {
        if let labelled = beacons.first(where: { $0.label == text }) { return labelled.id }
        return try? BeaconID(parsing: text)
    }
}
