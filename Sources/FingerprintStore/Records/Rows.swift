package import Foundation
package import Positioning
import ScanFormats

// Each table's rows read and written through the SQL seam: one statement for both engines. Upserts use
// `ON CONFLICT … DO UPDATE` (SQLite 3.24+, PostgreSQL 9.5+), which keeps the row (and SQLite's rowid) as a
// GRDB `save` did; inserts take their id back with `RETURNING id` (SQLite 3.35+).

extension SQLTransaction {
    /// Runs an `INSERT` and returns the id of the row it made.
    package func insertReturningID(_ statement: SQLStatement) async throws -> Int64 {
        guard let row = try await rows(statement + " RETURNING id").first else {
            throw StoreError.storageFault("an insert returned no id")
        }
        return try row.integer("id")
    }

    /// The single integer a `SELECT COUNT(*) …` (or any one-value query) returns; 0 for no row or NULL.
    package func count(_ statement: SQLStatement) async throws -> Int {
        guard let value = try await rows(statement).first?.values.first else { return 0 }
        switch value {
        case .integer(let integer): return Int(integer)
        case .real(let real): return Int(real)
        default: return 0
        }
    }
}

extension SQLValue {
    package init(_ value: Int?) { self = value.map { SQLValue($0) } ?? .null }
    package init(_ value: Int64?) { self = value.map { SQLValue.integer($0) } ?? .null }
    package init(_ value: Double?) { self = value.map { SQLValue.real($0) } ?? .null }
    package init(_ value: Bool) { self = .integer(value ? 1 : 0) }

    /// The integer held, for hot loops that read columns by position; nil for anything else.
    package var int64: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The number held (an integer counts: SQLite keeps whole REALs as integers where affinity allows).
    package var double: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
}

extension SQLRow {
    package func int(_ column: String) throws(StoreError) -> Int { Int(try integer(column)) }

    package func optionalInt(_ column: String) throws(StoreError) -> Int? {
        if case .null = self[column] { return nil }
        return Int(try integer(column))
    }

    package func optionalInteger(_ column: String) throws(StoreError) -> Int64? {
        if case .null = self[column] { return nil }
        return try integer(column)
    }

    package func optionalReal(_ column: String) throws(StoreError) -> Double? {
        if case .null = self[column] { return nil }
        return try real(column)
    }

    package func bool(_ column: String) throws(StoreError) -> Bool { try integer(column) != 0 }

    package func blob(_ column: String) throws(StoreError) -> Data {
        switch self[column] {
        case .blob(let data): return data
        // SQLite hands back an empty blob as text when it was bound as such; both mean no bytes.
        case .text(let text): return Data(text.utf8)
        case let other: throw .storageFault("the stored column '\(column)' should hold bytes but holds \(other)")
        }
    }

    /// A stored name of a closed set (a status, a kind, a media type); an unknown one fails the read.
    package func named<Value: RawRepresentable<String>>(_ column: String, as type: Value.Type = Value.self) throws(StoreError) -> Value {
        let name = try text(column)
        guard let value = Value(rawValue: name) else {
            throw .storageFault("the stored column '\(column)' holds '\(name)', which this build does not know")
        }
        return value
    }

    package func optionalNamed<Value: RawRepresentable<String>>(_ column: String, as type: Value.Type = Value.self) throws(StoreError) -> Value? {
        if case .null = self[column] { return nil }
        return try named(column, as: type)
    }
}

extension VenueRecord {
    package static func find(_ id: String, _ transaction: any SQLTransaction) async throws -> VenueRecord? {
        try await fetchOne(transaction, where: "id = \(id)")
    }

    /// Inserts the venue, or updates the row with its id.
    package func save(_ transaction: any SQLTransaction) async throws { try await upsert(transaction) }
}

extension FloorRecord {
    package static func all(of venue: String, _ transaction: any SQLTransaction) async throws -> [FloorRecord] {
        try await fetchAll(transaction, where: "venueId = \(venue)", orderBy: "level")
    }

    package static func exists(venue: String, level: Int, _ transaction: any SQLTransaction) async throws -> Bool {
        try await transaction.count("SELECT COUNT(*) FROM floor WHERE venueId = \(venue) AND level = \(level)") > 0
    }

