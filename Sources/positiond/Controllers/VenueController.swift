import FingerprintStore
import Foundation
import Hummingbird
import Positioning

/// `/v1/venues`: venues, stateless locate, proximity.
extension PositiondAPI {
    func listVenues(_ input: Operations.ListVenues.Input) async throws -> Operations.ListVenues.Output {
        try RequestScope.current.require(.locate)
        let venues = try await store.venues()
        return .ok(.init(body: .json(.init(venues: venues.map(Components.Schemas.VenueSummary.init)))))
    }

    func getVenue(_ input: Operations.GetVenue.Input) async throws -> Operations.GetVenue.Output {
        try RequestScope.current.require(.locate)
        return .ok(.init(body: .json(.init(try catalog.snapshot(named: input.path.venue).details))))
    }

    /// The stateless answer to `samples` in `venue`: one window through the venue's locate pipeline.
    func locate(_ samples: [Sample], in venue: VenueSnapshot) throws -> Components.Schemas.Locate {
        let configuration = venue.configuration
        // Within one request a frozen beacon can only show in long bursts; the tracked route keeps history.
        let cleaned = samples.map(configuration.builder.cleaner.clean)
        let live = StuckBeaconDetector.removingStuckReadings(from: cleaned, minimumRepeats: configuration.tracking.stuckRepeats).samples
        let query = try knownBeacons(in: live, venue: venue, builder: configuration.builder, outcomes: locateOutcomes)
        let result = configuration.locator.locate(query, in: venue.map)
        (result.position == nil ? locateOutcomes.unknown : locateOutcomes.located).increment()
        return Components.Schemas.Locate(venue: venue.details.id, result: result, revision: venue.revision)
    }

    func proximity(_ input: Operations.Proximity.Input) async throws -> Operations.Proximity.Output {
        try RequestScope.current.require(.locate)
        let venue = try catalog.snapshot(named: input.path.venue)
        guard case .json(let body) = input.body else { throw HTTPError(.unsupportedMediaType) }
        let samples = try parser.samples(of: body, device: "anonymous")
        let heard = samples.map { sample in
            var sample = sample
            sample.readings.removeAll { !venue.activeBeacons.contains($0.beacon) }
            return sample
        }
        guard heard.contains(where: { !$0.readings.isEmpty }) else {
            throw HTTPError(.unprocessableContent, message: "no beacon of venue '\(venue.details.id)' was heard in the samples")
        }
        return .ok(.init(body: .json(.init(venue.configuration.proximity.decide(heard), spotOfBeacon: venue.spotOfBeacon))))
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
