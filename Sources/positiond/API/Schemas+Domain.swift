package import FingerprintStore
import Foundation
package import Positioning
package import ScanFormats

// The generated types of openapi.yaml, made from the domain's values: the one place where the daemon's
// answers take the shape the contract gives them.

/// The store's venue summary (inside the extension below, `VenueSummary` names the generated type).
package typealias StoredVenueSummary = VenueSummary

extension Components.Schemas.Position {
    /// `position` with its `lat`/`lon` when the venue has an `anchor`.
    package init(_ position: Position, anchor: GeoAnchor?) {
        let position = position.anchored(by: anchor)
        self.init(
            x: position.x, y: position.y, floor: position.floor, accuracyM: position.accuracy, spot: position.spot,
            zone: position.zone, lat: position.lat, lon: position.lon,
            covarianceM2: position.covariance.map { .init(xx: $0.xx, xy: $0.xy, yy: $0.yy) })
    }
}

extension Components.Schemas.GeoAnchor {
    package init(_ anchor: GeoAnchor) {
        self.init(lat: anchor.lat, lon: anchor.lon, bearing: anchor.bearing)
    }
}

extension Components.Schemas.Candidate {
    package init(_ candidate: SpotCandidate) {
        self.init(
            spot: candidate.spot.name, floor: candidate.spot.floor, zone: candidate.spot.zone, distance: Double(candidate.distance))
    }
}

extension Components.Schemas.UnknownReasonCode {
    package init(_ code: UnknownReason.Code) {
        switch code {
        case .noKnownBeacon: self = .noKnownBeacon
        case .tooFewBeacons: self = .tooFewBeacons
        case .noCommonBeacon: self = .noCommonBeacon
        case .tooFar: self = .tooFar
        }
    }
}

extension Components.Schemas.Reason {
    package init(_ reason: UnknownReason) {
        self.init(code: .init(reason.code), message: reason.description)
    }
}

/// The parts of a ``LocationResult`` that the locate answer, the device's raw answer and the survey's
/// JSON share.
struct LocationFields {
    package var status: Components.Schemas.LocationStatus
    package var position: Components.Schemas.Position?
    package var reason: Components.Schemas.Reason?
    package var candidates: [Components.Schemas.Candidate]
    package var matchedBeacons: Int
    package var unmappedBeacons: [String]

