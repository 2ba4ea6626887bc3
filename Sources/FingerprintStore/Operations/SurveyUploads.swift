public import Foundation
public import ScanFormats
import Positioning

/// A survey recorded over HTTP: a session a surveyor's app opens for a venue, fills with batches of
/// labelled samples as they are taken, and commits (recorded as `survey record` records a log) or
/// abandons. Until then its samples are kept apart from the venue's survey.
public struct SurveyUpload: Hashable, Sendable, Codable {
    public enum State: String, Hashable, Sendable, Codable {
        case open
        case committed
        case abandoned
    }

    public var id: String
    public var venue: String
    public var `operator`: String?
    public var deviceModel: String?
    public var notes: String?
    public var state: State
    public var openedAt: Date
    public var closedAt: Date?
    /// Samples stored so far, over every batch.
    public var samples: Int
    public var batches: Int
    /// Once committed: the fingerprints recorded and the venue's revision they made.
    public var fingerprints: Int?
    public var revision: Int?
    /// A walking survey's placement settings; nil for a session whose samples carry their ground truth.
    public var walk: SurveyWalkSettings?
    /// Checkpoints stored so far, over every batch (a walking session's only).
    public var checkpoints: Int = 0
}

/// How a walking survey session places its samples at commit, as `survey record --path` does: a sample
/// without coordinates goes where the walked path was at its time, then joins the venue's spot within
/// `snapDistance` metres, or else a spot at the centre of its `cellSize` grid cell.
public struct SurveyWalkSettings: Hashable, Sendable, Codable {
    public var cellSize: Double
    public var snapDistance: Double

    public init(cellSize: Double = 1, snapDistance: Double = 0.5) {
        self.cellSize = cellSize
        self.snapDistance = snapDistance
    }

    /// The ranges `survey record` accepts for `--cell` and `--snap`.
    public static let cellSizes: ClosedRange<Double> = 0.05...100
    public static let snapDistances: ClosedRange<Double> = 0...100

    func assignment(spots: [Spot]) -> WalkSpotAssignment {
        WalkSpotAssignment(spots: spots, cellSize: cellSize, snapDistance: snapDistance)
    }
}

/// What committing a survey session did.
public struct SurveyUploadCommit: Hashable, Sendable {
    public var upload: SurveyUpload
    public var summary: RecordSummary
    /// A walking session's placement of its samples without coordinates.
    public var walk: WalkPlacementCounts?
}

/// What storing a batch did.
public struct SurveyBatchReceipt: Hashable, Sendable, Codable {
    public var upload: SurveyUpload
    public var batchID: String
    /// The batch had been stored before under this id (a retry after a lost answer): nothing was added.
    public var duplicate: Bool
    /// The samples of this batch.
    public var samples: Int
    /// The checkpoints of this batch.
    public var checkpoints: Int = 0
}

/// A batch whose samples the store refuses: every bad sample, by its index in the batch.
public struct InvalidSurveyBatch: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Problem: Hashable, Sendable {
        /// The batch's list the refused item is in.
        public enum List: String, Hashable, Sendable {
            case samples
            case checkpoints
        }

        /// The item's index in its list, from 0.
        public var index: Int
        public var message: String
        public var list: List = .samples
    }

    public var problems: [Problem]

    public var description: String {
        let shown = problems.prefix(5).map { "\($0.list.rawValue)[\($0.index)]: \($0.message)" }.joined(separator: "; ")
        return problems.count > 5 ? "\(shown); and \(problems.count - 5) more" : shown
    }
}

/// A row of `surveyUpload`, declared once (``TableRow``). Its times are seconds since the Unix epoch.
struct SurveyUploadRow: TableRow {
    package static let table = "surveyUpload"
    package static let conflictColumns = ["id"]

    package var id: String
    var venueId: String
    var `operator`: String?
    var deviceModel: String?
    var notes: String?
    /// Kept as stored, so that a state this build does not know is refused with the session named.
    var state: String
    var openedAt: Double
    var closedAt: Double?
    var samples: Int = 0
    var batches: Int = 0
    var fingerprints: Int?
    var revision: Int?
    var walkCell: Double?
    var walkSnap: Double?
    var checkpoints: Int = 0
}

extension SurveyUpload {
    init(_ row: SurveyUploadRow) throws(StoreError) {
        guard let state = State(rawValue: row.state) else {
            throw .storageFault("survey session \(row.id) has the state '\(row.state)', which this build does not know")
        }
        let walk = row.walkCell.map { SurveyWalkSettings(cellSize: $0, snapDistance: row.walkSnap ?? 0) }
        self.init(
            id: row.id, venue: row.venueId, operator: row.operator, deviceModel: row.deviceModel, notes: row.notes, state: state,
            openedAt: Date(timeIntervalSince1970: row.openedAt), closedAt: row.closedAt.map(Date.init(timeIntervalSince1970:)),
            samples: row.samples, batches: row.batches, fingerprints: row.fingerprints, revision: row.revision, walk: walk,
            checkpoints: row.checkpoints)
    }
}

