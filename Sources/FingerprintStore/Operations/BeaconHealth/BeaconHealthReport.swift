public import Foundation
public import Positioning

/// A venue's beacon health for people and programs: every active beacon of the venue (and every unknown
/// id reported) with its state, label and place, the open proposals, and what matching makes of it. What
/// `survey beacons` prints and `GET /v1/venues/{venue}/beacons` answers.
public struct BeaconHealthReport: Sendable, Codable {
    public struct Item: Sendable, Codable {
        public var health: BeaconHealth
        public var label: String?
        /// False for an id the survey does not have (an unknown beacon).
        public var surveyed: Bool
        /// True for an id the venue has as retired.
        public var retired: Bool
        public var held: Bool
        public var x: Double?
        public var y: Double?
        public var floor: Int?
    }

    public var venue: String
    /// The venue revision the monitor's beacons are of; nil before any evidence.
    public var revision: Int?
    public var version: Int?
    public var updatedAt: Date?
    /// Located samples taken as evidence so far.
    public var samples: Int
    public var recentGain: Double?
    public var items: [Item]
    public var proposals: [StoredProposal]
    public var degraded: DegradedVenue
    public var rules: BeaconHealthRules?
}

extension FingerprintStore {
    /// `venue`'s beacon health (``BeaconHealthReport``), in one read transaction.
    public func beaconHealthReport(of venue: String) async throws -> BeaconHealthReport {
        try await sqlRead { db in
            let details = try await self.venueDetails(venue, db)
            let stored = try await self.storedBeaconHealth(of: venue, db)
            let proposals = try await db.rows("SELECT * FROM beaconProposal WHERE venueId = \(venue) AND status = 'open' ORDER BY id")
                .map(Self.proposalRecord)
            let known = Dictionary(details.beacons.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            var items: [BeaconHealthReport.Item] = []
            var seen = Set<BeaconID>()
            for health in stored?.monitor.health ?? [] {
                let beacon = known[health.beacon]
                seen.insert(health.beacon)
                items.append(BeaconHealthReport.Item(
                    health: health, label: beacon?.label, surveyed: health.state != .unknownBeacon, retired: beacon?.status == .retired,
                    held: stored?.monitor.isHeld(health.beacon) ?? false, x: beacon?.x, y: beacon?.y, floor: beacon?.floor))
            }
            // Active beacons the monitor does not follow (never heard in the survey, or no evidence yet).
            for beacon in details.activeBeacons where !seen.contains(beacon.id) {
                items.append(BeaconHealthReport.Item(
                    health: BeaconHealth(
                        beacon: beacon.id, state: .insufficientEvidence, since: nil, offset: nil, offsetUncertainty: nil, recentDifference: nil,
                        silentProgress: 0, irregularSince: nil, evidence: BeaconEvidence()),
                    label: beacon.label, surveyed: true, retired: false, held: false, x: beacon.x, y: beacon.y, floor: beacon.floor))
            }
            return BeaconHealthReport(
                venue: venue, revision: stored?.revision, version: stored?.version, updatedAt: stored?.updatedAt,
                samples: stored?.monitor.samples ?? 0, recentGain: stored?.monitor.recentGain, items: items, proposals: proposals,
                degraded: stored?.degraded ?? .intact, rules: stored?.monitor.rules)
        }
    }
}
