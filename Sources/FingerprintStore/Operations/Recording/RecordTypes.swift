import Foundation
public import Positioning
public import PositioningTuning
import ScanFormats

/// How `record` turns a survey log into fingerprints.
public struct RecordOptions: Sendable {
    /// Consecutive samples of one device at one spot per fingerprint.
    public var windowSize: Int
    /// Who walked the venue, for the session's audit trail.
    public var `operator`: String?
    /// The file the samples came from.
    public var sourceFile: String?
    /// Beacons heard but unknown to the venue are added to it instead of being left out.
    public var addUnknownBeacons: Bool
    public var builder: FingerprintBuilder

    public init(
        windowSize: Int, operator: String? = nil, sourceFile: String? = nil, addUnknownBeacons: Bool = false,
        builder: FingerprintBuilder
    ) {
        self.windowSize = windowSize
        self.operator = `operator`
        self.sourceFile = sourceFile
        self.addUnknownBeacons = addUnknownBeacons
        self.builder = builder
    }
}

/// What `record` stored, and what the surveyor should look at.
public struct RecordSummary: Hashable, Sendable, Codable {
    public struct SpotCoverage: Hashable, Sendable, Codable {
        public var spot: String
        /// Fingerprints this run added.
        public var added: Int
        /// Fingerprints the spot has now, all runs included.
        public var total: Int
        /// Median number of beacons a fingerprint of the spot sees.
        public var medianBeacons: Int
    }

    public var venue: String
    public var samples: Int
    public var fingerprints: Int
    /// Samples in which no beacon was heard (skipped before windowing).
    public var emptySamples: Int
    /// Windows in which no reading survived cleaning.
    public var unusableWindows: Int
    public var cleaning: CleaningReport
    /// Readings of beacons the venue does not know (or has retired), per beacon.
    public var unknownBeaconReadings: [String: Int]
    /// Beacons added to the venue because `addUnknownBeacons` was set.
    public var beaconsAdded: [String]
    /// Spots created from the log's coordinates.
    public var spotsCreated: [String]
    public var spots: [SpotCoverage]
    /// Spots with fewer than 3 fingerprints or whose fingerprints see fewer than 3 beacons.
    public var spotsToRevisit: [String]
    public var revision: Int
}

/// Samples already in memory: one chunk.
struct LabelledSampleArray: LabelledSampleSource {
    var samples: [LabelledSample]?

    mutating func nextChunk() -> [LabelledSample]? {
        defer { samples = nil }
        return samples
    }
}