extension FingerprintStore {
    /// The longest batch id, and the longest operator, device model and notes a session keeps.
    public static let surveyBatchIDLimit = 128
    public static let surveyTextLimit = 1_000

    /// Opens a survey session for `venue`: a walking survey when `walk` is given (its samples may come
    /// without coordinates, and its batches with checkpoints that place them at commit).
    /// - Throws: ``StoreError/unknownVenue(_:)``; ``StoreError/invalidInput(_:)`` for a text over
    ///   ``surveyTextLimit`` characters, or walk settings out of the ranges `survey record` accepts.
    public func openSurveyUpload(
        venue: String, operator surveyor: String?, deviceModel: String?, notes: String?, walk: SurveyWalkSettings? = nil
    ) async throws -> SurveyUpload {
        if let walk {
            guard walk.cellSize.isFinite, SurveyWalkSettings.cellSizes.contains(walk.cellSize) else {
                throw StoreError.invalidInput("walk.cell_m must be from 0.05 to 100 metres (got \(walk.cellSize))")
            }
            guard walk.snapDistance.isFinite, SurveyWalkSettings.snapDistances.contains(walk.snapDistance) else {
                throw StoreError.invalidInput("walk.snap_m must be from 0 to 100 metres (got \(walk.snapDistance))")
            }
        }
        for (name, value) in [("operator", surveyor), ("device_model", deviceModel), ("notes", notes)] {
            if let value, value.count > Self.surveyTextLimit {
                throw StoreError.invalidInput("\(name) is \(value.count) characters long; at most \(Self.surveyTextLimit) are kept")
            }
        }
        var generator = SystemRandomNumberGenerator()
        let id = "ses_" + (0..<16).map { _ in String(UInt8.random(in: 0...15, using: &generator), radix: 16) }.joined()
        let openedAt = SQLValue.storedPrecision(Date()).timeIntervalSince1970
        return try await daemonWrite { transaction in
            guard try await !transaction.rows("SELECT id FROM venue WHERE id = \(venue)").isEmpty else { throw StoreError.unknownVenue(venue) }
            try await SurveyUploadRow(
                id: id, venueId: venue, operator: surveyor, deviceModel: deviceModel, notes: notes, state: SurveyUpload.State.open.rawValue,
                openedAt: openedAt, walkCell: walk?.cellSize, walkSnap: walk?.snapDistance
            ).insertRow(transaction)
            return try await Self.surveyUpload(id, of: venue, transaction)
        }
    }

    /// A survey session of `venue`.
    /// - Throws: ``StoreError/unknownSurveyUpload(venue:id:)``.
    public func surveyUpload(_ id: String, of venue: String) async throws -> SurveyUpload {
        try await sqlRead { transaction in try await Self.surveyUpload(id, of: venue, transaction) }
    }

    static func surveyUpload(_ id: String, of venue: String, _ transaction: any SQLTransaction) async throws -> SurveyUpload {
        guard let row = try await SurveyUploadRow.fetchOne(transaction, where: "id = \(id) AND venueId = \(venue)")
        else { throw StoreError.unknownSurveyUpload(venue: venue, id: id) }
        return try SurveyUpload(row)
    }

