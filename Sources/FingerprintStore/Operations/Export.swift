public import ScanFormats
import Foundation
public import Positioning

/// One stored fingerprint in the export format (`fingerprints.jsonl`, one JSON object a line):
///
/// ```json
/// {"spot": "p_16.09_02.79", "device": "galaxy-a5-2017", "time": 1543000884, "samples": 3,
///  "session": {"operator": "ana", "device": "galaxy-a5-2017", "recorded_at": "2026-11-19T08:26:40.500Z",
///              "source_file": "survey.jsonl", "window": 3},
///  "entries": [{"beacon": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:7", "relative_power": 0.61,
///               "mean_rssi": -77, "dispersion": 0, "visibility": 1}]}
/// ```
/// Numbers are written with as many digits as it takes to read back the same value, so an export
/// imported into an empty database reproduces every stored figure exactly.
public struct ExportedFingerprint: Codable, Hashable, Sendable {
    public struct Session: Codable, Hashable, Sendable {
        public var `operator`: String?
        public var device: String
        /// Seconds since the Unix epoch. Written as ISO 8601 with milliseconds (the database keeps
        /// milliseconds, so the round trip is exact), like every date of beaconfix's machine-readable
        /// output; older exports wrote a number, still read.
        public var recordedAt: Double
        public var sourceFile: String?
        public var window: Int

        enum CodingKeys: String, CodingKey {
            case `operator`, device, window
            case recordedAt = "recorded_at"
            case sourceFile = "source_file"
        }

        public init(operator: String?, device: String, recordedAt: Double, sourceFile: String?, window: Int) {
            self.operator = `operator`
            self.device = device
            self.recordedAt = recordedAt
            self.sourceFile = sourceFile
            self.window = window
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            `operator` = try container.decodeIfPresent(String.self, forKey: .operator)
            device = try container.decode(String.self, forKey: .device)
            sourceFile = try container.decodeIfPresent(String.self, forKey: .sourceFile)
            window = try container.decode(Int.self, forKey: .window)
            if let seconds = try? container.decode(Double.self, forKey: .recordedAt) {
                recordedAt = seconds
            } else {
                let text = try container.decode(String.self, forKey: .recordedAt)
                guard let date = (try? Date(text, strategy: Self.dateStyle)) ?? (try? Date(text, strategy: .iso8601)) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .recordedAt, in: container, debugDescription: "'\(text)' is not an ISO 8601 date such as 2026-11-23T10:00:00.000Z")
                }
                // Snapped to the millisecond the text says, as the database stores it.
                recordedAt = (date.timeIntervalSince1970 * 1000).rounded() / 1000
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(`operator`, forKey: .operator)
            try container.encode(device, forKey: .device)
            try container.encodeIfPresent(sourceFile, forKey: .sourceFile)
            try container.encode(window, forKey: .window)
            try container.encode(Self.iso8601(milliseconds: recordedAt), forKey: .recordedAt)
        }

        static let dateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

        /// `seconds` since the epoch as ISO 8601 with exactly three decimals, rounded (the formatter
        /// truncates, so 0.123 held as 0.12299999 would come back as .122 and the round trip would drift).
        static func iso8601(milliseconds seconds: Double) -> String {
            let milliseconds = Int64((seconds * 1000).rounded())
            let whole = milliseconds.quotientAndRemainder(dividingBy: 1000)
            let (second, fraction) = whole.remainder < 0 ? (whole.quotient - 1, whole.remainder + 1000) : whole
            let text = Date(timeIntervalSince1970: Double(second)).formatted(.iso8601)
            return String(text.dropLast()) + "." + String(1000 + fraction).dropFirst() + "Z"
        }
    }

    public struct Entry: Codable, Hashable, Sendable {
        public var beacon: BeaconID
        public var relativePower: Double
        public var meanRSSI: Double
        public var dispersion: Double
        public var visibility: Double

        enum CodingKeys: String, CodingKey {
            case beacon, dispersion, visibility
            case relativePower = "relative_power"
            case meanRSSI = "mean_rssi"
        }
    }

    public var spot: String
    public var device: String
    public var time: Double
    public var samples: Int
    public var session: Session
    public var entries: [Entry]
}

