import FingerprintStore
import Foundation
import Positioning

// The generated types of openapi.yaml, made from the domain's values: the one place where the daemon's
// answers take the shape the contract gives them.

/// The store's venue summary (inside the extension below, `VenueSummary` names the generated type).
typealias StoredVenueSummary = VenueSummary

extension Components.Schemas.Position {
    init(_ position: Position) {
        self.init(
            x: position.x, y: position.y, floor: position.floor, accuracyM: position.accuracy, spot: position.spot,
            zone: position.zone)
    }
}

extension Components.Schemas.Candidate {
    init(_ candidate: SpotCandidate) {
        self.init(
            spot: candidate.spot.name, floor: candidate.spot.floor, zone: candidate.spot.zone, distance: Double(candidate.distance))
    }
}

extension Components.Schemas.UnknownReasonCode {
    init(_ code: UnknownReason.Code) {
        switch code {
        case .noKnownBeacon: self = .noKnownBeacon
        case .tooFewBeacons: self = .tooFewBeacons
        case .noCommonBeacon: self = .noCommonBeacon
        case .tooFar: self = .tooFar
        }
    }
}

extension Components.Schemas.Reason {
    init(_ reason: UnknownReason) {
        self.init(code: .init(reason.code), message: reason.description)
    }
}

/// The parts of a ``LocationResult`` that the locate answer, the device's raw answer and the survey's
/// JSON share.
struct LocationFields {
    var status: Components.Schemas.LocationStatus
    var position: Components.Schemas.Position?
    var reason: Components.Schemas.Reason?
    var candidates: [Components.Schemas.Candidate]
    var matchedBeacons: Int
    var unmappedBeacons: [String]

    init(_ result: LocationResult) {
        switch result.outcome {
        case .located(let position):
            status = .located
            self.position = .init(position)
            reason = nil
        case .unknown(let why):
            status = .unknown
            position = nil
            reason = .init(why)
        }
        candidates = result.candidates.map(Components.Schemas.Candidate.init)
        matchedBeacons = result.matchedBeacons
        unmappedBeacons = result.unmappedBeacons.map(\.description)
    }
}

extension Components.Schemas.Locate {
    init(venue: String, result: LocationResult, revision: Int) {
        let fields = LocationFields(result)
        self.init(
            venue: venue, status: fields.status, position: fields.position, reason: fields.reason, candidates: fields.candidates,
            matchedBeacons: fields.matchedBeacons, unmappedBeacons: fields.unmappedBeacons, revision: revision)
    }
}

extension Components.Schemas.LocationReport {
    init(_ result: LocationResult, revision: Int?) {
        let fields = LocationFields(result)
        self.init(
            status: fields.status, position: fields.position, reason: fields.reason, candidates: fields.candidates,
            matchedBeacons: fields.matchedBeacons, unmappedBeacons: fields.unmappedBeacons, revision: revision)
    }
}

extension Components.Schemas.ZoneEvent {
    init(_ event: ZoneEvent) {
        self.init(kind: .init(event.kind), zone: event.zone, time: event.time)
    }
}

extension Components.Schemas.ZoneEventKind {
    init(_ kind: ZoneEvent.Kind) {
        switch kind {
        case .enter: self = .enter
        case .exit: self = .exit
        }
    }
}

extension Components.Schemas.Device {
    init(venue: String, device: String, revision: Int, update: TrackingUpdate, zone: String?, events: [ZoneEvent]) {
        self.init(
            venue: venue, device: device, revision: revision, time: update.time,
            status: update.position == nil ? .unknown : .located, position: update.position.map(Components.Schemas.Position.init),
            zone: zone, events: events.map(Components.Schemas.ZoneEvent.init), raw: .init(update.raw, revision: revision),
            stuckBeacons: update.stuckBeacons.map(\.description), windowSamples: update.windowSamples)
    }
}

extension Components.Schemas.VenueSummary {
    init(_ summary: StoredVenueSummary) {
        self.init(
            id: summary.id, name: summary.name, revision: summary.revision, floors: summary.floors,
            activeBeacons: summary.activeBeacons, spots: summary.spots, fingerprints: summary.fingerprints,
            updatedAt: summary.updatedAt)
    }
}

extension Components.Schemas.Spot {
    init(_ spot: Spot) {
        self.init(name: spot.name, x: spot.x, y: spot.y, floor: spot.floor, zone: spot.zone)
    }
}

