import Foundation
import Positioning
import ScanFormats

// Each table's rows read and written through the SQL seam: one statement for both engines. Upserts use
// `ON CONFLICT … DO UPDATE` (SQLite 3.24+, PostgreSQL 9.5+), which keeps the row (and SQLite's rowid) as a
// GRDB `save` did; inserts take their id back with `RETURNING id` (SQLite 3.35+).

extension SQLTransaction {
    /// Runs an `INSERT` and returns the id of the row it made.
    func insertReturningID(_ sql: String, _ arguments: [SQLValue]) throws -> Int64 {
        guard let row = try rows(sql + " RETURNING id", arguments).first else {
            throw StoreError.storageFault("an insert returned no id")
        }
        return try row.integer("id")
    }

    /// The single integer a `SELECT COUNT(*) …` (or any one-value query) returns; 0 for no row or NULL.
    func count(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        guard let value = try rows(sql, arguments).first?.values.first else { return 0 }
        switch value {
        case .integer(let integer): return Int(integer)
        case .real(let real): return Int(real)
        default: return 0
        }
    }
}

extension SQLValue {
    init(_ value: Int?) { self = value.map { SQLValue($0) } ?? .null }
    init(_ value: Int64?) { self = value.map { SQLValue.integer($0) } ?? .null }
    init(_ value: Double?) { self = value.map { SQLValue.real($0) } ?? .null }
    init(_ value: Bool) { self = .integer(value ? 1 : 0) }

    /// The integer held, for hot loops that read columns by position; nil for anything else.
    var int64: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The number held (an integer counts: SQLite keeps whole REALs as integers where affinity allows).
    var double: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
}

extension SQLRow {
    func int(_ column: String) throws(StoreError) -> Int { Int(try integer(column)) }

    func optionalInt(_ column: String) throws(StoreError) -> Int? {
        if case .null = self[column] { return nil }
        return Int(try integer(column))
    }

    func optionalInteger(_ column: String) throws(StoreError) -> Int64? {
        if case .null = self[column] { return nil }
        return try integer(column)
    }

    func optionalReal(_ column: String) throws(StoreError) -> Double? {
        if case .null = self[column] { return nil }
        return try real(column)
    }

    func bool(_ column: String) throws(StoreError) -> Bool { try integer(column) != 0 }

    func blob(_ column: String) throws(StoreError) -> Data {
        switch self[column] {
        case .blob(let data): return data
        // SQLite hands back an empty blob as text when it was bound as such; both mean no bytes.
        case .text(let text): return Data(text.utf8)
        case let other: throw .storageFault("the stored column '\(column)' should hold bytes but holds \(other)")
        }
    }

    /// A stored name of a closed set (a status, a kind, a media type); an unknown one fails the read.
    func named<Value: RawRepresentable<String>>(_ column: String, as type: Value.Type = Value.self) throws(StoreError) -> Value {
        let name = try text(column)
        guard let value = Value(rawValue: name) else {
            throw .storageFault("the stored column '\(column)' holds '\(name)', which this build does not know")
        }
        return value
    }

    func optionalNamed<Value: RawRepresentable<String>>(_ column: String, as type: Value.Type = Value.self) throws(StoreError) -> Value? {
        if case .null = self[column] { return nil }
        return try named(column, as: type)
    }
}

extension VenueRecord {
    static func find(_ id: String, _ transaction: any SQLTransaction) throws -> VenueRecord? {
        try transaction.rows("SELECT * FROM venue WHERE id = ?", [.text(id)]).first.map { row in
            VenueRecord(
                id: try row.text("id"), name: try row.text("name"), revision: try row.int("revision"),
                createdAt: try row.date("createdAt"), updatedAt: try row.date("updatedAt"), geoLat: try row.optionalReal("geoLat"),
                geoLon: try row.optionalReal("geoLon"), geoBearing: try row.optionalReal("geoBearing"))
        }
    }

