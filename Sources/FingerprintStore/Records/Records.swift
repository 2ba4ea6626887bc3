package import Foundation
package import Positioning
package import ScanFormats

// Plain rows, one per table, declared once (``TableRow``) and read and written through the SQL seam
// (Rows.swift) on both engines. Not public: the store's public API speaks in Positioning's types and in the
// summaries of this module (`package`, so that the store's tests build and read them).

package struct VenueRecord: Hashable, TableRow {
    package static let table = "venue"
    package static let conflictColumns = ["id"]

    package var id: String
    package var name: String
    package var revision: Int
    package var createdAt: Date
    package var updatedAt: Date
    package var geoLat: Double?
    package var geoLon: Double?
    package var geoBearing: Double?

    /// The venue's anchor: all three columns, or none.
    package var geo: GeoAnchor? {
        get {
            guard let geoLat, let geoLon, let geoBearing else { return nil }
            return GeoAnchor(lat: geoLat, lon: geoLon, bearing: geoBearing)
        }
        set {
            geoLat = newValue?.lat
            geoLon = newValue?.lon
            geoBearing = newValue?.bearing
        }
    }

    package init(id: String, name: String, revision: Int, createdAt: Date, updatedAt: Date, geoLat: Double? = nil, geoLon: Double? = nil, geoBearing: Double? = nil) {
        self.id = id
        self.name = name
        self.revision = revision
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.geoLat = geoLat
        self.geoLon = geoLon
        self.geoBearing = geoBearing
    }
}

package struct FloorRecord: Hashable, TableRow {
    package static let table = "floor"
    package static let conflictColumns = ["venueId", "level"]

    package var venueId: String
    package var level: Int
    package var name: String

    package init(venueId: String, level: Int, name: String) {
        self.venueId = venueId
        self.level = level
        self.name = name
    }
}

/// A zone drawn as a polygon on one floor; `polygon` is its vertices as JSON (`[[x, y], …]`).
package struct ZoneAreaRecord: Hashable, TableRow {
    package static let table = "zoneArea"
    package static let conflictColumns = ["venueId", "level", "name"]

    package var venueId: String
    package var level: Int
    package var name: String
    package var polygon: String

    package init(venueId: String, area: ZoneArea) throws {
        self.venueId = venueId
        self.level = area.floor
        self.name = area.name
        self.polygon = String(decoding: try JSONEncoder().encode(area.polygon), as: UTF8.self)
    }

    /// The stored area; a polygon this build cannot read is an error naming it, never a guess.
    package func area() throws -> ZoneArea {
        do {
            return ZoneArea(name: name, floor: level, polygon: try JSONDecoder().decode([ZoneArea.Vertex].self, from: Data(polygon.utf8)))
        } catch {
            throw StoreError.storageFault("the stored polygon of zone '\(name)' on floor \(level) of venue '\(venueId)' cannot be read (\(error))")
        }
    }
}