    package func save(_ transaction: any SQLTransaction) async throws { try await upsert(transaction) }
}

extension ZoneAreaRecord {
    /// The venue's polygons in the order they were first imported (where they overlap, the first wins).
    package static func all(of venue: String, _ transaction: any SQLTransaction) async throws -> [ZoneAreaRecord] {
        try await fetchAll(transaction, where: "venueId = \(venue)", orderBy: "position")
    }

    package static func find(venue: String, level: Int, name: String, _ transaction: any SQLTransaction) async throws -> ZoneAreaRecord? {
        try await fetchOne(transaction, where: "venueId = \(venue) AND level = \(level) AND name = \(name)")
    }

    /// Adds the polygon after every stored one, or redraws the one of the same zone and floor (keeping its
    /// place in the order): the upsert of its columns, with `position` (the order, kept by the table
    /// rather than the row) taken one past the last on insert.
    package func save(_ transaction: any SQLTransaction) async throws {
        try await transaction.execute(
            Self.insertStatement(try columnValues, computed: ["position": "(SELECT COALESCE(MAX(position), 0) + 1 FROM zoneArea)"])
                + " ON CONFLICT (venueId, level, name) DO UPDATE SET polygon = excluded.polygon")
    }
}

extension FloorPlanRecord {
    package static func find(venue: String, level: Int, _ transaction: any SQLTransaction) async throws -> FloorPlanRecord? {
        try await fetchOne(transaction, where: "venueId = \(venue) AND level = \(level)")
    }

    package static func all(of venue: String, _ transaction: any SQLTransaction) async throws -> [FloorPlanRecord] {
        try await fetchAll(transaction, where: "venueId = \(venue)", orderBy: "level")
    }

    package func save(_ transaction: any SQLTransaction) async throws { try await upsert(transaction) }
}

extension BeaconRecord {
    /// Every beacon of the venue (active ones only unless `includeRetired`), in row order.
    package static func all(of venue: String, includeRetired: Bool = true, _ transaction: any SQLTransaction) async throws -> [BeaconRecord] {
        try await fetchAll(transaction, where: "venueId = \(venue)" + SQLStatement(sql: includeRetired ? "" : " AND status = 'active'"), orderBy: "id")
    }

    /// The venue's beacon with this identity (canonical, upper-case UUID), whatever its status.
    package static func find(_ beacon: BeaconID, in venue: String, _ transaction: any SQLTransaction) async throws -> BeaconRecord? {
        try await fetchOne(
            transaction, where: "venueId = \(venue) AND uuid = \(beacon.uuid.uuidString) AND major = \(Int(beacon.major)) AND minor = \(Int(beacon.minor))")
    }

    package static func find(id: Int64, _ transaction: any SQLTransaction) async throws -> BeaconRecord? {
        try await fetchOne(transaction, where: "id = \(id)")
    }
}

extension SpotRecord {
    /// The venue's spots in the order they were created (the order of a survey's spot indices).
    package static func all(of venue: String, _ transaction: any SQLTransaction) async throws -> [SpotRecord] {
        try await fetchAll(transaction, where: "venueId = \(venue)", orderBy: "id")
    }

    package static func find(named name: String, in venue: String, _ transaction: any SQLTransaction) async throws -> SpotRecord? {
        try await fetchOne(transaction, where: "venueId = \(venue) AND name = \(name)")
    }
}

extension SurveySessionRecord {
    package static func all(of venue: String, _ transaction: any SQLTransaction) async throws -> [SurveySessionRecord] {
        try await fetchAll(transaction, where: "venueId = \(venue)", orderBy: "id")
    }
}

extension FingerprintEntryRecord {
    /// Every survey entry of one beacon row.
    package static func all(ofBeacon beacon: Int64, _ transaction: any SQLTransaction) async throws -> [FingerprintEntryRecord] {
        try await fetchAll(transaction, where: "beaconId = \(beacon)", orderBy: "fingerprintId")
    }

    package static func count(ofBeacon beacon: Int64, _ transaction: any SQLTransaction) async throws -> Int {
        try await transaction.count("SELECT COUNT(*) FROM fingerprintEntry WHERE beaconId = \(beacon)")
    }
}
