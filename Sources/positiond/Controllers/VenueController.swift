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

    func getVenueCoverage(_ input: Operations.GetVenueCoverage.Input) async throws -> Operations.GetVenueCoverage.Output {
        try RequestScope.current.require(.locate)
        return .ok(.init(body: .json(try catalog.snapshot(named: input.path.venue).coverage)))
    }

    /// The stateless answer to `samples` in `venue`: one window through the venue's locate pipeline.
    ///
    /// - Throws: 422 when the samples hold nothing of the venue (``LocateRefusal``).
    ///
    /// The samples are matched under the venue's beacon health (``HealthOverlay``), and a located window is
    /// handed to the health collector as evidence, as heard.
    func locate(_ samples: [Sample], in venue: VenueSnapshot) throws -> Components.Schemas.Locate {
        var result: LocationResult
        do {
            result = try venue.health.pipeline.locate(venue.health.matched(samples))
        } catch {
            locateOutcomes.rejected.increment()
            throw HTTPError(.unprocessableContent, message: error.message(venue: venue.details.id))
        }
        if let position = result.position {
            locateOutcomes.located.increment()
            result.outcome = .located(venue.health.widened(position))
            // One window is one place: its newest sample stands for it.
            if let newest = samples.max(by: { $0.time < $1.time }) {
                beaconHealth?.add(newest, at: position, venue: venue.details.id, revision: venue.revision, device: "anonymous")
            }
        } else {
            locateOutcomes.unknown.increment()
        }
        return Components.Schemas.Locate(venue: venue.details.id, result: result, revision: venue.revision, anchor: venue.details.geo)
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
