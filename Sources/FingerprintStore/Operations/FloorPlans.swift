public import ScanFormats
import Foundation

/// A floor's stored plan: its placement as it was given, where that put the image's corners, the image.
public struct StoredFloorPlan: Hashable, Sendable {
    public var placement: FloorPlanPlacement
    public var corners: FloorPlanCorners
    public var image: FloorPlanImage
}

extension FingerprintStore {
    /// Sets or replaces the plan of floor `level` of `venue` and bumps the venue's revision, in one
    /// transaction.
    ///
    /// - Returns: the venue's revision afterwards.
    /// - Throws: ``StoreError/unknownVenue(_:)``, ``StoreError/invalidInput(_:)`` for a floor the venue
    ///   does not have or a placement that is not valid.
    @discardableResult
    public func setFloorPlan(venue: String, level: Int, placement: FloorPlanPlacement, image: FloorPlanImage) async throws -> Int {
        let revision = try await sqlWrite { db in
            try await self.venueRecord(venue, db)
            let problems = placement.problems(level: level)
            guard problems.isEmpty else { throw StoreError.invalidInput(problems.joined(separator: "; ")) }
            guard try await FloorRecord.exists(venue: venue, level: level, db) else {
                let levels = try await FloorRecord.all(of: venue, db).map(\.level)
                throw StoreError.invalidInput(
                    "venue '\(venue)' has no floor \(level) (its floors: \(levels.map(String.init).joined(separator: ", ")))")
            }
            try await self.setFloorPlan(venue: venue, level: level, placement: placement, image: image, now: Date(), db)
            try await self.bumpRevision(of: venue, db)
            return try await self.revision(of: venue, db)
        }
        logger.debug("floor plan set", metadata: ["venue.id": "\(venue)", "floor": "\(level)", "venue.revision": "\(revision)"])
        return revision
    }

    /// Writes the plan row inside the caller's transaction; false when the same plan was already there.
    @discardableResult
    func setFloorPlan(venue: String, level: Int, placement: FloorPlanPlacement, image: FloorPlanImage, now: Date, _ db: any SQLTransaction) async throws -> Bool {
        let record = try FloorPlanRecord(venueId: venue, level: level, placement: placement, image: image, updatedAt: now)
        if let existing = try await FloorPlanRecord.find(venue: venue, level: level, db), existing.sameContent(as: record) {
            return false
        }
        try await record.save(db)
        return true
    }

    /// The image of floor `level`'s plan, nil when the floor has none (positiond's call: off the
    /// concurrency pool's threads).
    public func floorPlanImage(venue: String, level: Int) async throws -> FloorPlanImage? {
        try await sqlRead { db in
            try await FloorPlanRecord.find(venue: venue, level: level, db)
                .map { FloorPlanImage(data: $0.data, mediaType: $0.mediaType) }
        }
    }

    /// Every plan of `venue` by level: its placement as given, where that puts the image's corners, and
    /// the image. What `survey export` writes and `survey map` draws.
    public func floorPlans(of venue: String) async throws -> [Int: StoredFloorPlan] {
        try await sqlRead { db in
            try await self.venueRecord(venue, db)
            var plans: [Int: StoredFloorPlan] = [:]
            for record in try await FloorPlanRecord.all(of: venue, db) {
                let (placement, corners) = try record.placement()
                plans[record.level] = StoredFloorPlan(
                    placement: placement, corners: corners, image: FloorPlanImage(data: record.data, mediaType: record.mediaType))
            }
            return plans
        }
    }

    /// The placement of every plan of `venue` and its corners, by level, without reading the images.
    func floorPlacements(_ venue: String, _ db: any SQLTransaction) async throws -> [Int: (placement: FloorPlanPlacement, corners: FloorPlanCorners)] {
        var plans: [Int: (placement: FloorPlanPlacement, corners: FloorPlanCorners)] = [:]
        for row in try await db.rows("""
            SELECT level, image, referencePoints, topLeftX, topLeftY, topRightX, topRightY, bottomRightX, bottomRightY
            FROM floorPlan WHERE venueId = \(venue)
            """)
        {
            let level = try row.int("level")
            plans[level] = try FloorPlanRecord.placement(
                image: try row.text("image"), referencePoints: try row.optionalText("referencePoints"),
                topLeft: .init(x: try row.real("topLeftX"), y: try row.real("topLeftY")),
                topRight: .init(x: try row.real("topRightX"), y: try row.real("topRightY")),
                bottomRight: .init(x: try row.real("bottomRightX"), y: try row.real("bottomRightY")), level: level)
        }
        return plans
    }
}