    /// Inserts the venue, or updates the row with its id.
    func save(_ transaction: any SQLTransaction) throws {
        try transaction.execute("""
            INSERT INTO venue (id, name, revision, createdAt, updatedAt, geoLat, geoLon, geoBearing) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET name = excluded.name, revision = excluded.revision, createdAt = excluded.createdAt,
              updatedAt = excluded.updatedAt, geoLat = excluded.geoLat, geoLon = excluded.geoLon, geoBearing = excluded.geoBearing
            """,
            [.text(id), .text(name), SQLValue(revision), SQLValue(createdAt), SQLValue(updatedAt), SQLValue(geoLat), SQLValue(geoLon), SQLValue(geoBearing)])
    }
}

extension FloorRecord {
    static func all(of venue: String, _ transaction: any SQLTransaction) throws -> [FloorRecord] {
        try transaction.rows("SELECT venueId, level, name FROM floor WHERE venueId = ? ORDER BY level", [.text(venue)]).map { row in
            FloorRecord(venueId: try row.text("venueId"), level: try row.int("level"), name: try row.text("name"))
        }
    }

    static func exists(venue: String, level: Int, _ transaction: any SQLTransaction) throws -> Bool {
        try transaction.count("SELECT COUNT(*) FROM floor WHERE venueId = ? AND level = ?", [.text(venue), SQLValue(level)]) > 0
    }

    func save(_ transaction: any SQLTransaction) throws {
        try transaction.execute(
            "INSERT INTO floor (venueId, level, name) VALUES (?, ?, ?) ON CONFLICT (venueId, level) DO UPDATE SET name = excluded.name",
            [.text(venueId), SQLValue(level), .text(name)])
    }
}

extension ZoneAreaRecord {
    init(row: SQLRow) throws {
        venueId = try row.text("venueId")
        level = try row.int("level")
        name = try row.text("name")
        polygon = try row.text("polygon")
    }

    /// The venue's polygons in the order they were first imported (where they overlap, the first wins).
    static func all(of venue: String, _ transaction: any SQLTransaction) throws -> [ZoneAreaRecord] {
        try transaction.rows("SELECT venueId, level, name, polygon FROM zoneArea WHERE venueId = ? ORDER BY position", [.text(venue)])
            .map(ZoneAreaRecord.init(row:))
    }

    static func find(venue: String, level: Int, name: String, _ transaction: any SQLTransaction) throws -> ZoneAreaRecord? {
        try transaction.rows(
            "SELECT venueId, level, name, polygon FROM zoneArea WHERE venueId = ? AND level = ? AND name = ?",
            [.text(venue), SQLValue(level), .text(name)]
        ).first.map(ZoneAreaRecord.init(row:))
    }

    /// Adds the polygon after every stored one, or redraws the one of the same zone and floor (keeping its
    /// place in the order).
    func save(_ transaction: any SQLTransaction) throws {
        try transaction.execute("""
            INSERT INTO zoneArea (venueId, level, name, polygon, position)
            VALUES (?, ?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM zoneArea))
            ON CONFLICT (venueId, level, name) DO UPDATE SET polygon = excluded.polygon
            """, [.text(venueId), SQLValue(level), .text(name), .text(polygon)])
    }
}

extension FloorPlanRecord {
    init(row: SQLRow) throws {
        venueId = try row.text("venueId")
        level = try row.int("level")
        image = try row.text("image")
        mediaType = try row.named("mediaType")
        data = try row.blob("data")
        topLeftX = try row.real("topLeftX")
        topLeftY = try row.real("topLeftY")
        bottomRightX = try row.real("bottomRightX")
        bottomRightY = try row.real("bottomRightY")
        topRightX = try row.real("topRightX")
        topRightY = try row.real("topRightY")
        referencePoints = try row.optionalText("referencePoints")
        updatedAt = try row.date("updatedAt")
    }

    static func find(venue: String, level: Int, _ transaction: any SQLTransaction) throws -> FloorPlanRecord? {
        try transaction.rows("SELECT * FROM floorPlan WHERE venueId = ? AND level = ?", [.text(venue), SQLValue(level)])
            .first.map(FloorPlanRecord.init(row:))
    }

