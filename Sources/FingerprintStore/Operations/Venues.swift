public import ScanFormats
public import Foundation
public import Positioning

/// A venue in a listing.
public struct VenueSummary: Hashable, Sendable, Codable {
    public var id: String
    public var name: String
    public var revision: Int
    public var floors: Int
    public var activeBeacons: Int
    public var spots: Int
    public var fingerprints: Int
    public var updatedAt: Date
}

/// A beacon as the store knows it.
public struct StoredBeacon: Hashable, Sendable, Codable {
    public var id: BeaconID
    public var label: String?
    public var x: Double?
    public var y: Double?
    public var floor: Int?
    public var measuredPower: Int?
    public var status: BeaconStatus
}

/// A venue with everything positioning needs to describe it.
public struct VenueDetails: Hashable, Sendable, Codable {
    public var id: String
    public var name: String
    public var revision: Int
    public var floors: [VenueDefinition.Floor]
    /// Every beacon, active and retired.
    public var beacons: [StoredBeacon]
    public var spots: [Spot]
    public var fingerprints: Int
    /// Where the venue lies on the Earth, when venue.json said.
    public var geo: GeoAnchor?
    /// The zones drawn as polygons, in the order they were first imported.
    public var zoneAreas: [ZoneArea]
    /// Where each floor's plan image lies (its corners in venue metres), by level.
    public var planCorners: [Int: FloorPlanCorners]

    /// Where the venue's zones are, with every spot's zone resolved (``ZoneLayout``).
    public var zones: ZoneLayout { ZoneLayout(spots: spots, areas: zoneAreas) }

    public var activeBeacons: [StoredBeacon] { beacons.filter { $0.status == .active } }

    /// The venue in the `venue.json` interchange format; retired beacons are listed with their status
    /// only when `includingRetired` is set (exports keep them so fingerprints can refer to them).
    public func definition(includingRetired: Bool = false) -> VenueDefinition {
        VenueDefinition(
            id: id, name: name, floors: floors,
            beacons: (includingRetired ? beacons : activeBeacons).map {
                VenueDefinition.Beacon(
                    uuid: $0.id.uuid.uuidString, major: Int($0.id.major), minor: Int($0.id.minor), x: $0.x, y: $0.y,
                    floor: $0.floor, label: $0.label, measuredPower: $0.measuredPower,
                    status: $0.status == .active ? nil : $0.status)
            },
            spots: spots, geo: geo, zones: zoneAreas.isEmpty ? nil : zoneAreas)
    }
}

/// What `importVenue` changed.
public struct VenueImportSummary: Hashable, Sendable, Codable {
    public var venue: String
    public var created: Bool
    public var floorsAdded: Int
    public var beaconsAdded: Int
    public var beaconsUpdated: Int
    public var spotsAdded: Int
    public var spotsUpdated: Int
    /// Floor plans added or replaced (a plan with the same image and placement is left as it is).
    public var plansSet: Int
    /// Zone polygons added or redrawn.
    public var zonesSet: Int
    /// The venue's revision after the import.
    public var revision: Int
    /// Whether the import changed anything that affects positioning (and so bumped the revision).
    public var changedPositioning: Bool
}

extension FingerprintStore {
    /// Creates a venue from its definition, or updates it: floors, beacons, spots and zone polygons are
    /// added or updated by their identity; nothing is deleted (fingerprints may refer to it). One transaction.
    ///
    /// - Parameter plans: the image of every floor whose definition has a `plan`, by level (the caller
    ///   reads the files the definition names).
    public func importVenue(_ definition: VenueDefinition, plans: [Int: FloorPlanImage] = [:]) async throws -> VenueImportSummary {
        let summary = try await sqlWrite { transaction in try await self.importVenue(definition, plans: plans, transaction) }
        logger.debug("venue imported", metadata: ["venue.id": "\(definition.id)", "venue.revision": "\(summary.revision)"])
        return summary
    }