    /// Stores a batch of labelled samples in an open session, in one transaction: all of it, or nothing.
    ///
    /// A walking session's batch may also hold checkpoints (the path file's entries, in any batch and
    /// any order: they are put in time order at commit), and its samples may lack coordinates.
    ///
    /// A batch is known by `batchID`, which its sender chooses: a batch sent again with the same id and
    /// the same samples and checkpoints (a retry after a lost answer) is recognised and not stored twice.
    /// - Throws: ``InvalidSurveyBatch`` naming every sample `survey record` would refuse (ground truth
    ///   missing outside a walk, an RSSI no radio reports, a coordinate that is not plausible) and every
    ///   checkpoint a path file could not hold (an unknown spot, a coordinate that is not finite), or
    ///   checkpoints sent to a session that is not a walk; ``StoreError/conflict(_:)`` for a session that
    ///   is not open, or a batch id reused for other samples; nothing is stored then.
    public func addSurveyBatch(
        _ samples: [ScanLine], checkpoints: [WalkPathFile.Entry] = [], id batchID: String, to upload: String, of venue: String
    ) async throws -> SurveyBatchReceipt {
        guard !batchID.isEmpty, batchID.count <= Self.surveyBatchIDLimit else {
            throw StoreError.invalidInput("batch_id must be 1 to \(Self.surveyBatchIDLimit) characters long")
        }
        guard !samples.isEmpty || !checkpoints.isEmpty else {
            throw StoreError.invalidInput("samples is empty: a batch holds at least one sample (or, in a walking session, one checkpoint)")
        }
        let lines = String(decoding: try ScanLine.jsonLines(samples), as: UTF8.self)
        let checkpointLines = String(decoding: try WalkPathFile.jsonLines(checkpoints), as: UTF8.self)
        let receivedAt = SQLValue.storedPrecision(Date()).timeIntervalSince1970
        return try await daemonWrite { transaction in
            var session = try await Self.surveyUpload(upload, of: venue, transaction)
            if let stored = try await transaction.rows(
                "SELECT lines, checkpoints FROM surveyUploadBatch WHERE uploadId = \(upload) AND batchId = \(batchID)").first {
                guard try stored.text("lines") == lines, try stored.text("checkpoints") == checkpointLines else {
                    throw StoreError.conflict("batch '\(batchID)' of survey session \(upload) was stored with other samples; give a new batch a new id")
                }
                return SurveyBatchReceipt(upload: session, batchID: batchID, duplicate: true, samples: samples.count, checkpoints: checkpoints.count)
            }
            guard session.state == .open else {
                throw StoreError.conflict("survey session \(upload) is \(session.state.rawValue); open a new one to send more samples")
            }
            var problems = Self.problems(lines: Data(lines.utf8), walking: session.walk != nil)
            if !checkpoints.isEmpty {
                if session.walk == nil {
                    problems.append(.init(
                        index: 0, message: "survey session \(upload) is not a walking survey; open one with 'walk' to send checkpoints", list: .checkpoints))
                } else {
                    let spots = WalkPathFile.spotsByName(try await SpotRecord.all(of: venue, transaction).map(\.spot))
                    for (index, entry) in checkpoints.enumerated() {
                        do {
                            _ = try entry.checkpoint(spotsByName: spots)
                        } catch {
                            problems.append(.init(index: index, message: "\(error)", list: .checkpoints))
                        }
                    }
                }
            }
            guard problems.isEmpty else { throw InvalidSurveyBatch(problems: problems) }
            try await transaction.execute(
                "INSERT INTO surveyUploadBatch (uploadId, batchId, position, samples, lines, receivedAt, checkpoints) VALUES (\(upload), \(batchID), \(Int64(session.batches + 1)), \(Int64(samples.count)), \(lines), \(receivedAt), \(checkpointLines))")
            try await transaction.execute(
                "UPDATE surveyUpload SET samples = samples + \(Int64(samples.count)), batches = batches + 1, checkpoints = checkpoints + \(Int64(checkpoints.count)) WHERE id = \(upload)")
            session.samples += samples.count
            session.batches += 1
            session.checkpoints += checkpoints.count
            return SurveyBatchReceipt(upload: session, batchID: batchID, duplicate: false, samples: samples.count, checkpoints: checkpoints.count)
        }
    }

    /// The samples `survey record` would refuse among `lines` (checked by the decoder that reads them back
    /// at commit): every line needs its ground truth unless the session is a walk, which places the others.
    private static func problems(lines: Data, walking: Bool) -> [InvalidSurveyBatch.Problem] {
        let decoded = ScanLogDecoder().decode(lines)
        var problems = decoded.errors.map { InvalidSurveyBatch.Problem(index: $0.line - 1, message: $0.message) }
        if !walking {
            for (number, line) in decoded.lines where line.groundTruth == nil {
                problems.append(.init(
                    index: number - 1,
                    message: "a survey sample needs its ground truth: fields 'x' and 'y' (and 'floor'), or a 'spot' with them (or a walking session)"))
            }
        }
        return problems.sorted { $0.index < $1.index }
    }