/// What an import of exported fingerprints added.
public struct FingerprintImportSummary: Hashable, Sendable, Codable {
    public var venue: String
    public var sessions: Int
    public var fingerprints: Int
    public var entries: Int
    public var revision: Int
}

extension FingerprintStore {
    /// Every fingerprint of a venue in the export format, in storage order, read in one transaction.
    public func exportFingerprints(of venueID: String) async throws -> [ExportedFingerprint] {
        try await sqlRead { db in try await self.exportFingerprints(of: venueID, db) }
    }

    /// ``exportFingerprints(of:)`` inside the caller's transaction.
    func exportFingerprints(of venueID: String, _ db: any SQLTransaction) async throws -> [ExportedFingerprint] {
        do {
            try await venueRecord(venueID, db)
            var beacons: [Int64: BeaconID] = [:]
            for (beacon, id) in try await beaconIndex(venueID, db, includeRetired: true) { beacons[id] = beacon }
            var sessions: [Int64: ExportedFingerprint.Session] = [:]
            for session in try await SurveySessionRecord.all(of: venueID, db) {
                sessions[session.id!] = ExportedFingerprint.Session(
                    operator: session.operator, device: session.device,
                    recordedAt: session.recordedAt.timeIntervalSince1970, sourceFile: session.sourceFile,
                    window: session.windowSize)
            }
            var exported: [ExportedFingerprint] = []
            var index: [Int64: Int] = [:]
            for row in try await db.rows("""
                SELECT f.id, s.name, f.device, f.time, f.sampleCount, f.sessionId
                FROM fingerprint f JOIN spot s ON s.id = f.spotId WHERE s.venueId = \(venueID) ORDER BY f.id
                """) {
                index[try row.integer("id")] = exported.count
                exported.append(ExportedFingerprint(
                    spot: try row.text("name"), device: try row.text("device"), time: try row.real("time"),
                    samples: try row.int("sampleCount"), session: sessions[try row.integer("sessionId")]!, entries: []))
            }
            for row in try await db.rows("""
                SELECT e.fingerprintId, e.beaconId, e.relativePower, e.meanRSSI, e.dispersion, e.visibility
                FROM fingerprintEntry e JOIN fingerprint f ON f.id = e.fingerprintId JOIN spot s ON s.id = f.spotId
                WHERE s.venueId = \(venueID) ORDER BY e.fingerprintId, e.beaconId
                """) {
                exported[index[try row.integer("fingerprintId")]!].entries.append(ExportedFingerprint.Entry(
                    beacon: beacons[try row.integer("beaconId")]!, relativePower: try row.real("relativePower"),
                    meanRSSI: try row.real("meanRSSI"), dispersion: try row.real("dispersion"), visibility: try row.real("visibility")))
            }
            for position in exported.indices { exported[position].entries.sort { $0.beacon < $1.beacon } }
            return exported
        }
    }

    /// Adds exported fingerprints to a venue that already has their spots and beacons (import the
    /// export's venue.json first). One transaction; unknown spots or beacons abort it.
    public func importFingerprints(_ fingerprints: [ExportedFingerprint], into venueID: String) async throws -> FingerprintImportSummary {
        try await sqlWrite { db in try await self.importFingerprints(fingerprints, into: venueID, db) }
    }

    /// Imports what `survey export` wrote, venue and fingerprints, in **one** transaction: a failure
    /// anywhere (a fingerprint at an unknown spot, a full disk) leaves the database as it was.
    ///
    /// - Throws: ``StoreError/conflict(_:)`` when the venue already has fingerprints (an import adds, so
    ///   importing twice would double the survey); the errors of ``importVenue(_:)`` and
    ///   ``importFingerprints(_:into:)``.
    public func importExport(
        venue definition: VenueDefinition, plans: [Int: FloorPlanImage] = [:], fingerprints: [ExportedFingerprint]
    ) async throws -> FingerprintImportSummary {
        try await sqlWrite { db in try await self.importExport(venue: definition, plans: plans, fingerprints: fingerprints, db) }
    }

