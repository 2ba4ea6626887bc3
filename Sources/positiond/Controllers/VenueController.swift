import FingerprintStore
import Foundation
import Hummingbird
import Logging
import Positioning

/// `/v1/venues`: venues, stateless locate, proximity.
struct VenueController {
    let store: FingerprintStore
    let catalog: VenueCatalog
    let parser: SampleParser
    let outcomes = Observability.LocateOutcomes(route: "locate")

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get(use: list)
        routes.get(":venue", use: show)
        routes.post(":venue/locate", use: locate)
        routes.post(":venue/proximity", use: proximity)
        return routes
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> VenueListResponse {
        try context.require(.locate)
        return VenueListResponse(venues: try await store.venues())
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> VenueResponse {
        try context.require(.locate)
        return VenueResponse(try catalog.snapshot(for: request, context).details)
    }

    @Sendable func locate(_ request: Request, context: AppRequestContext) async throws -> LocateResponse {
        try context.require(.locate)
        let venue = try catalog.snapshot(for: request, context)
        let samples = try await parser.samples(of: request, context: context, device: "anonymous")
        let configuration = venue.configuration
        // Within one request a frozen beacon can only show in long bursts; the tracked route keeps history.
        let cleaned = samples.map(configuration.builder.cleaner.clean)
        let live = StuckBeaconDetector.removingStuckReadings(from: cleaned, minimumRepeats: configuration.tracking.stuckRepeats).samples
        let query = try knownBeacons(in: live, venue: venue, builder: configuration.builder, outcomes: outcomes)
        let result = configuration.locator.locate(query, in: venue.map)
        (result.position == nil ? outcomes.unknown : outcomes.located).increment()
        return LocateResponse(
            venue: venue.details.id, report: LocationReport(result, revision: venue.revision), revision: venue.revision)
    }

    @Sendable func proximity(_ request: Request, context: AppRequestContext) async throws -> ProximityResponse {
        try context.require(.locate)
        let venue = try catalog.snapshot(for: request, context)
        let samples = try await parser.samples(of: request, context: context, device: "anonymous")
        let heard = samples.map { sample in
            var sample = sample
            sample.readings.removeAll { !venue.activeBeacons.contains($0.beacon) }
            return sample
        }
        guard heard.contains(where: { !$0.readings.isEmpty }) else {
            throw HTTPError(.unprocessableContent, message: "no beacon of venue '\(venue.details.id)' was heard in the samples")
        }
        func candidates(_ list: [ProximityDecider.Candidate]) -> [ProximityResponse.Candidate] {
            list.map {
                ProximityResponse.Candidate(
                    beacon: $0.beacon.description, spot: venue.spotOfBeacon[$0.beacon]?.name, meanRssi: $0.meanRSSI,
                    samples: $0.samples, strongestIn: $0.strongestIn)
            }
        }
        switch venue.configuration.proximity.decide(heard) {
        case .nearest(let winner, let margin, let runnerUp):
            return ProximityResponse(
                decision: "nearest", spot: venue.spotOfBeacon[winner.beacon], beacon: winner.beacon.description,
                marginDb: margin.isFinite ? margin : nil, reason: nil, candidates: candidates([winner] + (runnerUp.map { [$0] } ?? [])))
        case .undecided(let list, let reason):
            return ProximityResponse(decision: "undecided", reason: reason.message, candidates: candidates(list))
        case .nothing(let reason):
            return ProximityResponse(decision: "nothing", reason: reason.message, candidates: [])
        }
    }

}

/// The query of cleaned `samples` in `venue`, or 422 when nothing usable of the venue was heard.
func knownBeacons(
    in samples: [Sample], venue: VenueSnapshot, builder: FingerprintBuilder, outcomes: Observability.LocateOutcomes
) throws -> QueryVector {
    let fingerprint = try usableFingerprint(of: samples, builder: builder, outcomes: outcomes)
    let query = venue.map.query(for: fingerprint)
    guard query.presentCount > 0 else { throw noKnownBeacon(in: fingerprint, venue: venue, outcomes: outcomes) }
    return query
}

/// The fingerprint of cleaned `samples`, or 422 unless it holds a beacon of `venue`'s radio map; for
/// routes that only need to know the body is worth acting on.
func knownFingerprint(
    of samples: [Sample], venue: VenueSnapshot, builder: FingerprintBuilder, outcomes: Observability.LocateOutcomes
) throws -> Fingerprint {
    let fingerprint = try usableFingerprint(of: samples, builder: builder, outcomes: outcomes)
    guard fingerprint.entries.keys.contains(where: { venue.map.column(of: $0) != nil }) else {
        throw noKnownBeacon(in: fingerprint, venue: venue, outcomes: outcomes)
    }
    return fingerprint
}

private func usableFingerprint(
    of samples: [Sample], builder: FingerprintBuilder, outcomes: Observability.LocateOutcomes
) throws -> Fingerprint {
    do {
        return try builder.fingerprint(ofCleaned: samples)
    } catch {
        outcomes.rejected.increment()
        throw HTTPError(.unprocessableContent, message: "no known beacon: no usable beacon reading in the samples (all empty, 0 or out of range)")
    }
}

private func noKnownBeacon(in fingerprint: Fingerprint, venue: VenueSnapshot, outcomes: Observability.LocateOutcomes) -> HTTPError {
    outcomes.rejected.increment()
    let heard = fingerprint.beacons.prefix(5).map(\.description).joined(separator: ", ")
    return HTTPError(.unprocessableContent, message: "no known beacon: none of the \(fingerprint.entries.count) beacons heard (\(heard)) is surveyed in venue '\(venue.details.id)'")
}
