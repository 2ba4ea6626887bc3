import FingerprintStore
import Foundation
import Hummingbird
import Positioning

/// `/v1/venues/{venue}/beacons`: the beacons' health from live traffic, and ops' actions on it (scope admin).
extension PositiondAPI {
    func getBeaconHealth(_ input: Operations.GetBeaconHealth.Input) async throws -> Operations.GetBeaconHealth.Output {
        try RequestScope.current.require(.locate)
        let venue = try catalog.snapshot(named: input.path.venue)
        let report = try await answering { try await store.beaconHealthReport(of: venue.details.id) }
        return .ok(.init(body: .json(.init(report, revision: venue.revision, rules: venue.healthRules, labels: venue.details.beaconLabels))))
    }

    func getBeaconHealthHistory(_ input: Operations.GetBeaconHealthHistory.Input) async throws -> Operations.GetBeaconHealthHistory.Output {
        try RequestScope.current.require(.locate)
        let venue = try catalog.snapshot(named: input.path.venue)
        let changes = try await answering { try await store.beaconHealthHistory(of: venue.details.id, limit: input.query.limit ?? 100) }
        let labels = venue.details.beaconLabels
        return .ok(.init(body: .json(.init(venue: venue.details.id, changes: changes.map { .init($0, labels: labels) }))))
    }

    func acceptBeaconProposal(_ input: Operations.AcceptBeaconProposal.Input) async throws -> Operations.AcceptBeaconProposal.Output {
        try RequestScope.current.require(.admin)
        let venue = try catalog.snapshot(named: input.path.venue)
        let dryRun = input.query.dryRun ?? false
        let (proposal, replacement) = try await answering {
            try await store.acceptBeaconProposal(
                venue: venue.details.id, id: input.path.proposal, operator: "api", scale: PositioningConfiguration.defaultScale,
                dryRun: dryRun)
        }
        // The survey changed: the configuration chosen on the old one may no longer be the best.
        if !dryRun { await retuner.retune(venue.details.id) }
        return .ok(.init(body: .json(.init(proposal: .init(proposal, labels: venue.details.beaconLabels), replacement: .init(replacement)))))
    }

    func dismissBeaconProposal(_ input: Operations.DismissBeaconProposal.Input) async throws -> Operations.DismissBeaconProposal.Output {
        try RequestScope.current.require(.admin)
        let venue = try catalog.snapshot(named: input.path.venue)
        let proposal = try await answering {
            try await store.dismissBeaconProposal(venue: venue.details.id, id: input.path.proposal, operator: "api")
        }
        return .ok(.init(body: .json(.init(proposal, labels: venue.details.beaconLabels))))
    }

    func resetBeaconHealth(_ input: Operations.ResetBeaconHealth.Input) async throws -> Operations.ResetBeaconHealth.Output {
        try RequestScope.current.require(.admin)
        let venue = try catalog.snapshot(named: input.path.venue)
        let beacon = try Self.beacon(input.path.beacon, in: venue)
        let change = try await answering {
            try await store.resetBeaconHealth(venue: venue.details.id, beacon: beacon, operator: "api")
        }
        return .ok(.init(body: .json(.init(change, labels: venue.details.beaconLabels))))
    }

    func holdBeacon(_ input: Operations.HoldBeacon.Input) async throws -> Operations.HoldBeacon.Output {
        try RequestScope.current.require(.admin)
        let venue = try catalog.snapshot(named: input.path.venue)
        let beacon = try Self.beacon(input.path.beacon, in: venue)
        guard case .json(let body) = input.body else { throw HTTPError(.unsupportedMediaType) }
        let change = try await answering {
            try await store.holdBeacon(venue: venue.details.id, beacon: beacon, held: body.held, operator: "api")
        }
        return .ok(.init(body: .json(.init(change, labels: venue.details.beaconLabels))))
    }

    /// The beacon `text` names in `venue`, or 404.
    static func beacon(_ text: String, in venue: VenueSnapshot) throws -> BeaconID {
        guard let beacon = venue.details.beacon(named: text) else {
            throw HTTPError(.notFound, message: "'\(text)' is neither a beacon label of venue '\(venue.details.id)' nor UUID:major:minor")
        }
        return beacon
    }

    /// `body`, with the store's errors answered as the API answers them.
    private func answering<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StoreError {
            throw HTTPError.answering(error)
        }
    }
}
