public import Foundation
public import Positioning
public import PositioningTuning
public import ScanFormats

// The store seen one aggregate at a time. A service declares the repository it works on instead of taking
// the whole store: what it may read and write is in its type, and it can be handed any engine of the store
// (FingerprintStore conforms to every one of them, on SQLite and PostgreSQL alike).

/// A venue's survey as the models are built from it.
public protocol VenueSurveyRepository: Sendable {
    /// The venue's spots and survey fingerprints, its stored tuning and revision.
    func survey(of venueID: String, scale: any RelativePowerScale) async throws -> VenueSurvey
}

/// Venues: their definitions, summaries and revisions.
public protocol VenueRepository: VenueSurveyRepository {
    func importVenue(_ definition: VenueDefinition, plans: [Int: FloorPlanImage]) async throws -> VenueImportSummary
    func venues() async throws -> [VenueSummary]
    func venue(_ id: String) async throws -> VenueDetails
    /// Every venue's current revision.
    func revisions() async throws -> [String: Int]
}

/// A venue's tuning: the survey it is chosen on and the result kept with the venue.
public protocol TuningRepository: VenueSurveyRepository {
    /// Stores a tuning made on the survey of `surveyRevision`, refused when the venue changed since.
    func saveTuning(_ result: TuningResult, of venueID: String, surveyRevision: Int, seconds: Double, now: Date) async throws -> StoredTuning
    func tuning(of venueID: String) async throws -> StoredTuning?
}

extension TuningRepository {
    /// Stores a tuning made now.
    public func saveTuning(_ result: TuningResult, of venueID: String, surveyRevision: Int, seconds: Double) async throws -> StoredTuning {
        try await saveTuning(result, of: venueID, surveyRevision: surveyRevision, seconds: seconds, now: Date())
    }
}

/// The visitors' movement history: written by the daemon, read by the analytics.
public protocol HistoryRepository: Sendable {
    func recordHistory(_ batches: [String: VenueHistoryBatch]) async throws -> HistoryWriteSummary
    /// Prunes what is older than `cutoff` and closes the visits of devices silent since `abandonedBefore`.
    func maintainHistory(before cutoff: Double, abandonedBefore: Double) async throws -> (pruned: Int, closed: Int)
    func setHistoryRecording(of venue: String, to recording: Bool) async throws -> HistoryRecordingState
    func historyRecording(of venue: String) async throws -> HistoryRecordingState
    func presence(of venue: String, window: Double, now: Double) async throws -> PresenceReport
    func dwell(of venue: String, from: Double, to: Double, minimumVisit: Double) async throws -> DwellReport
    func funnel(of venue: String, zones: [String], from: Double, to: Double, within: Double) async throws -> FunnelReport
    func heatmap(of venue: String, floor: Int, cell: Int, from: Double, to: Double) async throws -> HeatmapReport
}

/// API keys, stored as hashes.
public protocol KeyRepository: Sendable {
    func createKey(name: String, scope: APIKeyScope) async throws -> CreatedAPIKey
    func keys() async throws -> [APIKeyInfo]
    func revokeKey(id: Int64) async throws -> APIKeyInfo
    /// Whether any key was ever created (until then the daemon is open), and the active keys' hashes.
    func authenticationState() async throws -> (anyKeyCreated: Bool, active: [String: APIKeyScope])
}

/// Survey sessions uploaded in batches and committed as one recording.
public protocol SurveySessionRepository: Sendable {
    func openSurveyUpload(
        venue: String, operator surveyor: String?, deviceModel: String?, notes: String?, walk: SurveyWalkSettings?
    ) async throws -> SurveyUpload
    func surveyUpload(_ id: String, of venue: String) async throws -> SurveyUpload
    func addSurveyBatch(
        _ samples: [ScanLine], checkpoints: [WalkPathFile.Entry], id batchID: String, to upload: String, of venue: String
    ) async throws -> SurveyBatchReceipt
    func commitSurveyUpload(_ id: String, of venue: String, options: RecordOptions) async throws -> SurveyUploadCommit
    func abandonSurveyUpload(_ id: String, of venue: String) async throws -> SurveyUpload
    func surveyUploadCoverage(_ id: String, of venue: String) async throws -> SurveyUploadCoverage
}

/// Beacon health: the live evidence, the monitor's state and the operators' decisions.
public protocol BeaconHealthRepository: VenueSurveyRepository {
    /// Whether other replicas share this store (their evidence is then read back from it).
    var isShared: Bool { get }
    func recordBeaconEvidence(venue: String, revision: Int, samples: [LocatedSample]) async throws
    /// Runs `step` on the stored state and the pending evidence (with `local`), in one transaction.
    func advanceBeaconHealth(
        venue: String, revision: Int, local: [LocatedSample],
        step: @escaping @Sendable (_ stored: StoredBeaconHealth?, _ samples: [LocatedSample]) throws -> BeaconHealthStep?
    ) async throws -> BeaconHealthTurn
    func beaconHealth(of venue: String) async throws -> StoredBeaconHealth?
    func beaconHealthVersion(of venue: String) async throws -> Int?
    /// Stores the assessment of the venue's silent beacons when they are still the monitor's silent set;
    /// returns whether it did.
    func storeDegradedVenue(_ degraded: DegradedVenue, venue: String) async throws -> Bool
    func beaconHealthHistory(of venue: String, limit: Int) async throws -> [BeaconHealthChangeRecord]
}

extension FingerprintStore: VenueRepository, TuningRepository, HistoryRepository, KeyRepository, SurveySessionRepository,
    BeaconHealthRepository {}