extension Components.Schemas.Venue {
    init(_ details: VenueDetails) {
        self.init(
            id: details.id, name: details.name, revision: details.revision,
            floors: details.floors.map { Components.Schemas.Floor(level: $0.level, name: $0.name) },
            spots: details.spots.map(Components.Schemas.Spot.init),
            beacons: details.activeBeacons.map {
                Components.Schemas.Beacon(
                    id: $0.id.description, uuid: $0.id.uuid.uuidString, major: Int($0.id.major), minor: Int($0.id.minor),
                    label: $0.label, x: $0.x, y: $0.y, floor: $0.floor)
            },
            fingerprints: details.fingerprints)
    }
}

extension Components.Schemas.Proximity {
    init(_ decision: ProximityDecider.Decision, spotOfBeacon: [BeaconID: Spot]) {
        func candidates(_ list: [ProximityDecider.Candidate]) -> [Components.Schemas.ProximityCandidate] {
            list.map {
                Components.Schemas.ProximityCandidate(
                    beacon: $0.beacon.description, spot: spotOfBeacon[$0.beacon]?.name, meanRssi: $0.meanRSSI,
                    samples: $0.samples, strongestIn: $0.strongestIn)
            }
        }
        switch decision {
        case .nearest(let winner, let margin, let runnerUp):
            self.init(
                decision: .nearest, spot: spotOfBeacon[winner.beacon].map(Components.Schemas.Spot.init), beacon: winner.beacon.description,
                marginDb: margin.isFinite ? margin : nil, reason: nil, candidates: candidates([winner] + (runnerUp.map { [$0] } ?? [])))
        case .undecided(let list, let reason):
            self.init(decision: .undecided, reason: .init(reason), candidates: candidates(list))
        case .nothing(let reason):
            self.init(decision: .nothing, reason: .init(reason), candidates: [])
        }
    }
}

extension Components.Schemas.ProximityReason {
    init(_ reason: ProximityDecider.UndecidedReason) {
        let code: Components.Schemas.ProximityReasonCode =
            switch reason.code {
            case .tooFewSamples: .tooFewSamples
            case .marginTooSmall: .marginTooSmall
            case .rarelyStrongest: .rarelyStrongest
            }
        self.init(code: code, message: reason.message)
    }

    init(_ reason: ProximityDecider.NothingReason) {
        let code: Components.Schemas.ProximityReasonCode =
            switch reason.code {
            case .noSamples: .noSamples
            case .noUsableReading: .noUsableReading
            }
        self.init(code: code, message: reason.message)
    }
}

extension Components.Schemas.Coverage {
    /// The coverage of `survey`'s radio map: a spot is thin with fewer than 3 fingerprints, or with
    /// fingerprints that typically hold fewer than 3 beacons (as `survey stats` says); a retired beacon whose
    /// survey a replacement (not undone) handed on is `replaced`.
    init(survey: VenueSurvey, replacements: [BeaconReplacement]) {
        var beaconsPerFingerprint = Array(repeating: [Int](), count: survey.spots.count)
        for fingerprint in survey.surveyed where beaconsPerFingerprint.indices.contains(fingerprint.spot) {
            beaconsPerFingerprint[fingerprint.spot].append(fingerprint.fingerprint.entries.count)
        }
        let spots = zip(survey.spots, beaconsPerFingerprint).map { spot, counts in
            let median = counts.isEmpty ? 0 : counts.sorted()[counts.count / 2]
            return Components.Schemas.SpotCoverage(
                name: spot.name, x: spot.x, y: spot.y, floor: spot.floor, zone: spot.zone, fingerprints: counts.count,
                medianBeacons: median, thin: counts.count < 3 || median < 3)
        }
        var successor: [String: String] = [:]
        // Newest first: the latest replacement of a beacon names its successor.
        for replacement in replacements where replacement.kind == .replace && replacement.undoneAt == nil {
            if successor[replacement.old] == nil, let new = replacement.new { successor[replacement.old] = new }
        }
        let beacons = survey.venue.beacons.map { beacon in
            let id = beacon.id.description
            let state: Components.Schemas.BeaconState =
                switch beacon.status {
                case .active: .active
                case .retired: successor[id] == nil ? .retired : .replaced
                }
            return Components.Schemas.CoverageBeacon(
                id: id, label: beacon.label, x: beacon.x, y: beacon.y, floor: beacon.floor, status: state,
                replacedBy: state == .replaced ? successor[id] : nil)
        }
        self.init(venue: survey.venue.id, revision: survey.revision, spots: spots, beacons: beacons)
    }
}
