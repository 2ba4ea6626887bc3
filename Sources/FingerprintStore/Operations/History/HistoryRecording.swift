import Crypto
import NIOPosix
import Foundation
public import Positioning

/// A device's zone visit, opened or closed, as positiond hands it to the store: the device as the phone
/// named it (pseudonymised by the store before anything is written).
public struct DeviceVisit: Hashable, Sendable {
    public var device: String
    public var visit: ZoneVisit

    public init(device: String, visit: ZoneVisit) {
        self.device = device
        self.visit = visit
    }
}

/// A device's trace point, as positiond hands it to the store.
public struct DeviceTracePoint: Hashable, Sendable {
    public var device: String
    public var point: TracePoint

    public init(device: String, point: TracePoint) {
        self.device = device
        self.point = point
    }
}

/// Where a device was last seen: what presence counts.
public struct DeviceSighting: Hashable, Sendable {
    public var device: String
    public var time: Double
    public var floor: Int?
    /// The zone it was in then (after hysteresis); nil outside every zone.
    public var zone: String?

    public init(device: String, time: Double, floor: Int?, zone: String?) {
        self.device = device
        self.time = time
        self.floor = floor
        self.zone = zone
    }
}

/// What positiond buffered for one venue since its last write.
public struct VenueHistoryBatch: Hashable, Sendable {
    /// Visits opened (no exit yet) or closed, in the order they happened.
    public var visits: [DeviceVisit] = []
    public var trace: [DeviceTracePoint] = []
    /// The newest sighting of each device seen, one per device.
    public var sightings: [DeviceSighting] = []

    public init(visits: [DeviceVisit] = [], trace: [DeviceTracePoint] = [], sightings: [DeviceSighting] = []) {
        self.visits = visits
        self.trace = trace
        self.sightings = sightings
    }

    public var isEmpty: Bool { visits.isEmpty && trace.isEmpty && sightings.isEmpty }

    /// Appends `other`'s visits, trace points and sightings, in that order after this batch's.
    public mutating func append(_ other: VenueHistoryBatch) {
        visits += other.visits
        trace += other.trace
        sightings += other.sightings
    }
}

/// What one history write stored.
public struct HistoryWriteSummary: Hashable, Sendable {
    public var visits = 0
    public var tracePoints = 0
    public var heatCells = 0
    public var sightings = 0
    /// Venues whose batch was dropped: recording is off for them, or they no longer exist.
    public var skippedVenues: [String] = []
}

/// A venue's history setting.
public struct HistoryRecordingState: Hashable, Sendable, Codable {
    public var venue: String
    public var recording: Bool
}

extension FingerprintStore {
    /// Rows per multi-row statement: PostgreSQL's statements stay far under its limit of bound parameters.
    static let historyRowsPerStatement = 150
    /// The heatmap's grid, in metres: device-seconds are kept per cell of this size and per hour.
    public static let heatCellSize = 1.0