    package init(_ result: LocationResult, anchor: GeoAnchor?) {
        switch result.outcome {
        case .located(let position):
            status = .located
            self.position = .init(position, anchor: anchor)
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
    package init(venue: String, result: LocationResult, revision: Int, anchor: GeoAnchor?) {
        let fields = LocationFields(result, anchor: anchor)
        self.init(
            venue: venue, status: fields.status, position: fields.position, reason: fields.reason, candidates: fields.candidates,
            matchedBeacons: fields.matchedBeacons, unmappedBeacons: fields.unmappedBeacons, revision: revision)
    }
}

extension Components.Schemas.LocationReport {
    package init(_ result: LocationResult, revision: Int?, anchor: GeoAnchor?) {
        let fields = LocationFields(result, anchor: anchor)
        self.init(
            status: fields.status, position: fields.position, reason: fields.reason, candidates: fields.candidates,
            matchedBeacons: fields.matchedBeacons, unmappedBeacons: fields.unmappedBeacons, revision: revision)
    }
}

extension Components.Schemas.ZoneEvent {
    package init(_ event: ZoneEvent) {
        self.init(kind: .init(event.kind), zone: event.zone, time: event.time)
    }
}

extension Components.Schemas.ZoneEventKind {
    package init(_ kind: ZoneEvent.Kind) {
        switch kind {
        case .enter: self = .enter
        case .exit: self = .exit
        }
    }
}

extension Components.Schemas.Device {
    package init(
        venue: String, device: String, revision: Int, update: TrackingUpdate, zone: String?, events: [ZoneEvent], anchor: GeoAnchor?,
        track: Components.Schemas.TrackState? = nil
    ) {
        self.init(
            venue: venue, device: device, revision: revision, time: update.time,
            status: update.position == nil ? .unknown : .located, position: update.position.map { .init($0, anchor: anchor) },
            zone: zone, events: events.map(Components.Schemas.ZoneEvent.init), raw: .init(update.raw, revision: revision, anchor: anchor),
            stuckBeacons: update.stuckBeacons.map(\.description), windowSamples: update.windowSamples, track: track)
    }
}

extension Components.Schemas.VenueSummary {
    package init(_ summary: StoredVenueSummary) {
        self.init(
            id: summary.id, name: summary.name, revision: summary.revision, floors: summary.floors,
            activeBeacons: summary.activeBeacons, spots: summary.spots, fingerprints: summary.fingerprints,
            updatedAt: summary.updatedAt)
    }
}

extension Components.Schemas.Spot {
    package init(_ spot: Spot) {
        self.init(name: spot.name, x: spot.x, y: spot.y, floor: spot.floor, zone: spot.zone)
    }
}

extension Components.Schemas.Venue {
    package init(_ details: VenueDetails) {
        self.init(
            id: details.id, name: details.name, revision: details.revision,
            floors: details.floors.map { floor in
                Components.Schemas.Floor(
                    level: floor.level, name: floor.name, hasPlan: floor.plan != nil,
                    plan: floor.plan.flatMap { plan in
                        details.planCorners[floor.level].map { .init(plan, corners: $0, url: "/v1/venues/\(details.id)/floors/\(floor.level)/plan") }
                    })
            },
            spots: details.zones.spots.map(Components.Schemas.Spot.init),
            zones: details.zoneAreas.map(Components.Schemas.ZoneArea.init),
            beacons: details.activeBeacons.map {
                Components.Schemas.Beacon(
                    id: $0.id.description, uuid: $0.id.uuid.uuidString, major: Int($0.id.major), minor: Int($0.id.minor),
                    label: $0.label, x: $0.x, y: $0.y, floor: $0.floor)
            },
            fingerprints: details.fingerprints, geo: details.geo.map(Components.Schemas.GeoAnchor.init))
    }
}

extension Components.Schemas.ZoneArea {
    package init(_ area: ZoneArea) {
        self.init(name: area.name, floor: area.floor, polygon: area.polygon.map { [$0.x, $0.y] })
    }
}

extension Components.Schemas.FloorPlan {
    package init(_ placement: FloorPlanPlacement, corners: FloorPlanCorners, url: String) {
        // The stored image's content matched its name's extension when it was stored.
        let mediaType: Components.Schemas.FloorPlan.MediaTypePayload =
            switch PlanMediaType(pathExtension: placement.image) {
            case .png: .imagePng
            case .jpeg: .imageJpeg
            case .svg, nil: .imageSvgXml
            }
        func point(_ point: FloorPlanPlacement.Point) -> Components.Schemas.VenuePoint { .init(x: point.x, y: point.y) }
        let referencePoints: [Components.Schemas.FloorPlan.ReferencePointsPayloadPayload]? =
            switch placement.anchoring {
            case .corners: nil
            case .referencePoints(let first, let second): [first, second].map { .init(pixel: point($0.pixel), venue: point($0.venue)) }
            }
        self.init(
            mediaType: mediaType, topLeft: point(corners.topLeft), topRight: point(corners.topRight),
            bottomRight: point(corners.bottomRight), bottomLeft: point(corners.bottomLeft), referencePoints: referencePoints, url: url)
    }
}

extension Components.Schemas.Proximity {
    package init(_ decision: ProximityDecider.Decision, spotOfBeacon: [BeaconID: Spot]) {
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
    package init(_ reason: ProximityDecider.UndecidedReason) {
        let code: Components.Schemas.ProximityReasonCode =
            switch reason.code {
            case .tooFewSamples: .tooFewSamples
            case .marginTooSmall: .marginTooSmall
            case .rarelyStrongest: .rarelyStrongest
            }
        self.init(code: code, message: reason.message)
    }

    package init(_ reason: ProximityDecider.NothingReason) {
        let code: Components.Schemas.ProximityReasonCode =
            switch reason.code {
            case .noSamples: .noSamples
            case .noUsableReading: .noUsableReading
            }
        self.init(code: code, message: reason.message)
    }
}

extension Components.Schemas.Coverage {
    package init(_ coverage: VenueCoverage) {
        self.init(
            venue: coverage.venue, revision: coverage.revision, tunedRevision: coverage.tunedRevision,
            spots: coverage.spots.map {
                Components.Schemas.SpotCoverage(
                    name: $0.spot.name, x: $0.spot.x, y: $0.spot.y, floor: $0.spot.floor, zone: $0.spot.zone,
                    fingerprints: $0.fingerprints, medianBeacons: $0.medianBeacons, thin: $0.isThin,
                    crossValidation: $0.crossValidation.map {
                        Components.Schemas.SpotCrossValidation(meanErrorM: $0.meanError, located: $0.located, unknown: $0.unknown)
                    })
            },
            zones: coverage.zoneAreas.map(Components.Schemas.ZoneArea.init),
            beacons: coverage.beacons.map {
                let state: Components.Schemas.BeaconState =
                    switch $0.state {
                    case .active: .active
                    case .retired: .retired
                    case .replaced: .replaced
                    }
                return Components.Schemas.CoverageBeacon(
                    id: $0.beacon.id.description, label: $0.beacon.label, x: $0.beacon.x, y: $0.beacon.y, floor: $0.beacon.floor,
                    status: state, replacedBy: $0.replacedBy?.description)
            })
    }
}
