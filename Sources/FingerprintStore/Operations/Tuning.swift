public import Foundation
import GRDB
public import Positioning

/// A venue's stored tuning: what `survey tune` chose, and on what.
public struct StoredTuning: Hashable, Sendable, Codable {
    public var venue: String
    /// The venue revision the tuning was stored at.
    public var revision: Int
    public var result: TuningResult
    public var tunedAt: Date
    /// How long the tuning took.
    public var seconds: Double
}

extension FingerprintStore {
    /// Stores `result` as the tuning of `venueID` (replacing any earlier one) and bumps the venue's revision,
    /// so a running positiond reloads the venue with it. One transaction.
    ///
    /// - Parameter surveyRevision: the revision the survey was read at; when the venue has changed since,
    ///   nothing is stored (the tuning would describe a survey that no longer exists) and
    ///   ``StoreError/conflict(_:)`` says so.
    @discardableResult
    public func saveTuning(
        _ result: TuningResult, of venueID: String, surveyRevision: Int, seconds: Double, now: Date = Date()
    ) throws -> StoredTuning {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let configuration = String(decoding: try encoder.encode(result.configuration), as: UTF8.self)
        let report = String(decoding: try encoder.encode(result), as: UTF8.self)
        let stored = try write { db -> StoredTuning in
            let current = try revision(of: venueID, db)
            guard current == surveyRevision else {
                throw StoreError.conflict(
                    "venue '\(venueID)' changed while it was being tuned (revision \(surveyRevision) became \(current)); tune it again")
            }
            try bumpRevision(of: venueID, db)
            let revision = try revision(of: venueID, db)
            try db.execute(
                sql: """
                    INSERT INTO venueTuning (venueId, revision, configuration, report, tunedAt, seconds) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(venueId) DO UPDATE SET revision = excluded.revision, configuration = excluded.configuration,
                    report = excluded.report, tunedAt = excluded.tunedAt, seconds = excluded.seconds
                    """,
                arguments: [venueID, revision, configuration, report, now, seconds])
            return StoredTuning(venue: venueID, revision: revision, result: result, tunedAt: now, seconds: seconds)
        }
        logger.debug("venue tuned", metadata: ["venue.id": "\(venueID)", "venue.revision": "\(stored.revision)"])
        return stored
    }

    /// The stored tuning of `venueID`, nil when it was never tuned.
    public func tuning(of venueID: String) throws -> StoredTuning? {
        try writer.read { db in
            _ = try venueRecord(venueID, db)
            return try tuning(of: venueID, db)
        }
    }

    func tuning(of venueID: String, _ db: Database) throws -> StoredTuning? {
        guard let row = try Row.fetchOne(
            db, sql: "SELECT revision, report, tunedAt, seconds FROM venueTuning WHERE venueId = ?", arguments: [venueID])
        else { return nil }
        let report: String = row["report"]
        do {
            let result = try JSONDecoder().decode(TuningResult.self, from: Data(report.utf8))
            return StoredTuning(venue: venueID, revision: row["revision"], result: result, tunedAt: row["tunedAt"], seconds: row["seconds"])
        } catch {
            throw StoreError.invalidInput(
                "the stored tuning of venue '\(venueID)' cannot be read (\(error)); run 'survey tune --venue \(venueID)' again")
        }
    }
}
