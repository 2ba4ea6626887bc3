public import Foundation
public import Positioning
public import PositioningTuning
import ScanFormats

/// One replacement or removal, as the audit trail keeps it.
public struct BeaconReplacement: Hashable, Sendable, Codable {
    /// Stored by name in `beaconReplacement.kind`; an unknown stored name fails the read.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// The old beacon's survey entries were handed to a new beacon.
        case replace
        /// The old beacon was retired with no successor.
        case remove
        /// The two beacons exchanged ids in the survey: each had been hung in the other's place.
        case swap
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
    /// The beacon-health proposal the replacement or swap accepted, when it came from one: its offset was
    /// estimated from live scans instead of a calibration walk.
    public var proposal: BeaconProposal?
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
    /// A beacon-health proposal whose offset (estimated from live scans) replaces a calibration walk's.
    public var proposal: BeaconProposal?
    public var `operator`: String?
    /// Go ahead even when the calibration is too thin to trust.
    public var force: Bool
    /// Compute and report everything, write nothing.
    public var dryRun: Bool

    public init(
        venue: String, old: BeaconID, new: BeaconID?, calibration: [LabelledSample]? = nil, operator: String? = nil,
        force: Bool = false, dryRun: Bool = false, proposal: BeaconProposal? = nil
    ) {
        self.venue = venue
        self.old = old
        self.new = new
        self.calibration = calibration
        self.proposal = proposal
        self.operator = `operator`
        self.force = force
        self.dryRun = dryRun
    }
}

/// A row of `beaconReplacement`, declared once (``TableRow``).
struct BeaconReplacementRecord: IdentifiedRow {
    package static let table = "beaconReplacement"
    package static let conflictColumns = ["id"]

    package var id: Int64?
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
    /// The venue's replacements, newest first.
    static func all(of venue: String, _ transaction: any SQLTransaction) async throws -> [BeaconReplacementRecord] {
        try await fetchAll(transaction, where: "venueId = \(venue)", orderBy: "id DESC")
    }

    static func find(id: Int64, _ transaction: any SQLTransaction) async throws -> BeaconReplacementRecord? {
        try await fetchOne(transaction, where: "id = \(id)")
    }
}