    /// Records an open session's samples into its venue, as `survey record` records the same lines (one
    /// code path; a walking session's as `survey record --path` with its checkpoints), and closes it, in
    /// one transaction: a failure records nothing and leaves it open.
    /// - Throws: ``StoreError/conflict(_:)`` for a session that is not open; ``StoreError/invalidInput(_:)``
    ///   for one without a sample, or a walk whose checkpoints place none of its samples (or two of which
    ///   share a time).
    public func commitSurveyUpload(_ id: String, of venue: String, options: RecordOptions) async throws -> SurveyUploadCommit {
        let closedAt = SQLValue.storedPrecision(Date()).timeIntervalSince1970
        let result = try await daemonWrite { transaction -> SurveyUploadCommit in
            var session = try await Self.surveyUpload(id, of: venue, transaction)
            guard session.state == .open else {
                throw StoreError.conflict("survey session \(id) is \(session.state.rawValue) already")
            }
            guard session.samples > 0 else { throw StoreError.invalidInput("survey session \(id) holds no sample: nothing to record") }
            let log = try await Self.surveyUploadLog(id, transaction)
            var options = options
            options.operator = options.operator ?? session.operator
            options.sourceFile = "survey session \(id)"
            var walk: WalkingSurvey?
            if let settings = session.walk { walk = try await Self.walkingSurvey(of: id, settings: settings, venue: venue, transaction) }
            let samples = ScanLogSamples(log, skipBad: false, walk: walk)
            let summary = try await self.record(from: samples, into: venue, options: options, transaction)
            let placements = walk.map { _ in samples.walkPlacements }
            guard summary.samples > 0 else {
                throw StoreError.invalidInput(
                    "no sample of survey session \(id) lies on its walked path (\(placements?.beforeFirstCheckpoint ?? 0) before the first checkpoint, "
                        + "\(placements?.afterLastCheckpoint ?? 0) after the last, \(placements?.betweenFloors ?? 0) between floors): nothing to record")
            }
            try await transaction.execute(
                "UPDATE surveyUpload SET state = 'committed', closedAt = \(closedAt), fingerprints = \(Int64(summary.fingerprints)), revision = \(Int64(summary.revision)) WHERE id = \(id)")
            // The samples now live in the venue's survey; the session keeps its counts.
            try await transaction.execute("DELETE FROM surveyUploadBatch WHERE uploadId = \(id)")
            session.state = .committed
            session.closedAt = Date(timeIntervalSince1970: closedAt)
            session.fingerprints = summary.fingerprints
            session.revision = summary.revision
            return SurveyUploadCommit(upload: session, summary: summary, walk: placements)
        }
        logger.info("survey session committed", metadata: ["venue.id": "\(venue)", "session": "\(id)", "fingerprints": "\(result.summary.fingerprints)"])
        return result
    }

    /// A walking session's path from every checkpoint its batches hold, put in time order, and how its
    /// placed samples join the venue's spots.
    /// - Throws: ``StoreError/invalidInput(_:)`` for a walk without a checkpoint, or two at the same time.
    static func walkingSurvey(of id: String, settings: SurveyWalkSettings, venue: String, _ transaction: any SQLTransaction) async throws -> WalkingSurvey {
        let spots = try await SpotRecord.all(of: venue, transaction).map(\.spot)
        let byName = WalkPathFile.spotsByName(spots)
        var checkpoints: [Checkpoint] = []
        for row in try await transaction.rows("SELECT checkpoints FROM surveyUploadBatch WHERE uploadId = \(id) ORDER BY position") {
            let entries: [(line: Int, entry: WalkPathFile.Entry)]
            do {
                entries = try WalkPathFile.entries(from: Data(try row.text("checkpoints").utf8))
                for (_, entry) in entries { checkpoints.append(try entry.checkpoint(spotsByName: byName)) }
            } catch {
                // Each was checked when its batch was stored; a spot renamed since then lands here.
                throw StoreError.invalidInput("a checkpoint of survey session \(id) can no longer be placed: \(error)")
            }
        }
        guard !checkpoints.isEmpty else {
            throw StoreError.invalidInput("walking survey session \(id) holds no checkpoint: send the places walked through before committing")
        }
        checkpoints.sort { $0.time < $1.time }
        do {
            return WalkingSurvey(path: try WalkedPath(checkpoints: checkpoints), spots: settings.assignment(spots: spots))
        } catch {
            throw StoreError.invalidInput("the checkpoints of survey session \(id) cannot make a path: \(error)")
        }
    }

    /// Closes an open session without recording it; its samples are deleted.
    /// - Throws: ``StoreError/conflict(_:)`` for a session that is not open.
    public func abandonSurveyUpload(_ id: String, of venue: String) async throws -> SurveyUpload {
        let closedAt = SQLValue.storedPrecision(Date()).timeIntervalSince1970
        return try await daemonWrite { transaction in
            var session = try await Self.surveyUpload(id, of: venue, transaction)
            guard session.state == .open else { throw StoreError.conflict("survey session \(id) is \(session.state.rawValue) already") }
            try await transaction.execute("UPDATE surveyUpload SET state = 'abandoned', closedAt = \(closedAt) WHERE id = \(id)")
            try await transaction.execute("DELETE FROM surveyUploadBatch WHERE uploadId = \(id)")
            session.state = .abandoned
            session.closedAt = Date(timeIntervalSince1970: closedAt)
            return session
        }
    }
}

