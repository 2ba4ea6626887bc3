import Foundation
import Positioning
import ScanFormats

// Plain rows, one per table, declared once (``TableRow``) and read and written through the SQL seam (Rows.swift) on both engines. They stay internal: the store's public API speaks in Positioning's
// types and in the summaries of this module.

struct VenueRecord: Hashable, TableRow {
    static let table = "venue"
    static let conflictColumns = ["id"]

    var id: String
    var name: String
    var revision: Int
    var createdAt: Date
    var updatedAt: Date
    var geoLat: Double?
    var geoLon: Double?
    var geoBearing: Double?

    /// The venue's anchor: all three columns, or none.
    var geo: GeoAnchor? {
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
}

struct FloorRecord: Hashable, TableRow {
    static let table = "floor"
    static let conflictColumns = ["venueId", "level"]

    var venueId: String
    var level: Int
    var name: String

}

/// A zone drawn as a polygon on one floor; `polygon` is its vertices as JSON (`[[x, y], …]`).
struct ZoneAreaRecord: Hashable, TableRow {
    static let table = "zoneArea"
    static let conflictColumns = ["venueId", "level", "name"]

    var venueId: String
    var level: Int
    var name: String
    var polygon: String


    init(venueId: String, area: ZoneArea) throws {
        self.venueId = venueId
        self.level = area.floor
        self.name = area.name
        self.polygon = String(decoding: try JSONEncoder().encode(area.polygon), as: UTF8.self)
    }

    /// The stored area; a polygon this build cannot read is an error naming it, never a guess.
    func area() throws -> ZoneArea {
        do {
            return ZoneArea(name: name, floor: level, polygon: try JSONDecoder().decode([ZoneArea.Vertex].self, from: Data(polygon.utf8)))
        } catch {
            throw StoreError.storageFault("the stored polygon of zone '\(name)' on floor \(level) of venue '\(venueId)' cannot be read (\(error))")
        }
    }
}

struct FloorPlanRecord: Hashable, TableRow {
    static let table = "floorPlan"
    static let conflictColumns = ["venueId", "level"]

    var venueId: String
    var level: Int
    var image: String
    var mediaType: PlanMediaType
    var data: Data
    var topLeftX: Double
    var topLeftY: Double
    var bottomRightX: Double
    var bottomRightY: Double
    var topRightX: Double
    var topRightY: Double
    var referencePoints: String?
    var updatedAt: Date


    /// The row of a plan, its corners resolved: a placement by reference points needs the image's size.
    init(venueId: String, level: Int, placement: FloorPlanPlacement, image: FloorPlanImage, updatedAt: Date) throws {
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
    func placement() throws -> (placement: FloorPlanPlacement, corners: FloorPlanCorners) {
        try Self.placement(
            image: image, referencePoints: referencePoints, topLeft: .init(x: topLeftX, y: topLeftY),
            topRight: .init(x: topRightX, y: topRightY), bottomRight: .init(x: bottomRightX, y: bottomRightY), level: level)
    }

    /// A plan's placement from its columns (shared with the read that skips the image).
    static func placement(
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
    func sameContent(as other: FloorPlanRecord) -> Bool {
        var other = other
        other.updatedAt = updatedAt
        return self == other
    }
}

struct BeaconRecord: Hashable, IdentifiedRow {
    static let table = "beacon"
    static let conflictColumns = ["venueId", "uuid", "major", "minor"]

    var id: Int64?
    var venueId: String
    var uuid: String
    var major: Int
    var minor: Int
    var label: String?
    var x: Double?
    var y: Double?
    var floor: Int?
    var measuredPower: Int?
    var status: BeaconStatus

}

struct SpotRecord: Hashable, IdentifiedRow {
    static let table = "spot"
    static let conflictColumns = ["venueId", "name"]

    var id: Int64?
    var venueId: String
    var name: String
    var x: Double
    var y: Double
    var floor: Int
    var zone: String?

}

struct SurveySessionRecord: Hashable, IdentifiedRow {
    static let table = "surveySession"
    static let conflictColumns = ["id"]

    var id: Int64?
    var venueId: String
    var `operator`: String?
    var device: String
    var recordedAt: Date
    var sourceFile: String?
    var windowSize: Int

}

struct FingerprintEntryRecord: Hashable, TableRow {
    static let table = "fingerprintEntry"
    static let conflictColumns = ["fingerprintId", "beaconId"]

    var fingerprintId: Int64
    var beaconId: Int64
    var relativePower: Double
    var dispersion: Double
    var meanRSSI: Double
    var visibility: Double

}

extension BeaconRecord {
    /// The Positioning identity of this row.
    var identity: BeaconID {
        get throws { try BeaconID(uuidString: uuid, major: major, minor: minor) }
    }

}
