package import GRDB

/// The schema, as named, append-only migrations. A migration that has shipped is never edited:
/// changes come as new migrations. Table and column names are spelled out as strings so that the
/// history does not depend on today's record types.
package enum StoreMigrations {
    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        migrator.registerMigration("v1: venues, beacons, spots, survey sessions, fingerprints") { db in
            try db.create(table: "venue") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                // Increases with every change that affects positioning; the daemon reloads on it.
                t.column("revision", .integer).notNull().defaults(to: 1)
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
            try db.create(table: "floor") { t in
                t.column("venueId", .text).notNull().references("venue", onDelete: .cascade)
                t.column("level", .integer).notNull()
                t.column("name", .text).notNull()
                t.primaryKey(["venueId", "level"])
            }
            try db.create(table: "beacon") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("venueId", .text).notNull().references("venue", onDelete: .cascade)
                // Upper-case canonical UUID text, so equality in SQL is case-insensitive in effect.
                t.column("uuid", .text).notNull()
                t.column("major", .integer).notNull().check { $0 >= 0 && $0 <= 65535 }
                t.column("minor", .integer).notNull().check { $0 >= 0 && $0 <= 65535 }
                t.column("label", .text)
                t.column("x", .double)
                t.column("y", .double)
                t.column("floor", .integer)
                t.column("measuredPower", .integer)
                t.column("status", .text).notNull().defaults(to: "active").check { ["active", "retired"].contains($0) }
                t.uniqueKey(["venueId", "uuid", "major", "minor"])
            }
            try db.create(table: "spot") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("venueId", .text).notNull().references("venue", onDelete: .cascade)
                t.column("name", .text).notNull()
                t.column("x", .double).notNull()
                t.column("y", .double).notNull()
                t.column("floor", .integer).notNull()
                t.column("zone", .text)
                t.uniqueKey(["venueId", "name"])
            }
            try db.create(table: "surveySession") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("venueId", .text).notNull().references("venue", onDelete: .cascade)
                t.column("operator", .text)
                t.column("device", .text).notNull()
                t.column("recordedAt", .datetime).notNull()
                t.column("sourceFile", .text)
                t.column("windowSize", .integer).notNull()
            }
            try db.create(table: "fingerprint") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("spotId", .integer).notNull().indexed().references("spot", onDelete: .cascade)
                t.column("sessionId", .integer).notNull().indexed().references("surveySession", onDelete: .cascade)
                t.column("device", .text).notNull()
                t.column("time", .double).notNull()
                t.column("sampleCount", .integer).notNull().check { $0 >= 1 }
            }
            try db.create(table: "fingerprintEntry", options: .withoutRowID) { t in
                t.column("fingerprintId", .integer).notNull().references("fingerprint", onDelete: .cascade)
                // No index on beaconId: it slowed recording by a third, and only maintenance (replacements,
                // stats) looks entries up by beacon, where a scan of the table takes milliseconds.
                t.column("beaconId", .integer).notNull().references("beacon", onDelete: .restrict)
                t.column("relativePower", .double).notNull()
                t.column("dispersion", .double).notNull()
                t.column("meanRSSI", .double).notNull()
                t.column("visibility", .double).notNull()
                t.primaryKey(["fingerprintId", "beaconId"])
            }
        }
        migrator.registerMigration("v2: api keys") { db in
            try db.create(table: "apiKey") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("scope", .text).notNull().check { ["locate", "admin"].contains($0) }
                // SHA-256 of the token, hex: the token itself is shown once and never stored.
                t.column("tokenHash", .text).notNull().unique()
                // The token's first characters, so an operator can tell keys apart.
                t.column("tokenPrefix", .text).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("revokedAt", .datetime)
            }
        }
        migrator.registerMigration("v3: beacon replacements") { db in
            try db.create(table: "beaconReplacement") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("venueId", .text).notNull().indexed().references("venue", onDelete: .cascade)
                t.column("kind", .text).notNull().check { ["replace", "remove"].contains($0) }
                t.column("oldBeaconId", .integer).notNull().references("beacon", onDelete: .restrict)
                t.column("newBeaconId", .integer).references("beacon", onDelete: .restrict)
                // What undo must restore of the new beacon: whether the replacement created it, and its status before.
                t.column("newBeaconCreated", .boolean).notNull().defaults(to: false)
                t.column("newBeaconPreviousStatus", .text)
                t.column("operator", .text)
                t.column("performedAt", .datetime).notNull()
                t.column("offsetDB", .double)
                t.column("calibrationSpots", .integer)
                t.column("calibrationSpread", .double)
                // The calibration evidence as JSON, for the audit trail.
                t.column("calibrationSummary", .text)
                t.column("forced", .boolean).notNull().defaults(to: false)
                t.column("undoneAt", .datetime)
            }
            // The fingerprints whose entries a replacement created for the new beacon: what undo deletes.
            try db.create(table: "replacementEntry", options: .withoutRowID) { t in
                t.column("replacementId", .integer).notNull().references("beaconReplacement", onDelete: .cascade)
                t.column("fingerprintId", .integer).notNull().references("fingerprint", onDelete: .cascade)
                t.primaryKey(["replacementId", "fingerprintId"])
            }
        }
        migrator.registerMigration("v4: venue tuning") { db in
            // The configuration `survey tune` chose for a venue by cross-validation on its survey, and the
            // figures it was chosen on, as JSON; one row per venue, replaced by every tuning.
            try db.create(table: "venueTuning") { t in
                t.primaryKey("venueId", .text).references("venue", onDelete: .cascade)
                // The venue revision the tuning was stored at (saving it bumps the revision, so a running
                // positiond picks it up); a later revision means the survey changed since.
                t.column("revision", .integer).notNull()
                t.column("configuration", .text).notNull()
                t.column("report", .text).notNull()
                t.column("tunedAt", .datetime).notNull()
                t.column("seconds", .double).notNull()
            }
        }
        migrator.registerMigration("v5: venue geographic anchor") { db in
            // Where the venue's origin lies (WGS84 degrees) and the bearing of its +x axis (degrees clockwise
            // from true north); all three or none.
            try db.alter(table: "venue") { t in
                t.add(column: "geoLat", .double)
                t.add(column: "geoLon", .double)
                t.add(column: "geoBearing", .double)
            }
        }
        migrator.registerMigration("v6: floor plans") { db in
            // One plan image per floor, stored whole (at most 10 MiB, checked before writing), and where it
            // lies: its top-left and bottom-right corners in venue metres. `image` is the path venue.json
            // names it by, relative to venue.json; export writes the bytes back there.
            try db.create(table: "floorPlan") { t in
                t.column("venueId", .text).notNull()
                t.column("level", .integer).notNull()
                t.column("image", .text).notNull()
                t.column("mediaType", .text).notNull().check { ["image/png", "image/jpeg", "image/svg+xml"].contains($0) }
                t.column("data", .blob).notNull()
                t.column("topLeftX", .double).notNull()
                t.column("topLeftY", .double).notNull()
                t.column("bottomRightX", .double).notNull()
                t.column("bottomRightY", .double).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.primaryKey(["venueId", "level"])
                t.foreignKey(["venueId", "level"], references: "floor", onDelete: .cascade)
            }
        }
        migrator.registerMigration("v7: zone areas") { db in
            // Zones drawn as polygons, at most one per zone and floor. `polygon` is the JSON list of its
            // [x, y] vertices in venue metres, as venue.json writes it: read and written whole, never queried.
            try db.create(table: "zoneArea") { t in
                t.column("venueId", .text).notNull()
                t.column("level", .integer).notNull()
                t.column("name", .text).notNull()
                t.column("polygon", .text).notNull()
                t.primaryKey(["venueId", "level", "name"])
                t.foreignKey(["venueId", "level"], references: "floor", onDelete: .cascade)
            }
        }
        migrator.registerMigration("v8: floor plans placed by reference points") { db in
            // A plan may be placed by two reference points (rotated and scaled), so the image's corners are
            // no longer always axis-aligned: `topLeft*`, `topRight*` and `bottomRight*` are where the image's
            // corners lie, resolved when the plan was stored; `referencePoints` is the JSON of the two points
            // as venue.json gave them (NULL for a plan placed by its corners), so export writes them back.
            try db.alter(table: "floorPlan") { t in
                t.add(column: "topRightX", .double).notNull().defaults(to: 0)
                t.add(column: "topRightY", .double).notNull().defaults(to: 0)
                t.add(column: "referencePoints", .text)
            }
            try db.execute(sql: "UPDATE floorPlan SET topRightX = bottomRightX, topRightY = topLeftY")
        }
        migrator.registerMigration("v9: visitor history") { db in
            for statement in StoreMigrations.historyTables(real: "REAL", blob: "BLOB") + StoreMigrations.dwellDays {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v10: survey uploads, and the survey key scope") { db in
            // SQLite cannot change a CHECK constraint in place: the key table is rebuilt with its rows and ids.
            try db.execute(sql: """
                CREATE TABLE apiKey_v10 (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
                    scope TEXT NOT NULL CHECK (scope IN ('locate', 'survey', 'admin')), tokenHash TEXT NOT NULL UNIQUE,
                    tokenPrefix TEXT NOT NULL, createdAt DATETIME NOT NULL, revokedAt DATETIME)
                """)
            try db.execute(sql: "INSERT INTO apiKey_v10 SELECT id, name, scope, tokenHash, tokenPrefix, createdAt, revokedAt FROM apiKey")
            try db.execute(sql: "DROP TABLE apiKey")
            try db.execute(sql: "ALTER TABLE apiKey_v10 RENAME TO apiKey")
            for statement in StoreMigrations.surveyUploadTables(real: "REAL") {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v11: walking survey sessions") { db in
            for statement in StoreMigrations.walkingSurveyUploadColumns(real: "REAL") {
                try db.execute(sql: statement)
            }
        }
        migrator.registerMigration("v12: zone areas keep their import order in a column") { db in
            // Where polygons overlap the first imported wins. SQLite kept that order in the rowid, which
            // PostgreSQL has not (its table has had `position` since v7): now both engines keep it in
            // `position` and one statement reads and writes it.
            try db.execute(sql: "ALTER TABLE zoneArea ADD COLUMN position INTEGER NOT NULL DEFAULT 0")
            try db.execute(sql: "UPDATE zoneArea SET position = rowid")
        }
        migrator.registerMigration("v13: dates as seconds since the Unix epoch") { db in
            // Foreign keys are off during a migration (GRDB's deferred checks), so a table is rebuilt as
            // SQLite asks a column's type be changed: a copy with the new type, the old one dropped, the copy
            // renamed, its indexes made again.
            for (table, columns) in StoreMigrations.epochDateColumns {
                guard var create = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [table])
                else { throw StoreError.storageFault("table \(table) is missing before migration v13") }
                let indexes = try String.fetchAll(
                    db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", arguments: [table])
                let copy = "\(table)_v13"
                create = create.replacingOccurrences(
                    of: #"^CREATE TABLE "?\#(table)"?"#, with: "CREATE TABLE \"\(copy)\"", options: .regularExpression)
                for column in columns {
                    create = create.replacingOccurrences(
                        of: #"("?)\#(column)("?)\s+DATETIME"#, with: "$1\(column)$2 DOUBLE", options: .regularExpression)
                }
                try db.execute(sql: create)
                let all = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))").map { $0["name"] as String }
                // GRDB's text (`2026-11-23 07:46:34.120`, UTC) to seconds, to the millisecond it kept.
                let values = all.map { columns.contains($0) ? "ROUND((julianday(\($0)) - 2440587.5) * 86400.0, 3)" : $0 }
                try db.execute(sql: "INSERT INTO \(copy) (\(all.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(table)")
                try db.execute(sql: "DROP TABLE \(table)")
                try db.execute(sql: "ALTER TABLE \(copy) RENAME TO \(table)")
                for index in indexes { try db.execute(sql: index) }
            }
        }
        migrator.registerMigration("v14: beacon health") { db in
            for statement in StoreMigrations.beaconHealthTables(real: "REAL", identity: "INTEGER PRIMARY KEY AUTOINCREMENT") {
                try db.execute(sql: statement)
            }
            // A swap is audited beside replacements and removals; SQLite cannot change a CHECK constraint in
            // place, so the table is rebuilt as v13 did it (foreign keys are checked at the migration's end).
            guard let create = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'beaconReplacement'")
            else { throw StoreError.storageFault("table beaconReplacement is missing before migration v14") }
            let widened = create.replacingOccurrences(of: "('replace', 'remove')", with: "('replace', 'remove', 'swap')")
            guard widened != create else { throw StoreError.storageFault("beaconReplacement's kind constraint is not the one v3 made") }
            let indexes = try String.fetchAll(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'beaconReplacement' AND sql IS NOT NULL")
            try db.execute(sql: widened.replacingOccurrences(
                of: #"^CREATE TABLE "?beaconReplacement"?"#, with: "CREATE TABLE \"beaconReplacement_v14\"", options: .regularExpression))
            try db.execute(sql: "INSERT INTO beaconReplacement_v14 SELECT * FROM beaconReplacement")
            try db.execute(sql: "DROP TABLE beaconReplacement")
            try db.execute(sql: "ALTER TABLE beaconReplacement_v14 RENAME TO beaconReplacement")
            for index in indexes { try db.execute(sql: index) }
        }
        return migrator
    }
}

extension StoreMigrations {
    /// The beacon-health tables, the same on both engines but for a type name and the generated id:
    /// - `beaconHealthMonitor`: one row a venue, the monitor's whole state as JSON (`BeaconHealthMonitor`) and
    ///   what matching makes of its silent beacons (`DegradedVenue`), with the venue revision the monitor's
    ///   beacons are of and a version every write increases (one writer at a time takes it up where the last
    ///   left it);
    /// - `beaconHealthChange`: every state change, automatic or by ops (`actor`), with its evidence: the history;
    /// - `beaconEvidence`: located samples' evidence from every replica, waiting for the writer;
    /// - `beaconProposal`: the remaps proposed to ops, with what became of them.
    static func beaconHealthTables(real: String, identity: String) -> [String] {
        [
            """
            CREATE TABLE beaconHealthMonitor (
                venueId TEXT PRIMARY KEY REFERENCES venue(id) ON DELETE CASCADE, revision BIGINT NOT NULL, version BIGINT NOT NULL,
                monitor TEXT NOT NULL, degraded TEXT NOT NULL, updatedAt \(real) NOT NULL)
            """,
            """
            CREATE TABLE beaconHealthChange (
                id \(identity), venueId TEXT NOT NULL REFERENCES venue(id) ON DELETE CASCADE, beacon TEXT NOT NULL,
                fromState TEXT NOT NULL, toState TEXT NOT NULL, at \(real) NOT NULL, recordedAt \(real) NOT NULL,
                offsetDB \(real), offsetError \(real), evidence TEXT NOT NULL, reason TEXT NOT NULL, actor TEXT)
            """,
            "CREATE INDEX beaconHealthChange_byVenue ON beaconHealthChange (venueId, id)",
            """
            CREATE TABLE beaconEvidence (
                id \(identity), venueId TEXT NOT NULL REFERENCES venue(id) ON DELETE CASCADE, revision BIGINT NOT NULL,
                samples BIGINT NOT NULL, body TEXT NOT NULL, createdAt \(real) NOT NULL)
            """,
            "CREATE INDEX beaconEvidence_byVenue ON beaconEvidence (venueId, id)",
            """
            CREATE TABLE beaconProposal (
                id \(identity), venueId TEXT NOT NULL REFERENCES venue(id) ON DELETE CASCADE,
                kind TEXT NOT NULL CHECK (kind IN ('replace', 'swap')), old TEXT NOT NULL, new TEXT NOT NULL,
                offsetDB \(real) NOT NULL, spread \(real) NOT NULL, reverseOffsetDB \(real), places BIGINT NOT NULL,
                readings BIGINT NOT NULL, proposedAt \(real) NOT NULL, reason TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('open', 'accepted', 'dismissed', 'withdrawn')),
                decidedAt \(real), operator TEXT, replacementId BIGINT REFERENCES beaconReplacement(id) ON DELETE SET NULL)
            """,
            "CREATE INDEX beaconProposal_byVenue ON beaconProposal (venueId, status, id)",
        ]
    }
}

extension StoreMigrations {
    /// The columns that held dates as GRDB's UTC text until v13, by table: since then every time the store
    /// keeps is seconds since the Unix epoch, as measurement times always were.
    static let epochDateColumns: [(table: String, columns: [String])] = [
        ("venue", ["createdAt", "updatedAt"]), ("surveySession", ["recordedAt"]), ("apiKey", ["createdAt", "revokedAt"]),
        ("beaconReplacement", ["performedAt", "undoneAt"]), ("venueTuning", ["tunedAt"]), ("floorPlan", ["updatedAt"]),
    ]

    /// Survey sessions uploaded over HTTP, the same on both engines but for a type name: a session of a
    /// venue (its state `open`, `committed` or `abandoned`; times in seconds since the Unix epoch) and
    /// its batches, each stored as it arrives under the id its sender gave it (so a batch sent again is
    /// recognised), as scan-log lines in arrival order (`position`), until the session is committed.
    static func surveyUploadTables(real: String) -> [String] {
        [
            """
            CREATE TABLE surveyUpload (
                id TEXT PRIMARY KEY, venueId TEXT NOT NULL REFERENCES venue(id) ON DELETE CASCADE,
                operator TEXT, deviceModel TEXT, notes TEXT,
                state TEXT NOT NULL CHECK (state IN ('open', 'committed', 'abandoned')),
                openedAt \(real) NOT NULL, closedAt \(real), samples BIGINT NOT NULL DEFAULT 0, batches BIGINT NOT NULL DEFAULT 0,
                fingerprints BIGINT, revision BIGINT)
            """,
            "CREATE INDEX surveyUpload_byVenue ON surveyUpload (venueId, openedAt)",
            """
            CREATE TABLE surveyUploadBatch (
                uploadId TEXT NOT NULL REFERENCES surveyUpload(id) ON DELETE CASCADE, batchId TEXT NOT NULL,
                position BIGINT NOT NULL, samples BIGINT NOT NULL, lines TEXT NOT NULL, receivedAt \(real) NOT NULL,
                PRIMARY KEY (uploadId, batchId))
            """,
        ]
    }

    /// A survey session may be a walk: its placement settings (NULL for a session of labelled samples),
    /// its checkpoint count, and each batch's checkpoints as path-file JSON Lines ('' when it has none).
    static func walkingSurveyUploadColumns(real: String) -> [String] {
        [
            "ALTER TABLE surveyUpload ADD COLUMN walkCell \(real)",
            "ALTER TABLE surveyUpload ADD COLUMN walkSnap \(real)",
            "ALTER TABLE surveyUpload ADD COLUMN checkpoints BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE surveyUploadBatch ADD COLUMN checkpoints TEXT NOT NULL DEFAULT ''",
        ]
    }

    /// The visitor history's tables, the same on both engines but for two type names. Devices are
    /// pseudonyms (``FingerprintStore/devicePseudonym(_:secret:)``), never the ids phones send; times are
    /// seconds since the Unix epoch on the tracks' clock.
    ///
    /// The indexes are what keeps every analytics query under 200 ms over a week of 5,000 devices
    /// (Benchmarks/Analytics):
    /// - `zoneVisit_byDevice` (unique): a visit's update when it closes, and the funnel's per-device steps;
    /// - `zoneVisit_byTime`: the funnel's first step, retention;
    /// - `zoneVisit_byZoneDuration`: dwell's counts and percentiles, read from the index alone (covering);
    /// - `heatCell`'s primary key: one row per venue, floor, hour and 1 m cell, summed by the heatmap;
    /// - `devicePresence_byLastSeen`: presence over the last minutes.
    static func historyTables(real: String, blob: String) -> [String] {
        [
            """
            CREATE TABLE venueHistory (
                venueId TEXT PRIMARY KEY REFERENCES venue(id) ON DELETE CASCADE,
                recording INTEGER NOT NULL DEFAULT 1, secret \(blob) NOT NULL)
            """,
            """
            CREATE TABLE zoneVisit (
                venueId TEXT NOT NULL REFERENCES venue(id) ON DELETE CASCADE, device BIGINT NOT NULL, zone TEXT NOT NULL,
                enteredAt \(real) NOT NULL, exitedAt \(real), duration \(real))
            """,
            "CREATE UNIQUE INDEX zoneVisit_byDevice ON zoneVisit (venueId, device, zone, enteredAt)",
            "CREATE INDEX zoneVisit_byTime ON zoneVisit (venueId, enteredAt)",
            "CREATE INDEX zoneVisit_byZoneDuration ON zoneVisit (venueId, zone, duration, enteredAt)",
            """
            CREATE TABLE positionTrace (
                venueId TEXT NOT NULL REFERENCES venue(id) ON DELETE CASCADE, device BIGINT NOT NULL, at \(real) NOT NULL,
                level BIGINT NOT NULL, x \(real) NOT NULL, y \(real) NOT NULL, zone TEXT)
            """,
            "CREATE INDEX positionTrace_byTime ON positionTrace (venueId, at)",
            """
            CREATE TABLE heatCell (
                venueId TEXT NOT NULL REFERENCES venue(id) ON DELETE CASCADE, level BIGINT NOT NULL, hour BIGINT NOT NULL,
                cellX BIGINT NOT NULL, cellY BIGINT NOT NULL, seconds \(real) NOT NULL,
                PRIMARY KEY (venueId, level, hour, cellX, cellY))
            """,
            """
            CREATE TABLE devicePresence (
                venueId TEXT NOT NULL REFERENCES venue(id) ON DELETE CASCADE, device BIGINT NOT NULL, lastSeen \(real) NOT NULL,
                level BIGINT, zone TEXT, PRIMARY KEY (venueId, device))
            """,
            "CREATE INDEX devicePresence_byLastSeen ON devicePresence (venueId, lastSeen)",
        ]
    }

    /// SQLite's dwell histogram: per venue, zone, day (of the visit's entry, UTC) and whole second of duration,
    /// the finished visits and their exact total, kept by triggers in the same transaction as the visits
    /// (a visit counted once when it closes, moved if its exit is corrected, removed with it). Dwell reads
    /// whole days from here, a few thousand rows for a week, instead of a million visits; SQLite has no
    /// percentile function, PostgreSQL's `percentile_disc` reads the visits themselves.
    static let dwellDays: [String] = {
        let key = "NEW.venueId, NEW.zone, CAST(NEW.enteredAt / 86400 AS INTEGER), CAST(NEW.duration AS INTEGER)"
        let add = """
            INSERT INTO zoneDwellDay (venueId, zone, day, seconds, visits, total) VALUES (\(key), 1, NEW.duration)
            ON CONFLICT (venueId, zone, day, seconds) DO UPDATE SET visits = visits + 1, total = total + excluded.total;
            """
        let remove = """
            UPDATE zoneDwellDay SET visits = visits - 1, total = total - OLD.duration WHERE venueId = OLD.venueId AND zone = OLD.zone
            AND day = CAST(OLD.enteredAt / 86400 AS INTEGER) AND seconds = CAST(OLD.duration AS INTEGER);
            """
        return [
            """
            CREATE TABLE zoneDwellDay (
                venueId TEXT NOT NULL, zone TEXT NOT NULL, day INTEGER NOT NULL, seconds INTEGER NOT NULL,
                visits INTEGER NOT NULL, total REAL NOT NULL, PRIMARY KEY (venueId, zone, day, seconds)) WITHOUT ROWID
            """,
            "CREATE TRIGGER zoneVisit_dwellOnInsert AFTER INSERT ON zoneVisit WHEN NEW.duration IS NOT NULL BEGIN \(add) END",
            "CREATE TRIGGER zoneVisit_dwellOnUpdateRemove AFTER UPDATE OF duration ON zoneVisit WHEN OLD.duration IS NOT NULL AND OLD.duration IS NOT NEW.duration BEGIN \(remove) END",
            "CREATE TRIGGER zoneVisit_dwellOnUpdateAdd AFTER UPDATE OF duration ON zoneVisit WHEN NEW.duration IS NOT NULL AND OLD.duration IS NOT NEW.duration BEGIN \(add) END",
            "CREATE TRIGGER zoneVisit_dwellOnDelete AFTER DELETE ON zoneVisit WHEN OLD.duration IS NOT NULL BEGIN \(remove) END",
        ]
    }()
}
