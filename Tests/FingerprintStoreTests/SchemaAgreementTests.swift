import Foundation
import GRDB
import Positioning
import Testing

import FingerprintStore

/// The two engines' schemas, after every migration, column for column: the store's SQL runs unchanged on
/// both, so a column one dialect's migration forgot, typed or constrained differently, or an index only
/// one engine has (a query fast on one and a scan on the other) is a bug this finds.
@Suite("FingerprintStore: the SQLite and PostgreSQL schemas agree")
struct SchemaAgreementTests {
    /// What the store keeps in a column, whatever the dialect calls it.
    enum Kind: String, Hashable, CustomStringConvertible {
        case integer, real, text, blob
        var description: String { rawValue }
    }

    struct Column: Hashable, CustomStringConvertible {
        var name: String
        var kind: Kind
        var nullable: Bool
        var description: String { "\(name) \(kind)\(nullable ? "" : " NOT NULL")" }
    }

    /// An index by what it does (names differ: SQLite calls a UNIQUE constraint's `sqlite_autoindex_...`).
    struct Index: Hashable, CustomStringConvertible {
        var columns: [String]
        var unique: Bool
        var partial: Bool
        var description: String { "\(unique ? "UNIQUE " : "")(\(columns.joined(separator: ", ")))\(partial ? " WHERE ..." : "")" }
    }

    struct Table: Hashable {
        var columns: [Column]
        var primaryKey: [String]
        var indexes: Set<Index>
    }

    /// The store's tables on `engine` after every migration, by lower-cased name (PostgreSQL folds
    /// unquoted names), without the migration bookkeeping.
    static func schema(_ engine: StoreEngine) async throws -> [String: Table] {
        let backend = try await BackendTests.backend(engine)
        return try await backend.read { transaction in
            switch engine {
            case .sqlite: try await sqliteSchema(transaction)
            case .postgresql: try await postgresSchema(transaction)
            }
        }
    }

    /// The kind SQLite keeps for a declared type: its affinity rules (a name holding INT is an integer,
    /// CHAR, CLOB or TEXT text, REAL, FLOA or DOUB a real), and GRDB's own names (`DATETIME` holds GRDB's
    /// date text, `BOOLEAN` 0 or 1, `JSON` text).
    static func sqliteKind(_ declared: String) throws -> Kind {
        let type = declared.uppercased()
        if type.contains("INT") || type == "BOOLEAN" { return .integer }
        if ["CHAR", "CLOB", "TEXT"].contains(where: type.contains) || type == "DATETIME" || type == "JSON" { return .text }
        if type.contains("BLOB") { return .blob }
        if ["REAL", "FLOA", "DOUB"].contains(where: type.contains) { return .real }
        throw StoreError.storageFault("a SQLite column is declared '\(declared)', which the schema test does not know")
    }

    static func postgresKind(_ type: String) throws -> Kind {
        switch type {
        case "bigint", "integer", "smallint": .integer
        case "double precision", "real": .real
        case "text", "character varying": .text
        case "bytea": .blob
        default: throw StoreError.storageFault("a PostgreSQL column is of type \(type), which the schema test does not know")
        }
    }

    static func sqliteSchema(_ transaction: any SQLTransaction) async throws -> [String: Table] {
        var tables: [String: Table] = [:]
        let names = try await transaction.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations'")
        for row in names {
            let table = try row.text("name")
            var columns: [Column] = []
            var primaryKey: [(position: Int64, name: String)] = []
            for column in try await transaction.rows("PRAGMA table_info(\(sql: table))") {
                let name = try column.text("name").lowercased()
                let position = try column.integer("pk")
                // A primary key column holds no NULL on either engine as the store declares them (GRDB adds
                // NOT NULL; an INTEGER PRIMARY KEY is the rowid).
                columns.append(Column(
                    name: name, kind: try sqliteKind(try column.text("type")), nullable: try column.integer("notnull") == 0 && position == 0))
                if position > 0 { primaryKey.append((position, name)) }
            }
            var indexes: Set<Index> = []
            for index in try await transaction.rows("PRAGMA index_list(\(sql: table))") where try index.text("origin") != "pk" {
                let indexColumns = try await transaction.rows("PRAGMA index_info(\(sql: try index.text("name")))")
                    .sorted { try $0.integer("seqno") < $1.integer("seqno") }
                    .map { try $0.text("name").lowercased() }
                indexes.insert(Index(columns: indexColumns, unique: try index.integer("unique") == 1, partial: try index.integer("partial") == 1))
            }
            tables[table.lowercased()] = Table(columns: columns, primaryKey: primaryKey.sorted { $0.position < $1.position }.map(\.name), indexes: indexes)
        }
        return tables
    }