    static func all(of venue: String, _ transaction: any SQLTransaction) throws -> [FloorPlanRecord] {
        try transaction.rows("SELECT * FROM floorPlan WHERE venueId = ? ORDER BY level", [.text(venue)]).map(FloorPlanRecord.init(row:))
    }

    func save(_ transaction: any SQLTransaction) throws {
        try transaction.execute("""
            INSERT INTO floorPlan (venueId, level, image, mediaType, data, topLeftX, topLeftY, bottomRightX, bottomRightY,
              topRightX, topRightY, referencePoints, updatedAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (venueId, level) DO UPDATE SET image = excluded.image, mediaType = excluded.mediaType, data = excluded.data,
              topLeftX = excluded.topLeftX, topLeftY = excluded.topLeftY, bottomRightX = excluded.bottomRightX,
              bottomRightY = excluded.bottomRightY, topRightX = excluded.topRightX, topRightY = excluded.topRightY,
              referencePoints = excluded.referencePoints, updatedAt = excluded.updatedAt
            """,
            [
                .text(venueId), SQLValue(level), .text(image), .text(mediaType.rawValue), .blob(data), .real(topLeftX), .real(topLeftY),
                .real(bottomRightX), .real(bottomRightY), .real(topRightX), .real(topRightY), SQLValue(referencePoints), SQLValue(updatedAt),
            ])
    }
}

extension BeaconRecord {
    static let columns = "id, venueId, uuid, major, minor, label, x, y, floor, measuredPower, status"

    init(row: SQLRow) throws {
        id = try row.integer("id")
        venueId = try row.text("venueId")
        uuid = try row.text("uuid")
        major = try row.int("major")
        minor = try row.int("minor")
        label = try row.optionalText("label")
        x = try row.optionalReal("x")
        y = try row.optionalReal("y")
        floor = try row.optionalInt("floor")
        measuredPower = try row.optionalInt("measuredPower")
        status = try row.named("status")
    }

    /// Every beacon of the venue (active ones only unless `includeRetired`), in row order.
    static func all(of venue: String, includeRetired: Bool = true, _ transaction: any SQLTransaction) throws -> [BeaconRecord] {
        try transaction.rows(
            "SELECT \(columns) FROM beacon WHERE venueId = ?\(includeRetired ? "" : " AND status = 'active'") ORDER BY id", [.text(venue)]
        ).map(BeaconRecord.init(row:))
    }

    /// The venue's beacon with this identity (canonical, upper-case UUID), whatever its status.
    static func find(_ beacon: BeaconID, in venue: String, _ transaction: any SQLTransaction) throws -> BeaconRecord? {
        try transaction.rows(
            "SELECT \(columns) FROM beacon WHERE venueId = ? AND uuid = ? AND major = ? AND minor = ?",
            [.text(venue), .text(beacon.uuid.uuidString), SQLValue(Int(beacon.major)), SQLValue(Int(beacon.minor))]
        ).first.map(BeaconRecord.init(row:))
    }

    static func find(id: Int64, _ transaction: any SQLTransaction) throws -> BeaconRecord? {
        try transaction.rows("SELECT \(columns) FROM beacon WHERE id = ?", [.integer(id)]).first.map(BeaconRecord.init(row:))
    }

    private var values: [SQLValue] {
        [.text(venueId), .text(uuid), SQLValue(major), SQLValue(minor), SQLValue(label), SQLValue(x), SQLValue(y), SQLValue(floor), SQLValue(measuredPower), .text(status.rawValue)]
    }

    mutating func insert(_ transaction: any SQLTransaction) throws {
        id = try transaction.insertReturningID(
            "INSERT INTO beacon (venueId, uuid, major, minor, label, x, y, floor, measuredPower, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", values)
    }

    func update(_ transaction: any SQLTransaction) throws {
        guard let id else { throw StoreError.storageFault("a beacon without a row cannot be updated") }
        try transaction.execute(
            "UPDATE beacon SET venueId = ?, uuid = ?, major = ?, minor = ?, label = ?, x = ?, y = ?, floor = ?, measuredPower = ?, status = ? WHERE id = ?",
            values + [.integer(id)])
    }
}

