public import Foundation
public import Positioning
import ScanFormats

/// One replacement or removal, as the audit trail keeps it.
public struct BeaconReplacement: Hashable, Sendable, Codable {
    /// Stored by name in `beaconReplacement.kind`; an unknown stored name fails the read.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// The old beacon's survey entries were handed to a new beacon.
        case replace
        /// The old beacon was retired with no successor.
        case remove
    }

    /// Nil for a dry run.
    public var id: Int64?
    public var venue: String
    public var kind: Kind
    public var old: String
    public var new: String?
    public var `operator`: String?
    public var performedAt: Date
    /// dB added to the inherited mean RSSIs (0 without calibration).
    public var offset: Double?
    /// The calibration's estimate and evidence, when one was given.
    public var calibration: ReplacementCalibration.Estimate?
    /// The replacement went ahead although the calibration was too thin (`--force`).
    public var forced: Bool
    /// Fingerprint entries the new beacon inherited.
    public var entriesInherited: Int
    public var undoneAt: Date?
    public var dryRun: Bool
    /// The venue's revision before and after (equal for a dry run).
    public var revisionBefore: Int
    public var revisionAfter: Int
}

/// What to do with a failed beacon.
public struct ReplacementRequest: Sendable {
    public var venue: String
    public var old: BeaconID
    /// Nil removes the old beacon without a successor.
    public var new: BeaconID?
    /// A short walk with ground truth at surveyed spots, in which the new beacon is live.
    public var calibration: [LabelledSample]?
    public var `operator`: String?
    /// Go ahead even when the calibration is too thin to trust.
    public var force: Bool
    /// Compute and report everything, write nothing.
    public var dryRun: Bool

    public init(
        venue: String, old: BeaconID, new: BeaconID?, calibration: [LabelledSample]? = nil, operator: String? = nil,
        force: Bool = false, dryRun: Bool = false
    ) {
        self.venue = venue
        self.old = old
        self.new = new
        self.calibration = calibration
        self.operator = `operator`
        self.force = force
        self.dryRun = dryRun
    }
}

struct BeaconReplacementRecord {
    var id: Int64?
    var venueId: String
    var kind: BeaconReplacement.Kind
    var oldBeaconId: Int64
    var newBeaconId: Int64?
    var newBeaconCreated: Bool
    var newBeaconPreviousStatus: BeaconStatus?
    var `operator`: String?
    var performedAt: Date
    var offsetDB: Double?
    var calibrationSpots: Int?
    var calibrationSpread: Double?
    var calibrationSummary: String?
    var forced: Bool
    var undoneAt: Date?
}

extension BeaconReplacementRecord {
    init(row: SQLRow) throws {
        id = try row.integer("id")
        venueId = try row.text("venueId")
        kind = try row.named("kind")
        oldBeaconId = try row.integer("oldBeaconId")
        newBeaconId = try row.optionalInteger("newBeaconId")
        newBeaconCreated = try row.bool("newBeaconCreated")
        newBeaconPreviousStatus = try row.optionalNamed("newBeaconPreviousStatus")
        `operator` = try row.optionalText("operator")
        performedAt = try row.date("performedAt")
        offsetDB = try row.optionalReal("offsetDB")
        calibrationSpots = try row.optionalInt("calibrationSpots")
        calibrationSpread = try row.optionalReal("calibrationSpread")
        calibrationSummary = try row.optionalText("calibrationSummary")
        forced = try row.bool("forced")
        undoneAt = try row.optionalDate("undoneAt")
    }

    /// The venue's replacements, newest first.
    static func all(of venue: String, _ transaction: any SQLTransaction) throws -> [BeaconReplacementRecord] {
        try transaction.rows("SELECT * FROM beaconReplacement WHERE venueId = ? ORDER BY id DESC", [.text(venue)])
            .map(BeaconReplacementRecord.init(row:))
    }

    static func find(id: Int64, _ transaction: any SQLTransaction) throws -> BeaconReplacementRecord? {
        try transaction.rows("SELECT * FROM beaconReplacement WHERE id = ?", [.integer(id)]).first.map(BeaconReplacementRecord.init(row:))
    }

    private var values: [SQLValue] {
        [
            .text(venueId), .text(kind.rawValue), .integer(oldBeaconId), SQLValue(newBeaconId), SQLValue(newBeaconCreated),
            SQLValue(newBeaconPreviousStatus?.rawValue), SQLValue(`operator`), SQLValue(performedAt), SQLValue(offsetDB),
            SQLValue(calibrationSpots), SQLValue(calibrationSpread), SQLValue(calibrationSummary), SQLValue(forced), SQLValue(undoneAt),
        ]
    }

    private static let columns = """
        venueId, kind, oldBeaconId, newBeaconId, newBeaconCreated, newBeaconPreviousStatus, operator, performedAt, offsetDB,
        calibrationSpots, calibrationSpread, calibrationSummary, forced, undoneAt
        """

    mutating func insert(_ transaction: any SQLTransaction) throws {
        id = try transaction.insertReturningID(
            "INSERT INTO beaconReplacement (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", values)
    }

    func update(_ transaction: any SQLTransaction) throws {
        guard let id else { throw StoreError.storageFault("a replacement without a row cannot be updated") }
        let assignments = Self.columns.split(separator: ",").map { "\($0.trimmingCharacters(in: .whitespacesAndNewlines)) = ?" }
        try transaction.execute("UPDATE beaconReplacement SET \(assignments.joined(separator: ", ")) WHERE id = ?", values + [.integer(id)])
    }
}