package struct FloorPlanRecord: Hashable, TableRow {
    package static let table = "floorPlan"
    package static let conflictColumns = ["venueId", "level"]

    package var venueId: String
    package var level: Int
    package var image: String
    package var mediaType: PlanMediaType
    package var data: Data
    package var topLeftX: Double
    package var topLeftY: Double
    package var bottomRightX: Double
    package var bottomRightY: Double
    package var topRightX: Double
    package var topRightY: Double
    package var referencePoints: String?
    package var updatedAt: Date

    /// The row of a plan, its corners resolved: a placement by reference points needs the image's size.
    package init(venueId: String, level: Int, placement: FloorPlanPlacement, image: FloorPlanImage, updatedAt: Date) throws {
        guard let corners = placement.corners(pixelSize: image.pixelSize) else {
            throw StoreError.invalidInput(
                "floor \(level)'s plan \(placement.image) is placed by reference points, but its size in pixels cannot be read from it (a PNG or JPEG header, or an SVG's viewBox or numeric width and height): give the plan's corners instead, or fix the image")
        }
        self.venueId = venueId
        self.level = level
        self.image = placement.image
        mediaType = image.mediaType
        data = image.data
        (topLeftX, topLeftY) = (corners.topLeft.x, corners.topLeft.y)
        (topRightX, topRightY) = (corners.topRight.x, corners.topRight.y)
        (bottomRightX, bottomRightY) = (corners.bottomRight.x, corners.bottomRight.y)
        if case .referencePoints(let first, let second) = placement.anchoring {
            referencePoints = String(decoding: try JSONEncoder().encode([first, second]), as: UTF8.self)
        }
        self.updatedAt = updatedAt
    }

    /// The placement as it was given, and where it put the image's corners.
    package func placement() throws -> (placement: FloorPlanPlacement, corners: FloorPlanCorners) {
        try Self.placement(
            image: image, referencePoints: referencePoints, topLeft: .init(x: topLeftX, y: topLeftY),
            topRight: .init(x: topRightX, y: topRightY), bottomRight: .init(x: bottomRightX, y: bottomRightY), level: level)
    }

    /// A plan's placement from its columns (shared with the read that skips the image).
    package static func placement(
        image: String, referencePoints: String?, topLeft: FloorPlanPlacement.Point, topRight: FloorPlanPlacement.Point,
        bottomRight: FloorPlanPlacement.Point, level: Int
    ) throws -> (placement: FloorPlanPlacement, corners: FloorPlanCorners) {
        let corners = FloorPlanCorners(topLeft: topLeft, topRight: topRight, bottomRight: bottomRight)
        guard let referencePoints else { return (FloorPlanPlacement(image: image, topLeft: topLeft, bottomRight: bottomRight), corners) }
        let points: [FloorPlanPlacement.ReferencePoint]
        do {
            points = try JSONDecoder().decode([FloorPlanPlacement.ReferencePoint].self, from: Data(referencePoints.utf8))
        } catch {
            throw StoreError.storageFault("the stored reference points of floor \(level)'s plan cannot be read (\(error))")
        }
        guard points.count == 2 else { throw StoreError.storageFault("floor \(level)'s plan has \(points.count) stored reference points, not 2") }
        return (FloorPlanPlacement(image: image, anchoring: .referencePoints(points[0], points[1])), corners)
    }

    /// Whether `other` says the same as this row, whenever it was written.
    package func sameContent(as other: FloorPlanRecord) -> Bool {
        var other = other
        other.updatedAt = updatedAt
        return self == other
    }

    package init(venueId: String, level: Int, image: String, mediaType: PlanMediaType, data: Data, topLeftX: Double, topLeftY: Double, bottomRightX: Double, bottomRightY: Double, topRightX: Double, topRightY: Double, referencePoints: String? = nil, updatedAt: Date) {
        self.venueId = venueId
        self.level = level
        self.image = image
        self.mediaType = mediaType
        self.data = data
        self.topLeftX = topLeftX
        self.topLeftY = topLeftY
        self.bottomRightX = bottomRightX
        self.bottomRightY = bottomRightY
        self.topRightX = topRightX
        self.topRightY = topRightY
        self.referencePoints = referencePoints
        self.updatedAt = updatedAt
    }
}

package struct BeaconRecord: Hashable, IdentifiedRow {
    package static let table = "beacon"
    package static let conflictColumns = ["venueId", "uuid", "major", "minor"]

    package var id: Int64?
    package var venueId: String
    package var uuid: String
    package var major: Int
    package var minor: Int
    package var label: String?
    package var x: Double?
    package var y: Double?
    package var floor: Int?
    package var measuredPower: Int?
    package var status: BeaconStatus

    package init(id: Int64? = nil, venueId: String, uuid: String, major: Int, minor: Int, label: String? = nil, x: Double? = nil, y: Double? = nil, floor: Int? = nil, measuredPower: Int? = nil, status: BeaconStatus) {
        self.id = id
        self.venueId = venueId
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.label = label
        self.x = x
        self.y = y
        self.floor = floor
        self.measuredPower = measuredPower
        self.status = status
    }
}

struct SpotRecord: Hashable, IdentifiedRow {
    package static let table = "spot"
    package static let conflictColumns = ["venueId", "name"]

    package var id: Int64?
    package var venueId: String
    package var name: String
    package var x: Double
    package var y: Double
    package var floor: Int
    package var zone: String?

}

struct SurveySessionRecord: Hashable, IdentifiedRow {
    package static let table = "surveySession"
    package static let conflictColumns = ["id"]

    package var id: Int64?
    package var venueId: String
    package var `operator`: String?
    package var device: String
    package var recordedAt: Date
    package var sourceFile: String?
    package var windowSize: Int

}

struct FingerprintEntryRecord: Hashable, TableRow {
    package static let table = "fingerprintEntry"
    package static let conflictColumns = ["fingerprintId", "beaconId"]

    package var fingerprintId: Int64
    package var beaconId: Int64
    package var relativePower: Double
    package var dispersion: Double
    package var meanRSSI: Double
    package var visibility: Double

}

extension BeaconRecord {
    /// The Positioning identity of this row.
    package var identity: BeaconID {
        get throws { try BeaconID(uuidString: uuid, major: major, minor: minor) }
    }

}