extension SpotRecord {
    init(row: SQLRow) throws {
        id = try row.integer("id")
        venueId = try row.text("venueId")
        name = try row.text("name")
        x = try row.real("x")
        y = try row.real("y")
        floor = try row.int("floor")
        zone = try row.optionalText("zone")
    }

    /// The venue's spots in the order they were created (the order of a survey's spot indices).
    static func all(of venue: String, _ transaction: any SQLTransaction) throws -> [SpotRecord] {
        try transaction.rows("SELECT id, venueId, name, x, y, floor, zone FROM spot WHERE venueId = ? ORDER BY id", [.text(venue)])
            .map(SpotRecord.init(row:))
    }

    static func find(named name: String, in venue: String, _ transaction: any SQLTransaction) throws -> SpotRecord? {
        try transaction.rows("SELECT id, venueId, name, x, y, floor, zone FROM spot WHERE venueId = ? AND name = ?", [.text(venue), .text(name)])
            .first.map(SpotRecord.init(row:))
    }

    private var values: [SQLValue] { [.text(venueId), .text(name), .real(x), .real(y), SQLValue(floor), SQLValue(zone)] }

    mutating func insert(_ transaction: any SQLTransaction) throws {
        id = try transaction.insertReturningID("INSERT INTO spot (venueId, name, x, y, floor, zone) VALUES (?, ?, ?, ?, ?, ?)", values)
    }

    func update(_ transaction: any SQLTransaction) throws {
        guard let id else { throw StoreError.storageFault("a spot without a row cannot be updated") }
        try transaction.execute("UPDATE spot SET venueId = ?, name = ?, x = ?, y = ?, floor = ?, zone = ? WHERE id = ?", values + [.integer(id)])
    }
}

extension SurveySessionRecord {
    static func all(of venue: String, _ transaction: any SQLTransaction) throws -> [SurveySessionRecord] {
        try transaction.rows("SELECT * FROM surveySession WHERE venueId = ? ORDER BY id", [.text(venue)]).map { row in
            SurveySessionRecord(
                id: try row.integer("id"), venueId: try row.text("venueId"), operator: try row.optionalText("operator"),
                device: try row.text("device"), recordedAt: try row.date("recordedAt"), sourceFile: try row.optionalText("sourceFile"),
                windowSize: try row.int("windowSize"))
        }
    }

    mutating func insert(_ transaction: any SQLTransaction) throws {
        id = try transaction.insertReturningID(
            "INSERT INTO surveySession (venueId, operator, device, recordedAt, sourceFile, windowSize) VALUES (?, ?, ?, ?, ?, ?)",
            [.text(venueId), SQLValue(`operator`), .text(device), SQLValue(recordedAt), SQLValue(sourceFile), SQLValue(windowSize)])
    }
}

extension FingerprintEntryRecord {
    /// Every survey entry of one beacon row.
    static func all(ofBeacon beacon: Int64, _ transaction: any SQLTransaction) throws -> [FingerprintEntryRecord] {
        try transaction.rows(
            "SELECT fingerprintId, beaconId, relativePower, dispersion, meanRSSI, visibility FROM fingerprintEntry WHERE beaconId = ? ORDER BY fingerprintId",
            [.integer(beacon)]
        ).map { row in
            FingerprintEntryRecord(
                fingerprintId: try row.integer("fingerprintId"), beaconId: try row.integer("beaconId"),
                relativePower: try row.real("relativePower"), dispersion: try row.real("dispersion"), meanRSSI: try row.real("meanRSSI"),
                visibility: try row.real("visibility"))
        }
    }

    static func count(ofBeacon beacon: Int64, _ transaction: any SQLTransaction) throws -> Int {
        try transaction.count("SELECT COUNT(*) FROM fingerprintEntry WHERE beaconId = ?", [.integer(beacon)])
    }
}
