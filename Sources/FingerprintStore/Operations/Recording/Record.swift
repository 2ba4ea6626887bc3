import Foundation
import Positioning
public import PositioningTuning
public import ScanFormats

extension FingerprintStore {
    /// Builds fingerprints from a survey log and stores them, all in one transaction.
    ///
    /// - Parameter samples: the log's samples with their ground truth, in file order.
    /// - Throws: ``StoreError/unknownVenue(_:)``; nothing is written on any error.
    public func record(_ samples: [LabelledSample], into venueID: String, options: RecordOptions) async throws -> RecordSummary {
        try await record(from: LabelledSampleArray(samples: samples), into: venueID, options: options)
    }

    /// Builds fingerprints from a survey log read a chunk at a time and stores them, all in one
    /// transaction: the windows and fingerprints are exactly those of the whole log at once.
    ///
    /// - Throws: ``StoreError/unknownVenue(_:)``, or what `source` throws; nothing is written on any error.
    public func record(from source: some LabelledSampleSource, into venueID: String, options: RecordOptions) async throws -> RecordSummary {
        guard options.windowSize >= 1 else { throw StoreError.invalidInput("the window must hold at least 1 sample") }
        // The source is read only inside the transaction, by its one task.
        nonisolated(unsafe) let source: any LabelledSampleSource = source
        let summary = try await sqlWrite { db in try await self.record(from: source, into: venueID, options: options, db) }
        logger.debug(
            "survey recorded",
            metadata: ["venue.id": "\(venueID)", "fingerprints": "\(summary.fingerprints)", "venue.revision": "\(summary.revision)"])
        return summary
    }

    /// The recording itself, inside the caller's transaction: what `survey record` and a committed survey
    /// session (``commitSurveyUpload(_:of:options:)``) share.
    func record(from source: some LabelledSampleSource, into venueID: String, options: RecordOptions, _ db: any SQLTransaction) async throws -> RecordSummary {
        var source = source
        var recording = try await SurveyRecording(store: self, venueID: venueID, options: options, db)
        while let chunk = try source.nextChunk() {
            try await recording.take(chunk)
        }
        return try await recording.finish()
    }

    /// Active beacons of a venue by identity, with their row ids.
    func beaconIndex(_ venueID: String, _ db: any SQLTransaction, includeRetired: Bool = false) async throws -> [BeaconID: Int64] {
        var index: [BeaconID: Int64] = [:]
        for row in try await BeaconRecord.all(of: venueID, includeRetired: includeRetired, db) { index[try row.identity] = row.id! }
        return index
    }
}