    static func postgresSchema(_ transaction: any SQLTransaction) async throws -> [String: Table] {
        var tables: [String: Table] = [:]
        let columns = try await transaction.rows(
            """
            SELECT c.table_name, c.column_name, c.data_type, c.is_nullable FROM information_schema.columns c
            JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
            WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.table_name <> 'beaconfix_migrations'
            ORDER BY c.table_name, c.ordinal_position
            """)
        for row in columns {
            let column = Column(
                name: try row.text("column_name"), kind: try postgresKind(try row.text("data_type")),
                nullable: try row.text("is_nullable") == "YES")
            tables[try row.text("table_name"), default: Table(columns: [], primaryKey: [], indexes: [])].columns.append(column)
        }
        let indexes = try await transaction.rows(
            """
            SELECT t.relname AS tablename, ix.indisunique AS isunique, ix.indisprimary AS isprimary,
              ix.indpred IS NOT NULL AS ispartial,
              array_to_string(ARRAY(
                SELECT a.attname FROM unnest(ix.indkey) WITH ORDINALITY AS k(attnum, position)
                JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.position), ',') AS columns
            FROM pg_index ix JOIN pg_class t ON t.oid = ix.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
            WHERE n.nspname = current_schema() AND t.relname <> 'beaconfix_migrations'
            """)
        for row in indexes {
            let table = try row.text("tablename")
            let columns = try row.text("columns").split(separator: ",").map(String.init)
            if try row.integer("isprimary") == 1 {
                tables[table]?.primaryKey = columns
            } else {
                tables[table]?.indexes.insert(Index(columns: columns, unique: try row.integer("isunique") == 1, partial: try row.integer("ispartial") == 1))
            }
        }
        return tables
    }

    @Test("after every migration, both engines have the same tables, columns (name, kind, nullability, order), primary keys and indexes",
          .enabled(if: BackendTests.postgresURL != nil))
    func schemasAgree() async throws {
        // Given a database migrated on each engine
        let sqlite = try await Self.schema(.sqlite)
        let postgres = try await Self.schema(.postgresql)
        // Then they hold the same tables, but for SQLite's dwell histogram (PostgreSQL's percentile_disc
        // reads the visits themselves: the one table an engine keeps for a requirement of the seam)
        #expect(Set(sqlite.keys).subtracting(postgres.keys) == ["zonedwellday"])
        #expect(Set(postgres.keys).subtracting(sqlite.keys) == [])
        // (and what was read is the schema, not nothing: 25 tables, most with a primary key, and the
        // store's 12 indexes and UNIQUE constraints)
        #expect(sqlite.count == 25 && sqlite.values.filter { !$0.primaryKey.isEmpty }.count >= 19)
        let indexes = (sqlite: sqlite.values.map(\.indexes.count).reduce(0, +), postgres: postgres.values.map(\.indexes.count).reduce(0, +))
        #expect(indexes.sqlite >= 12 && indexes.postgres >= 12, "indexes read: \(indexes)")
        // And each table agrees, column for column and index for index
        for (name, table) in sqlite.sorted(by: { $0.key < $1.key }) {
            guard let other = postgres[name] else { continue }
            #expect(table.columns == other.columns, "table \(name): SQLite \(table.columns), PostgreSQL \(other.columns)")
            #expect(table.primaryKey == other.primaryKey, "table \(name): primary key SQLite \(table.primaryKey), PostgreSQL \(other.primaryKey)")
            #expect(table.indexes == other.indexes, "table \(name): indexes only on SQLite \(table.indexes.subtracting(other.indexes)), only on PostgreSQL \(other.indexes.subtracting(table.indexes))")
        }
    }

    @Test("a SQLite file written before v12 keeps its zones' import order, and both engines add and redraw in that order",
          arguments: BackendTests.engines)
    func zoneOrder(engine: StoreEngine) async throws {
        // Given a venue whose polygons were imported B, then A (so neither name nor floor gives the order)
        let backend: any StoreBackend
        if engine == .sqlite {
            // ... into a SQLite file at v11, where only the rowid kept the order, then migrated
            let queue = try DatabaseQueue()
            try StoreMigrations.migrator.migrate(queue, upTo: "v11: walking survey sessions")
            let old = SQLiteBackend(writer: queue, logger: BackendTests.logger)
            try await old.write { try await Self.insertVenue($0, zones: ["B", "A"], withPosition: false, created: .text("2026-11-18 11:06:40.123")) }
            try StoreMigrations.migrator.migrate(queue)
            backend = old
        } else {
            backend = try await BackendTests.backend(engine)
            try await backend.write { try await Self.insertVenue($0, zones: ["B", "A"], withPosition: true, created: SQLValue(Date())) }
        }
        #expect(try await backend.read { try await ZoneAreaRecord.all(of: "hall", $0) }.map(\.name) == ["B", "A"])
        // When C is added and B redrawn
        try await backend.write { transaction in
            try await ZoneAreaRecord(venueId: "hall", area: Self.triangle("C", size: 1)).save(transaction)
            try await ZoneAreaRecord(venueId: "hall", area: Self.triangle("B", size: 2)).save(transaction)
        }
        // Then C comes last and B keeps its place, with its new outline
        let areas = try await backend.read { try await ZoneAreaRecord.all(of: "hall", $0) }
        #expect(areas.map(\.name) == ["B", "A", "C"])
        #expect(try areas.first?.area() == Self.triangle("B", size: 2))
    }