    /// Writes one batch of every venue's history in one transaction: visits (opened ones inserted, closed
    /// ones completed), trace points, their device-seconds added to the hourly heatmap cells, and the
    /// devices' newest sightings. Devices are stored as pseudonyms keyed by the venue's secret (made on
    /// first use); a venue whose recording is off, or that no longer exists, is skipped whole.
    func writeHistory(_ batches: [String: VenueHistoryBatch]) async throws -> HistoryWriteSummary {
        guard batches.values.contains(where: { !$0.isEmpty }) else { return HistoryWriteSummary() }
        return try await daemonWrite { transaction in
            var summary = HistoryWriteSummary()
            for (venue, batch) in batches.sorted(by: { $0.key < $1.key }) where !batch.isEmpty {
                guard let secret = try await self.historySecret(of: venue, creating: true, transaction) else {
                    summary.skippedVenues.append(venue)
                    continue
                }
                var pseudonyms: [String: Int64] = [:]
                func pseudonym(_ device: String) -> Int64 {
                    if let known = pseudonyms[device] { return known }
                    let value = Self.devicePseudonym(device, secret: secret)
                    pseudonyms[device] = value
                    return value
                }
                let venueValue = SQLValue.text(venue)

                // Visits: the newest state of each, in one upsert; an exit completes the open row.
                var latest: [VisitKey: ZoneVisit] = [:]
                var order: [VisitKey] = []
                for item in batch.visits {
                    let key = VisitKey(device: pseudonym(item.device), zone: item.visit.zone, enteredAt: item.visit.enteredAt)
                    if latest[key] == nil { order.append(key) }
                    if latest[key]?.exitedAt == nil { latest[key] = item.visit }
                }
                try await self.insertRows(
                    "INSERT INTO zoneVisit (venueId, device, zone, enteredAt, exitedAt, duration) VALUES",
                    """
                    ON CONFLICT (venueId, device, zone, enteredAt) DO UPDATE SET
                    exitedAt = COALESCE(excluded.exitedAt, zoneVisit.exitedAt), duration = COALESCE(excluded.duration, zoneVisit.duration)
                    """,
                    order.map { key in
                        let visit = latest[key]!
                        return [venueValue, .integer(key.device), .text(key.zone), .real(key.enteredAt), SQLValue(visit.exitedAt), SQLValue(visit.duration)]
                    }, transaction)
                summary.visits += order.count

                try await self.insertRows(
                    "INSERT INTO positionTrace (venueId, device, at, level, x, y, zone) VALUES", "",
                    batch.trace.map { item in
                        let point = item.point
                        return [venueValue, .integer(pseudonym(item.device)), .real(point.time), SQLValue(point.floor), .real(point.x), .real(point.y), SQLValue(point.zone)]
                    }, transaction)
                summary.tracePoints += batch.trace.count

                var cells: [HeatCellKey: Double] = [:]
                for item in batch.trace where item.point.seconds > 0 {
                    let point = item.point
                    let key = HeatCellKey(
                        floor: point.floor, hour: Int64((point.time / 3600).rounded(.down)),
                        x: Int64((point.x / Self.heatCellSize).rounded(.down)), y: Int64((point.y / Self.heatCellSize).rounded(.down)))
                    cells[key, default: 0] += point.seconds
                }
                try await self.insertRows(
                    "INSERT INTO heatCell (venueId, level, hour, cellX, cellY, seconds) VALUES",
                    "ON CONFLICT (venueId, level, hour, cellX, cellY) DO UPDATE SET seconds = heatCell.seconds + excluded.seconds",
                    cells.sorted { ($0.key.floor, $0.key.hour, $0.key.x, $0.key.y) < ($1.key.floor, $1.key.hour, $1.key.x, $1.key.y) }.map { key, seconds in
                        [venueValue, SQLValue(key.floor), .integer(key.hour), .integer(key.x), .integer(key.y), .real(seconds)]
                    }, transaction)
                summary.heatCells += cells.count

                // Newest sighting per device; an older one (a late batch of another replica) never wins.
                var newest: [Int64: DeviceSighting] = [:]
                for sighting in batch.sightings {
                    let device = pseudonym(sighting.device)
                    if let known = newest[device], known.time > sighting.time { continue }
                    newest[device] = sighting
                }
                try await self.insertRows(
                    "INSERT INTO devicePresence (venueId, device, lastSeen, level, zone) VALUES",
                    """
                    ON CONFLICT (venueId, device) DO UPDATE SET lastSeen = excluded.lastSeen, level = excluded.level, zone = excluded.zone
                    WHERE excluded.lastSeen >= devicePresence.lastSeen
                    """,
                    newest.sorted { $0.key < $1.key }.map { device, sighting in
                        [venueValue, .integer(device), .real(sighting.time), SQLValue(sighting.floor), SQLValue(sighting.zone)]
                    }, transaction)
                summary.sightings += newest.count
            }
            return summary
        }
    }

    /// Switches the recording of `venue`'s history on or off (on by default); what is stored stays.
    @discardableResult
    public func setHistoryRecording(of venue: String, to recording: Bool) async throws -> HistoryRecordingState {
        // Through the history's connection: positiond's store is otherwise read-only.
        try await daemonWrite { transaction in
            _ = try await self.revision(of: venue, transaction)
            _ = try await self.historySecret(of: venue, creating: true, transaction, evenWhenOff: true)
            try await transaction.execute("UPDATE venueHistory SET recording = \(recording) WHERE venueId = \(venue)")
            return HistoryRecordingState(venue: venue, recording: recording)
        }
    }

    /// Whether `venue`'s history is recorded.
    public func historyRecording(of venue: String) async throws -> HistoryRecordingState {
        try await sqlRead { transaction in
            _ = try await self.revision(of: venue, transaction)
            let row = try await transaction.rows("SELECT recording FROM venueHistory WHERE venueId = \(venue)").first
            return HistoryRecordingState(venue: venue, recording: try row?.bool("recording") ?? true)
        }
    }

    /// Deletes history older than `cutoff` (seconds since the Unix epoch): visits that entered before it,
    /// trace points, heatmap hours that ended before it, and sightings. Returns the rows deleted.
    @discardableResult
    public func pruneHistory(before cutoff: Double) async throws -> Int {
        try await daemonWrite { transaction in
            var deleted = 0
            let venues = try await transaction.rows("SELECT venueId FROM venueHistory").map { try $0.text("venueId") }
            for venue in venues {
                let hour = Int64((cutoff / 3600).rounded(.down))
                // Each table's rows older than the cutoff: counted, then deleted.
                let older: [(table: String, condition: SQLStatement)] = [
                    ("zoneVisit", "venueId = \(venue) AND enteredAt < \(cutoff)"),
                    ("positionTrace", "venueId = \(venue) AND at < \(cutoff)"),
                    ("heatCell", "venueId = \(venue) AND hour < \(hour)"),
                    ("devicePresence", "venueId = \(venue) AND lastSeen < \(cutoff)"),
                ]
                for (table, condition) in older {
                    deleted += try await transaction.count("SELECT COUNT(*) FROM \(sql: table) WHERE \(sql: condition)")
                    try await transaction.execute("DELETE FROM \(sql: table) WHERE \(sql: condition)")
                }
            }
            return deleted
        }
    }

