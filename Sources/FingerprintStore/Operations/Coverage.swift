import Foundation
public import Positioning
public import PositioningTuning
public import ScanFormats

/// Where a venue's survey stands, spot by spot and beacon by beacon: what the live map colours and
/// `survey map` draws, with the thin spots `survey stats` names.
public struct VenueCoverage: Hashable, Sendable, Codable {
    public struct SpotCoverage: Hashable, Sendable, Codable {
        public var spot: Spot
        public var fingerprints: Int
        /// Active beacons a fingerprint of the spot typically sees (the median).
        public var medianBeacons: Int
        /// The spot's leave-one-spot-out error under the venue's stored tuning, as `survey tune` measured it;
        /// nil when the venue was never tuned, was tuned by a version that did not store it, or the spot had
        /// no fingerprint then.
        public var crossValidation: NamedSpotError?
        /// Fewer than 3 fingerprints, or fingerprints that typically see fewer than 3 beacons: record again.
        public var isThin: Bool { RecordSummary.SpotCoverage.isThin(fingerprints: fingerprints, medianBeacons: medianBeacons) }
    }

    /// A beacon's place in the venue's history.
    public enum BeaconState: String, Hashable, Sendable, Codable {
        case active
        /// Retired with no successor (failed or removed).
        case retired
        /// Retired by a replacement that handed its survey to a successor.
        case replaced
    }

    public struct BeaconCoverage: Hashable, Sendable, Codable {
        public var beacon: StoredBeacon
        public var state: BeaconState
        /// The beacon that took over this one's survey (state `replaced`).
        public var replacedBy: BeaconID?
    }

    public var venue: String
    public var revision: Int
    public var floors: [VenueDefinition.Floor]
    /// Every spot, with its zone resolved (its own, else the polygon's it stands in).
    public var spots: [SpotCoverage]
    /// The zones drawn as polygons.
    public var zoneAreas: [ZoneArea]
    /// Every beacon: active, retired and replaced.
    public var beacons: [BeaconCoverage]
    /// The revision the venue's stored tuning was made at (the spots' ``SpotCoverage/crossValidation``
    /// describe the survey as it was then); nil when the venue was never tuned.
    public var tunedRevision: Int?

    public var thinSpots: [SpotCoverage] { spots.filter(\.isThin) }
}

extension FingerprintStore {
    /// The coverage of venue `venueID`, in one read transaction.
    /// Read without blocking a thread of Swift's concurrency pool.
    public func coverage(of venueID: String) async throws -> VenueCoverage {
        try await sqlRead { db in try await self.coverage(of: venueID, db) }
    }

    /// A venue's survey and its coverage, read in one transaction so that both describe the same revision:
    /// what the daemon loads when a venue changes.
    public func surveyAndCoverage(of venueID: String, scale: any RelativePowerScale) async throws -> (survey: VenueSurvey, coverage: VenueCoverage) {
        try await sqlRead { db in (try await self.loadSurvey(of: venueID, scale: scale, db), try await self.coverage(of: venueID, db)) }
    }

    func coverage(of venueID: String, _ db: any SQLTransaction) async throws -> VenueCoverage {
        let venue = try await venueDetails(venueID, db)
        let counts = Dictionary(uniqueKeysWithValues: try await spotCoverage(venueID, db).map { ($0.spot, $0) })
        let tuning = try await tuning(of: venueID, db)
        let errors = Dictionary((tuning?.result.spotErrors ?? []).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let spots = venue.zones.spots.map { spot in
            VenueCoverage.SpotCoverage(
                spot: spot, fingerprints: counts[spot.name]?.total ?? 0, medianBeacons: counts[spot.name]?.medianBeacons ?? 0,
                crossValidation: errors[spot.name])
        }
        // Newest first: the latest replacement of a beacon, not undone, names its successor.
        var successor: [String: String] = [:]
        for replacement in try await replacements(of: venueID, db) where replacement.kind == .replace && replacement.undoneAt == nil {
            if successor[replacement.old] == nil, let new = replacement.new { successor[replacement.old] = new }
        }
        let beacons = venue.beacons.map { beacon in
            let next = successor[beacon.id.description].flatMap { try? BeaconID(parsing: $0) }
            let state: VenueCoverage.BeaconState =
                switch beacon.status {
                case .active: .active
                case .retired: next == nil ? .retired : .replaced
                }
            return VenueCoverage.BeaconCoverage(beacon: beacon, state: state, replacedBy: state == .replaced ? next : nil)
        }
        return VenueCoverage(
            venue: venueID, revision: venue.revision, floors: venue.floors, spots: spots, zoneAreas: venue.zoneAreas, beacons: beacons,
            tunedRevision: tuning?.revision)
    }
}
