public import Foundation
import Positioning
public import PositioningTuning

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
    ) async throws -> StoredTuning {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let configuration = String(decoding: try encoder.encode(result.configuration), as: UTF8.self)
        let report = String(decoding: try encoder.encode(result), as: UTF8.self)
        let stored = try await daemonWrite { transaction -> StoredTuning in
            let current = try await self.revision(of: venueID, transaction)
            guard current == surveyRevision else {
                throw StoreError.conflict(
                    "venue '\(venueID)' changed while it was being tuned (revision \(surveyRevision) became \(current)); tune it again")
            }
            try await self.bumpRevision(of: venueID, transaction)
            let revision = try await self.revision(of: venueID, transaction)
            let tunedAt = SQLValue.storedPrecision(now)
            try await transaction.execute(
                """
                INSERT INTO venueTuning (venueId, revision, configuration, report, tunedAt, seconds) VALUES (\(venueID), \(Int64(revision)), \(configuration), \(report), \(tunedAt), \(seconds))
                ON CONFLICT(venueId) DO UPDATE SET revision = excluded.revision, configuration = excluded.configuration,
                report = excluded.report, tunedAt = excluded.tunedAt, seconds = excluded.seconds
                """)
            return StoredTuning(venue: venueID, revision: revision, result: result, tunedAt: tunedAt, seconds: seconds)
        }
        logger.debug("venue tuned", metadata: ["venue.id": "\(venueID)", "venue.revision": "\(stored.revision)"])
        return stored
    }

    /// The stored tuning of `venueID`, nil when it was never tuned.
    public func tuning(of venueID: String) async throws -> StoredTuning? {
        try await sqlRead { transaction in
            _ = try await self.revision(of: venueID, transaction)
            return try await self.tuning(of: venueID, transaction)
        }
    }

    /// The stored tuning, inside the caller's transaction.
    func tuning(of venueID: String, _ transaction: any SQLTransaction) async throws -> StoredTuning? {
        guard let row = try await transaction.rows(
            "SELECT revision, report, tunedAt, seconds FROM venueTuning WHERE venueId = \(venueID)").first
        else { return nil }
        let report = try row.text("report")
        do {
            let result = try JSONDecoder().decode(TuningResult.self, from: Data(report.utf8))
            return StoredTuning(
                venue: venueID, revision: Int(try row.integer("revision")), result: result, tunedAt: try row.date("tunedAt"),
                seconds: try row.real("seconds"))
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.invalidInput(
                "the stored tuning of venue '\(venueID)' cannot be read (\(error)); run 'survey tune --venue \(venueID)' again")
        }
    }
}