    /// ``importVenue(_:)`` inside the caller's transaction.
    func importVenue(_ definition: VenueDefinition, plans: [Int: FloorPlanImage], _ db: any SQLTransaction) async throws -> VenueImportSummary {
        let problems = definition.problems()
        guard problems.isEmpty else { throw StoreError.invalidVenue(problems: problems) }
        do {
            let now = Date()
            var summary = VenueImportSummary(
                venue: definition.id, created: false, floorsAdded: 0, beaconsAdded: 0, beaconsUpdated: 0,
                spotsAdded: 0, spotsUpdated: 0, plansSet: 0, zonesSet: 0, revision: 1, changedPositioning: false)
            var venue: VenueRecord
            // A definition without `geo` keeps the stored anchor (an import deletes nothing); a different one
            // changes what every answer says, so it counts as a change to positioning.
            var geoChanged = false
            if var existing = try await VenueRecord.find(definition.id, db) {
                existing.name = definition.name
                existing.updatedAt = now
                if let geo = definition.geo, geo != existing.geo {
                    existing.geo = geo
                    geoChanged = true
                }
                venue = existing
            } else {
                venue = VenueRecord(id: definition.id, name: definition.name, revision: 1, createdAt: now, updatedAt: now)
                venue.geo = definition.geo
                summary.created = true
            }
            try await venue.save(db)

            for floor in definition.floors {
                let record = FloorRecord(venueId: venue.id, level: floor.level, name: floor.name)
                if try await !FloorRecord.exists(venue: venue.id, level: floor.level, db) {
                    summary.floorsAdded += 1
                }
                try await record.save(db)
                if let placement = floor.plan {
                    guard let image = plans[floor.level] else {
                        throw StoreError.invalidInput("floor \(floor.level)'s plan names '\(placement.image)', but no image was given for it")
                    }
                    if try await setFloorPlan(venue: venue.id, level: floor.level, placement: placement, image: image, now: now, db) {
                        summary.plansSet += 1
                    }
                }
            }

            for beacon in definition.beacons {
                let identity = try beacon.identity()
                let status = beacon.status ?? .active
                var record = BeaconRecord(
                    id: nil, venueId: venue.id, uuid: identity.uuid.uuidString, major: Int(identity.major),
                    minor: Int(identity.minor), label: beacon.label, x: beacon.x, y: beacon.y, floor: beacon.floor,
                    measuredPower: beacon.measuredPower, status: status)
                if let existing = try await BeaconRecord.find(identity, in: venue.id, db) {
                    record.id = existing.id
                    // A retired beacon stays retired: re-importing an old venue.json must not undo maintenance.
                    record.status = existing.status
                    if record != existing {
                        try await record.update(db)
                        summary.beaconsUpdated += 1
                    }
                } else {
                    try await record.insert(db)
                    summary.beaconsAdded += 1
                }
            }

            for spot in definition.spots {
                var record = SpotRecord(
                    id: nil, venueId: venue.id, name: spot.name, x: spot.x, y: spot.y, floor: spot.floor, zone: spot.zone)
                if let existing = try await SpotRecord.find(named: spot.name, in: venue.id, db) {
                    record.id = existing.id
                    if record != existing {
                        try await record.update(db)
                        summary.spotsUpdated += 1
                    }
                } else {
                    try await record.insert(db)
                    summary.spotsAdded += 1
                }
            }

            for area in definition.zones ?? [] {
                let record = try ZoneAreaRecord(venueId: venue.id, area: area)
                let existing = try await ZoneAreaRecord.find(venue: venue.id, level: area.floor, name: area.name, db)
                if existing != record {
                    try await record.save(db)
                    summary.zonesSet += 1
                }
            }

            summary.changedPositioning = !summary.created
                && (geoChanged || summary.plansSet > 0 || summary.zonesSet > 0 || summary.beaconsAdded + summary.beaconsUpdated + summary.spotsAdded + summary.spotsUpdated > 0)
            if summary.changedPositioning { try await bumpRevision(of: venue.id, db) }
            summary.revision = try await revision(of: venue.id, db)
            return summary
        }
    }

    /// Every venue, by id.
    /// Read without blocking a thread of Swift's concurrency pool.
    public func venues() async throws -> [VenueSummary] {
        try await sqlRead { try await Self.venueSummaries($0) }
    }