/// What an open survey session holds so far, spot by spot, and the path its samples trace: what the live
/// map shows while a surveyor walks, and `survey stats --session` prints.
public struct SurveyUploadCoverage: Hashable, Sendable, Codable {
    public struct SpotCoverage: Hashable, Sendable, Codable {
        /// The venue's spot, or the name `survey record` gives a spot made of a sample's coordinates.
        public var spot: String
        public var x: Double
        public var y: Double
        public var floor: Int
        /// The session's samples at the spot (one fingerprint each, at the default window of 1).
        public var samples: Int
        /// Beacons a sample of the spot typically hears (the median).
        public var medianBeacons: Int
        /// The thin-spot rule of `survey record` and `survey stats`, on the session's samples alone.
        public var isThin: Bool { RecordSummary.SpotCoverage.isThin(fingerprints: samples, medianBeacons: medianBeacons) }
    }

    /// A sample's place, in the order the session received them.
    public struct PathPoint: Hashable, Sendable, Codable {
        public var t: Double
        public var x: Double
        public var y: Double
        public var floor: Int
    }

    public var upload: SurveyUpload
    /// Every spot a sample of the session stands at, by name.
    public var spots: [SpotCoverage]
    public var path: [PathPoint]

    public var thinSpots: [SpotCoverage] { spots.filter(\.isThin) }

    /// The coverage of `lines`, in order (a committed or abandoned session keeps none: its samples are
    /// in the venue's survey, or gone). A walking session's lines without coordinates count where `walk`
    /// places them, as the commit would; those it cannot place yet (after the last checkpoint so far)
    /// are left out until a checkpoint comes.
    init(upload: SurveyUpload, lines: [ScanLine], walk: WalkingSurvey?) {
        var bySpot: [String: (truth: GroundTruth, beacons: [Int])] = [:]
        var path: [PathPoint] = []
        path.reserveCapacity(lines.count)
        for line in lines {
            guard let truth = line.groundTruth ?? walk?.truth(at: line.t) else { continue }
            path.append(PathPoint(t: line.t, x: truth.x, y: truth.y, floor: truth.floor))
            let heard = Set(line.beacons.filter { $0.rssi != 0 }.map { "\($0.uuid):\($0.major):\($0.minor)".uppercased() }).count
            bySpot[truth.spotName, default: (truth, [])].beacons.append(heard)
        }
        self.upload = upload
        self.path = path
        spots = bySpot.map { name, entry in
            let sorted = entry.beacons.sorted()
            return SpotCoverage(
                spot: name, x: entry.truth.x, y: entry.truth.y, floor: entry.truth.floor, samples: sorted.count, medianBeacons: sorted[sorted.count / 2])
        }.sorted { $0.spot < $1.spot }
    }
}

extension FingerprintStore {
    /// What the open session `id` of `venue` holds so far, spot by spot, and the path of its samples.
    /// - Throws: ``StoreError/unknownSurveyUpload(venue:id:)``.
    public func surveyUploadCoverage(_ id: String, of venue: String) async throws -> SurveyUploadCoverage {
        try await sqlRead { transaction in try await Self.surveyUploadCoverage(id, of: venue, transaction) }
    }

    static func surveyUploadCoverage(_ id: String, of venue: String, _ transaction: any SQLTransaction) async throws -> SurveyUploadCoverage {
        let upload = try await surveyUpload(id, of: venue, transaction)
        // A walk with no checkpoint yet, or whose checkpoints cannot make a path (two at one time), places
        // nothing: its coverage shows only the samples that carry coordinates, and the commit says why.
        var walk: WalkingSurvey?
        if upload.checkpoints > 0, let settings = upload.walk {
            walk = try? await walkingSurvey(of: id, settings: settings, venue: venue, transaction)
        }
        // The lines were checked by the same decoder when their batch was stored.
        return SurveyUploadCoverage(upload: upload, lines: ScanLogDecoder().decode(try await surveyUploadLog(id, transaction)).lines.map(\.line), walk: walk)
    }

    /// A session's stored samples as one scan log, in the order their batches arrived.
    static func surveyUploadLog(_ id: String, _ transaction: any SQLTransaction) async throws -> Data {
        var log = Data()
        for row in try await transaction.rows("SELECT lines FROM surveyUploadBatch WHERE uploadId = \(id) ORDER BY position") {
            log.append(contentsOf: Array(try row.text("lines").utf8))
        }
        return log
    }
}