    /// ``importExport(venue:plans:fingerprints:)`` inside the caller's transaction.
    func importExport(
        venue definition: VenueDefinition, plans: [Int: FloorPlanImage], fingerprints: [ExportedFingerprint], _ db: any SQLTransaction
    ) async throws -> FingerprintImportSummary {
        if try await VenueRecord.find(definition.id, db) != nil,
            try await db.count("SELECT COUNT(*) FROM fingerprint JOIN spot ON spot.id = fingerprint.spotId WHERE spot.venueId = \(definition.id)") > 0
        {
            throw StoreError.conflict("venue '\(definition.id)' already has fingerprints; import into a fresh database or another --db")
        }
        _ = try await importVenue(definition, plans: plans, db)
        return try await importFingerprints(fingerprints, into: definition.id, db)
    }

    /// ``importFingerprints(_:into:)`` inside the caller's transaction.
    func importFingerprints(_ fingerprints: [ExportedFingerprint], into venueID: String, _ db: any SQLTransaction) async throws -> FingerprintImportSummary {
        do {
            try await venueRecord(venueID, db)
            let beacons = try await beaconIndex(venueID, db, includeRetired: true)
            var spots: [String: Int64] = [:]
            for row in try await SpotRecord.all(of: venueID, db) { spots[row.name] = row.id! }
            var sessions: [ExportedFingerprint.Session: Int64] = [:]
            var entryCount = 0
            for (number, fingerprint) in fingerprints.enumerated() {
                guard let spotID = spots[fingerprint.spot] else {
                    throw StoreError.invalidInput("fingerprint \(number + 1) is at spot '\(fingerprint.spot)', which venue '\(venueID)' does not have")
                }
                let sessionID: Int64
                if let known = sessions[fingerprint.session] {
                    sessionID = known
                } else {
                    var record = SurveySessionRecord(
                        id: nil, venueId: venueID, operator: fingerprint.session.operator, device: fingerprint.session.device,
                        recordedAt: Date(timeIntervalSince1970: fingerprint.session.recordedAt),
                        sourceFile: fingerprint.session.sourceFile, windowSize: fingerprint.session.window)
                    try await record.insert(db)
                    sessionID = record.id!
                    sessions[fingerprint.session] = sessionID
                }
                let fingerprintID = try await db.insertReturningID(
                    "INSERT INTO fingerprint (spotId, sessionId, device, time, sampleCount) VALUES (\(spotID), \(sessionID), \(fingerprint.device), \(fingerprint.time), \(fingerprint.samples))")
                // One multi-row insert per fingerprint (at most 150 rows a statement, as `record` does).
                var rows: [[SQLValue]] = []
                for (position, entry) in fingerprint.entries.enumerated() {
                    guard let beaconID = beacons[entry.beacon] else {
                        throw StoreError.unknownBeacon(venue: venueID, beacon: entry.beacon.description)
                    }
                    rows.append([
                        .integer(fingerprintID), .integer(beaconID), .real(entry.relativePower), .real(entry.dispersion),
                        .real(entry.meanRSSI), .real(entry.visibility),
                    ])
                    if rows.count == EntryInserter.maximumRowsPerStatement || position == fingerprint.entries.count - 1 {
                        try await db.execute(EntryInserter.entries(rows))
                        rows.removeAll(keepingCapacity: true)
                    }
                    entryCount += 1
                }
            }
            if !fingerprints.isEmpty { try await bumpRevision(of: venueID, db) }
            return FingerprintImportSummary(
                venue: venueID, sessions: sessions.count, fingerprints: fingerprints.count, entries: entryCount,
                revision: try await revision(of: venueID, db))
        }
    }
}