    static func triangle(_ name: String, size: Double) -> ZoneArea {
        ZoneArea(name: name, floor: 0, polygon: [.init(x: 0, y: 0), .init(x: size, y: 0), .init(x: size, y: size)])
    }

    /// A venue with one floor and `zones` drawn on it in that order, written as the v11 schema allowed
    /// (without `position` on SQLite) or through the store's own statement.
    static func insertVenue(_ transaction: any SQLTransaction, zones: [String], withPosition: Bool, created: SQLValue) async throws {
        try await transaction.execute("INSERT INTO venue (id, name, revision, createdAt, updatedAt) VALUES ('hall', 'Hall', 1, \(created), \(created))")
        try await transaction.execute("INSERT INTO floor (venueId, level, name) VALUES ('hall', 0, 'Ground')")
        for zone in zones {
            if withPosition {
                try await ZoneAreaRecord(venueId: "hall", area: triangle(zone, size: 1)).save(transaction)
            } else {
                try await transaction.execute(
                    "INSERT INTO zoneArea (venueId, level, name, polygon) VALUES ('hall', 0, \(zone), '[[0,0],[1,0],[0,1]]')")
            }
        }
    }

    @Test("a database written before v13 keeps its dates to the millisecond, now as seconds since the Unix epoch", arguments: BackendTests.engines)
    func datesMigrate(engine: StoreEngine) async throws {
        // Given a database at v12, where dates were GRDB's UTC text: a venue, a revoked API key and a plan
        let backend: any StoreBackend
        let text = SQLValue.text("2026-11-18 11:06:40.123"), whole = SQLValue.text("2026-11-18 11:06:41.000")
        @Sendable func old(_ transaction: any SQLTransaction) async throws {
            try await transaction.execute("INSERT INTO venue (id, name, revision, createdAt, updatedAt) VALUES ('hall', 'Hall', 1, \(text), \(whole))")
            try await transaction.execute("INSERT INTO floor (venueId, level, name) VALUES ('hall', 0, 'Ground')")
            try await transaction.execute(
                "INSERT INTO apiKey (name, scope, tokenHash, tokenPrefix, createdAt, revokedAt) VALUES ('app', 'locate', 'h', 'bfx_', \(text), \(whole))")
            try await transaction.execute("INSERT INTO apiKey (name, scope, tokenHash, tokenPrefix, createdAt) VALUES ('ops', 'admin', 'i', 'bfx_', \(whole))")
            try await transaction.execute(
                """
                INSERT INTO floorPlan (venueId, level, image, mediaType, data, topLeftX, topLeftY, bottomRightX, bottomRightY,
                topRightX, topRightY, updatedAt) VALUES ('hall', 0, 'g.png', 'image/png', \(Data([1])), 0, 1, 1, 0, 1, 1, \(text))
                """)
        }
        let v12 = "v12: zone areas keep their import order in a column"
        if engine == .sqlite {
            let queue = try DatabaseQueue()
            try StoreMigrations.migrator.migrate(queue, upTo: v12)
            let sqlite = SQLiteBackend(writer: queue, logger: BackendTests.logger)
            try await sqlite.write { try await old($0) }
            // When it is migrated
            try StoreMigrations.migrator.migrate(queue)
            backend = sqlite
        } else {
            let fresh = try await BackendTests.emptyPostgresSchema()
            try await fresh.write { transaction in
                try await transaction.execute("CREATE TABLE beaconfix_migrations (identifier TEXT PRIMARY KEY)")
                for migration in PostgresMigrations.migrations.prefix(while: { $0.identifier != "v13: dates as seconds since the Unix epoch" }) {
                    for statement in migration.statements { try await transaction.execute(SQLStatement(sql: statement)) }
                    try await transaction.execute("INSERT INTO beaconfix_migrations (identifier) VALUES (\(migration.identifier))")
                }
                try await old(transaction)
            }
            try await PostgresMigrations.migrate(fresh)
            backend = fresh
        }
        // Then every date reads back to the millisecond
        let second = Date(timeIntervalSince1970: 1_795_000_000.123), next = Date(timeIntervalSince1970: 1_795_000_001)
        let venue = try #require(try await backend.read { try await VenueRecord.find("hall", $0) })
        #expect(venue.createdAt == second && venue.updatedAt == next)
        let keys = try await backend.read { try await APIKeyRow.fetchAll($0, orderBy: "id") }
        #expect(keys.map(\.createdAt) == [second, next] && keys.map(\.revokedAt) == [next, nil])
        #expect(try await backend.read { try await FloorPlanRecord.all(of: "hall", $0) }.map(\.updatedAt) == [second])
    }
}