    private static func venueSummaries(_ transaction: any SQLTransaction) async throws -> [VenueSummary] {
        let rows = try await transaction.rows("""
            SELECT v.id, v.name, v.revision, v.updatedAt,
              (SELECT COUNT(*) FROM floor f WHERE f.venueId = v.id) AS floors,
              (SELECT COUNT(*) FROM beacon b WHERE b.venueId = v.id AND b.status = 'active') AS beacons,
              (SELECT COUNT(*) FROM spot s WHERE s.venueId = v.id) AS spots,
              (SELECT COUNT(*) FROM fingerprint fp JOIN spot s ON s.id = fp.spotId WHERE s.venueId = v.id) AS fingerprints
            FROM venue v ORDER BY v.id
            """)
        return try rows.map { row in
            VenueSummary(
                id: try row.text("id"), name: try row.text("name"), revision: Int(try row.integer("revision")),
                floors: Int(try row.integer("floors")), activeBeacons: Int(try row.integer("beacons")),
                spots: Int(try row.integer("spots")), fingerprints: Int(try row.integer("fingerprints")),
                updatedAt: try row.date("updatedAt"))
        }
    }

    /// One venue with its floors, beacons and spots.
    public func venue(_ id: String) async throws -> VenueDetails {
        try await sqlRead { transaction in try await self.venueDetails(id, transaction) }
    }

    /// The current revision of every venue: what the daemon polls to notice changes.
    /// Read without blocking a thread of Swift's concurrency pool.
    public func revisions() async throws -> [String: Int] {
        try await sqlRead { try await Self.revisions($0) }
    }

    private static func revisions(_ transaction: any SQLTransaction) async throws -> [String: Int] {
        var revisions: [String: Int] = [:]
        for row in try await transaction.rows("SELECT id, revision FROM venue") {
            revisions[try row.text("id")] = Int(try row.integer("revision"))
        }
        return revisions
    }

    /// Whether the database answers a query: the daemon's readiness check.
    public func isReachable() async -> Bool {
        (try? await sqlRead { try await $0.rows("SELECT 1 AS one") }) != nil
    }

    /// The venue's row, or ``StoreError/unknownVenue(_:)``: the existence check of every operation.
    @discardableResult
    func venueRecord(_ id: String, _ transaction: any SQLTransaction) async throws -> VenueRecord {
        guard let venue = try await VenueRecord.find(id, transaction) else { throw StoreError.unknownVenue(id) }
        return venue
    }

    func venueDetails(_ id: String, _ db: any SQLTransaction) async throws -> VenueDetails {
        let venue = try await venueRecord(id, db)
        let floors = try await FloorRecord.all(of: id, db)
        let beacons = try await BeaconRecord.all(of: id, db)
        let plans = try await floorPlacements(id, db)
        let spots = try await SpotRecord.all(of: id, db)
        let zoneAreas = try await ZoneAreaRecord.all(of: id, db)
        let fingerprints = try await db.count(
            "SELECT COUNT(*) FROM fingerprint fp JOIN spot s ON s.id = fp.spotId WHERE s.venueId = \(id)")
        return VenueDetails(
            id: venue.id, name: venue.name, revision: venue.revision,
            floors: floors.map { VenueDefinition.Floor(level: $0.level, name: $0.name, plan: plans[$0.level]?.placement) },
            beacons: try beacons.map { try $0.stored() }.sorted { $0.id < $1.id },
            spots: spots.map(\.spot),
            fingerprints: fingerprints, geo: venue.geo, zoneAreas: try zoneAreas.map { try $0.area() },
            planCorners: plans.mapValues(\.corners))
    }

    /// Increments a venue's revision: every change that affects positioning calls this inside its transaction.
    package func bumpRevision(of venue: String, _ transaction: any SQLTransaction) async throws {
        try await transaction.execute("UPDATE venue SET revision = revision + 1, updatedAt = \(Date()) WHERE id = \(venue)")
        // Delivered when the transaction commits (never for a rollback): replicas sharing a PostgreSQL store
        // reload the venue instead of polling.
        try await transaction.notify(channel: StoreChannels.revisions, payload: venue)
    }

    /// The venue's current revision; ``StoreError/unknownVenue(_:)`` when there is none.
    func revision(of venue: String, _ transaction: any SQLTransaction) async throws -> Int {
        guard let row = try await transaction.rows("SELECT revision FROM venue WHERE id = \(venue)").first else {
            throw StoreError.unknownVenue(venue)
        }
        return Int(try row.integer("revision"))
    }
}

extension BeaconRecord {
    func stored() throws -> StoredBeacon {
        StoredBeacon(
            id: try identity, label: label, x: x, y: y, floor: floor, measuredPower: measuredPower, status: status)
    }
}

extension SpotRecord {
    var spot: Spot { Spot(name: name, x: x, y: y, floor: floor, zone: zone) }
}