    /// Closes visits left open by a daemon that stopped without closing them (killed, or its machine lost):
    /// those of devices last seen before `lastSeenBefore` end at that last sighting. Returns how many.
    @discardableResult
    public func closeAbandonedVisits(lastSeenBefore cutoff: Double) async throws -> Int {
        try await daemonWrite { transaction in
            let lastSeen = "(SELECT p.lastSeen FROM devicePresence p WHERE p.venueId = zoneVisit.venueId AND p.device = zoneVisit.device)"
            let abandoned: SQLStatement = """
                exitedAt IS NULL AND EXISTS (SELECT 1 FROM devicePresence p WHERE p.venueId = zoneVisit.venueId
                AND p.device = zoneVisit.device AND p.lastSeen < \(cutoff))
                """
            let count = try await transaction.count("SELECT COUNT(*) FROM zoneVisit WHERE \(sql: abandoned)")
            guard count > 0 else { return 0 }
            try await transaction.execute(
                """
                UPDATE zoneVisit SET exitedAt = CASE WHEN \(sql: lastSeen) > enteredAt THEN \(sql: lastSeen) ELSE enteredAt END,
                duration = CASE WHEN \(sql: lastSeen) > enteredAt THEN \(sql: lastSeen) - enteredAt ELSE 0 END WHERE \(sql: abandoned)
                """)
            return count
        }
    }

    /// A device's pseudonym in a venue: the first 8 bytes of HMAC-SHA256 of its id under the venue's secret.
    /// Stable for the venue (visits of one device join up), unlinkable across venues, and not reversible
    /// without the secret, which never leaves the store.
    static func devicePseudonym(_ device: String, secret: Data) -> Int64 {
        let code = HMAC<SHA256>.authenticationCode(for: Data(device.utf8), using: SymmetricKey(data: secret))
        return code.withUnsafeBytes { bytes in
            bytes.prefix(8).reduce(Int64(0)) { ($0 << 8) | Int64($1) }
        }
    }

    /// The venue's history secret, made on first use; nil when recording is off (unless `evenWhenOff`) or
    /// the venue does not exist.
    private func historySecret(
        of venue: String, creating: Bool, _ transaction: any SQLTransaction, evenWhenOff: Bool = false
    ) async throws -> Data? {
        let select: SQLStatement = "SELECT recording, secret FROM venueHistory WHERE venueId = \(venue)"
        if let row = try await transaction.rows(select).first {
            return try row.bool("recording") || evenWhenOff ? try row.blob("secret") : nil
        }
        guard creating, try await transaction.count("SELECT COUNT(*) FROM venue WHERE id = \(venue)") > 0 else { return nil }
        var generator = SystemRandomNumberGenerator()
        let secret = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        // Two replicas may make one at once: the first stored wins, and both use it.
        try await transaction.execute(
            "INSERT INTO venueHistory (venueId, recording, secret) VALUES (\(venue), 1, \(secret)) ON CONFLICT (venueId) DO NOTHING")
        guard let row = try await transaction.rows(select).first else { return nil }
        return try row.bool("recording") || evenWhenOff ? try row.blob("secret") : nil
    }

    /// Runs `rows` as multi-row `INSERT`s of at most ``historyRowsPerStatement`` rows: `prefix` up to
    /// `VALUES`, `suffix` after the tuples (an `ON CONFLICT` clause, or nothing).
    private func insertRows(_ prefix: String, _ suffix: String, _ rows: [[SQLValue]], _ transaction: any SQLTransaction) async throws {
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(rows.count, start + Self.historyRowsPerStatement)]
            try await transaction.execute("\(sql: prefix) \(rows: chunk) \(sql: suffix)")
            start += chunk.count
        }
    }
}

private struct VisitKey: Hashable {
    var device: Int64
    var zone: String
    var enteredAt: Double
}

private struct HeatCellKey: Hashable {
    var floor: Int
    var hour: Int64
    var x: Int64
    var y: Int64
}

extension FingerprintStore {
    /// Writes one batch of every venue's history in one transaction (``writeHistory(_:)``): the transaction
    /// waits on the disk or the network without holding a thread of Swift's concurrency pool.
    @discardableResult
    public func recordHistory(_ batches: [String: VenueHistoryBatch]) async throws -> HistoryWriteSummary {
        try await writeHistory(batches)
    }

    /// ``pruneHistory(before:)`` then ``closeAbandonedVisits(lastSeenBefore:)``.
    public func maintainHistory(before cutoff: Double, abandonedBefore: Double) async throws -> (pruned: Int, closed: Int) {
        (try await pruneHistory(before: cutoff), try await closeAbandonedVisits(lastSeenBefore: abandonedBefore))
    }
}
