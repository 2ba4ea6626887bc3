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
}

/// What storing a batch did.
public struct SurveyBatchReceipt: Hashable, Sendable, Codable {
    public var upload: SurveyUpload
    public var batchID: String
    /// The batch had been stored before under this id (a retry after a lost answer): nothing was added.
    public var duplicate: Bool
    /// The samples of this batch.
    public var samples: Int
}

/// A batch whose samples the store refuses: every bad sample, by its index in the batch.
public struct InvalidSurveyBatch: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Problem: Hashable, Sendable {
        /// The sample's index in the batch, from 0.
        public var index: Int
        public var message: String
    }

    public var problems: [Problem]

    public var description: String {
        let shown = problems.prefix(5).map { "samples[\($0.index)]: \($0.message)" }.joined(separator: "; ")
        return problems.count > 5 ? "\(shown); and \(problems.count - 5) more" : shown
    }
}

extension SurveyUpload {
    init(_ row: SQLRow) throws(StoreError) {
        guard let state = State(rawValue: try row.text("state")) else {
            throw .invalidInput("survey session \(try row.text("id")) has the state '\(try row.text("state"))', which this build does not know")
        }
        let closed: Double? = if case .null = row["closedAt"] { nil } else { try row.real("closedAt") }
        self.init(
            id: try row.text("id"), venue: try row.text("venueId"), operator: try row.optionalText("operator"),
            deviceModel: try row.optionalText("deviceModel"), notes: try row.optionalText("notes"), state: state,
            openedAt: Date(timeIntervalSince1970: try row.real("openedAt")), closedAt: closed.map(Date.init(timeIntervalSince1970:)),
            samples: Int(try row.integer("samples")), batches: Int(try row.integer("batches")),
            fingerprints: try Self.optionalInteger(row, "fingerprints"), revision: try Self.optionalInteger(row, "revision"))
    }

    private static func optionalInteger(_ row: SQLRow, _ column: String) throws(StoreError) -> Int? {
        if case .null = row[column] { return nil }
        return Int(try row.integer(column))
    }

    static let columns = "id, venueId, operator, deviceModel, notes, state, openedAt, closedAt, samples, batches, fingerprints, revision"
}

extension FingerprintStore {
    /// The longest batch id, and the longest operator, device model and notes a session keeps.
    public static let surveyBatchIDLimit = 128
    public static let surveyTextLimit = 1_000

    /// Opens a survey session for `venue`.
    /// - Throws: ``StoreError/unknownVenue(_:)``; ``StoreError/invalidInput(_:)`` for a text over
    ///   ``surveyTextLimit`` characters.
    public func openSurveyUpload(venue: String, operator surveyor: String?, deviceModel: String?, notes: String?) throws -> SurveyUpload {
        for (name, value) in [("operator", surveyor), ("device_model", deviceModel), ("notes", notes)] {
            if let value, value.count > Self.surveyTextLimit {
                throw StoreError.invalidInput("\(name) is \(value.count) characters long; at most \(Self.surveyTextLimit) are kept")
            }
        }
        var generator = SystemRandomNumberGenerator()
        let id = "ses_" + (0..<16).map { _ in String(UInt8.random(in: 0...15, using: &generator), radix: 16) }.joined()
        let openedAt = SQLValue.storedPrecision(Date()).timeIntervalSince1970
        return try daemonWrite { transaction in
            guard try !transaction.rows("SELECT id FROM venue WHERE id = ?", [.text(venue)]).isEmpty else { throw StoreError.unknownVenue(venue) }
            try transaction.execute(
                "INSERT INTO surveyUpload (id, venueId, operator, deviceModel, notes, state, openedAt) VALUES (?, ?, ?, ?, ?, 'open', ?)",
                [.text(id), .text(venue), SQLValue(surveyor), SQLValue(deviceModel), SQLValue(notes), .real(openedAt)])
            return try Self.surveyUpload(id, of: venue, transaction)
        }
    }

    /// A survey session of `venue`.
    /// - Throws: ``StoreError/unknownSurveyUpload(venue:id:)``.
    public func surveyUpload(_ id: String, of venue: String) throws -> SurveyUpload {
        try sqlRead { transaction in try Self.surveyUpload(id, of: venue, transaction) }
    }

    static func surveyUpload(_ id: String, of venue: String, _ transaction: any SQLTransaction) throws -> SurveyUpload {
        guard let row = try transaction.rows(
            "SELECT \(SurveyUpload.columns) FROM surveyUpload WHERE id = ? AND venueId = ?", [.text(id), .text(venue)]).first
        else { throw StoreError.unknownSurveyUpload(venue: venue, id: id) }
        return try SurveyUpload(row)
    }

    /// Stores a batch of labelled samples in an open session, in one transaction: all of it, or nothing.
    ///
    /// A batch is known by `batchID`, which its sender chooses: a batch sent again with the same id and
    /// the same samples (a retry after a lost answer) is recognised and not stored twice.
    /// - Throws: ``InvalidSurveyBatch`` naming every sample `survey record` would refuse (ground truth
    ///   missing, an RSSI no radio reports, a coordinate that is not plausible); ``StoreError/conflict(_:)``
    ///   for a session that is not open, or a batch id reused for other samples; nothing is stored then.
    public func addSurveyBatch(_ samples: [ScanLine], id batchID: String, to upload: String, of venue: String) throws -> SurveyBatchReceipt {
        guard !batchID.isEmpty, batchID.count <= Self.surveyBatchIDLimit else {
            throw StoreError.invalidInput("batch_id must be 1 to \(Self.surveyBatchIDLimit) characters long")
        }
        guard !samples.isEmpty else { throw StoreError.invalidInput("samples is empty: a batch holds at least one sample") }
        let lines = try Self.validatedLines(samples)
        let receivedAt = SQLValue.storedPrecision(Date()).timeIntervalSince1970
        return try daemonWrite { transaction in
            var session = try Self.surveyUpload(upload, of: venue, transaction)
            if let stored = try transaction.rows(
                "SELECT lines FROM surveyUploadBatch WHERE uploadId = ? AND batchId = ?", [.text(upload), .text(batchID)]).first {
                guard try stored.text("lines") == lines else {
                    throw StoreError.conflict("batch '\(batchID)' of survey session \(upload) was stored with other samples; give a new batch a new id")
                }
                return SurveyBatchReceipt(upload: session, batchID: batchID, duplicate: true, samples: samples.count)
            }
            guard session.state == .open else {
                throw StoreError.conflict("survey session \(upload) is \(session.state.rawValue); open a new one to send more samples")
            }
            try transaction.execute(
                "INSERT INTO surveyUploadBatch (uploadId, batchId, position, samples, lines, receivedAt) VALUES (?, ?, ?, ?, ?, ?)",
                [.text(upload), .text(batchID), .integer(Int64(session.batches + 1)), .integer(Int64(samples.count)), .text(lines), .real(receivedAt)])
            try transaction.execute(
                "UPDATE surveyUpload SET samples = samples + ?, batches = batches + 1 WHERE id = ?", [.integer(Int64(samples.count)), .text(upload)])
            session.samples += samples.count
            session.batches += 1
            return SurveyBatchReceipt(upload: session, batchID: batchID, duplicate: false, samples: samples.count)
        }
    }

    /// The samples as scan-log lines, checked as `survey record` checks a log's lines: the same decoder
    /// reads them back at commit.
    private static func validatedLines(_ samples: [ScanLine]) throws -> String {
        let data = try ScanLine.jsonLines(samples)
        let decoded = ScanLogDecoder().decode(data)
        var problems = decoded.errors.map { InvalidSurveyBatch.Problem(index: $0.line - 1, message: $0.message) }
        for (number, line) in decoded.lines where line.groundTruth == nil {
            problems.append(.init(index: number - 1, message: "a survey sample needs its ground truth: fields 'x' and 'y' (and 'floor'), or a 'spot' with them"))
        }
        guard problems.isEmpty else { throw InvalidSurveyBatch(problems: problems.sorted { $0.index < $1.index }) }
        return String(decoding: data, as: UTF8.self)
    }

    /// Records an open session's samples into its venue, as `survey record` records the same lines (one
    /// code path), and closes it, in one transaction: a failure records nothing and leaves it open.
    /// - Throws: ``StoreError/conflict(_:)`` for a session that is not open; ``StoreError/invalidInput(_:)``
    ///   for one without a sample.
    public func commitSurveyUpload(_ id: String, of venue: String, options: RecordOptions) throws -> (upload: SurveyUpload, summary: RecordSummary) {
        let closedAt = SQLValue.storedPrecision(Date()).timeIntervalSince1970
        let result = try daemonWrite { transaction -> (SurveyUpload, RecordSummary) in
            var session = try Self.surveyUpload(id, of: venue, transaction)
            guard session.state == .open else {
                throw StoreError.conflict("survey session \(id) is \(session.state.rawValue) already")
            }
            guard session.samples > 0 else { throw StoreError.invalidInput("survey session \(id) holds no sample: nothing to record") }
            let log = try Self.surveyUploadLog(id, transaction)
            var options = options
            options.operator = options.operator ?? session.operator
            options.sourceFile = "survey session \(id)"
            let summary = try record(from: ScanLogSamples(log, skipBad: false), into: venue, options: options, transaction)
            try transaction.execute(
                "UPDATE surveyUpload SET state = 'committed', closedAt = ?, fingerprints = ?, revision = ? WHERE id = ?",
                [.real(closedAt), .integer(Int64(summary.fingerprints)), .integer(Int64(summary.revision)), .text(id)])
            // The samples now live in the venue's survey; the session keeps its counts.
            try transaction.execute("DELETE FROM surveyUploadBatch WHERE uploadId = ?", [.text(id)])
            session.state = .committed
            session.closedAt = Date(timeIntervalSince1970: closedAt)
            session.fingerprints = summary.fingerprints
            session.revision = summary.revision
            return (session, summary)
        }
        logger.info("survey session committed", metadata: ["venue.id": "\(venue)", "session": "\(id)", "fingerprints": "\(result.1.fingerprints)"])
        return (result.0, result.1)
    }

    /// Closes an open session without recording it; its samples are deleted.
    /// - Throws: ``StoreError/conflict(_:)`` for a session that is not open.
    public func abandonSurveyUpload(_ id: String, of venue: String) throws -> SurveyUpload {
        let closedAt = SQLValue.storedPrecision(Date()).timeIntervalSince1970
        return try daemonWrite { transaction in
            var session = try Self.surveyUpload(id, of: venue, transaction)
            guard session.state == .open else { throw StoreError.conflict("survey session \(id) is \(session.state.rawValue) already") }
            try transaction.execute("UPDATE surveyUpload SET state = 'abandoned', closedAt = ? WHERE id = ?", [.real(closedAt), .text(id)])
            try transaction.execute("DELETE FROM surveyUploadBatch WHERE uploadId = ?", [.text(id)])
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
    /// in the venue's survey, or gone).
    init(upload: SurveyUpload, lines: [ScanLine]) {
        var bySpot: [String: (truth: GroundTruth, beacons: [Int])] = [:]
        var path: [PathPoint] = []
        path.reserveCapacity(lines.count)
        for line in lines {
            guard let truth = line.groundTruth else { continue }
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
        try await sqlRead { transaction in try Self.surveyUploadCoverage(id, of: venue, transaction) }
    }

    /// ``surveyUploadCoverage(_:of:)`` for the command line.
    public func surveyUploadCoverage(_ id: String, of venue: String) throws -> SurveyUploadCoverage {
        try sqlRead { transaction in try Self.surveyUploadCoverage(id, of: venue, transaction) }
    }

    static func surveyUploadCoverage(_ id: String, of venue: String, _ transaction: any SQLTransaction) throws -> SurveyUploadCoverage {
        let upload = try surveyUpload(id, of: venue, transaction)
        // The lines were checked by the same decoder when their batch was stored.
        return SurveyUploadCoverage(upload: upload, lines: ScanLogDecoder().decode(try surveyUploadLog(id, transaction)).lines.map(\.line))
    }

    /// A session's stored samples as one scan log, in the order their batches arrived.
    static func surveyUploadLog(_ id: String, _ transaction: any SQLTransaction) throws -> Data {
        var log = Data()
        for row in try transaction.rows("SELECT lines FROM surveyUploadBatch WHERE uploadId = ? ORDER BY position", [.text(id)]) {
            log.append(contentsOf: Array(try row.text("lines").utf8))
        }
        return log
    }
}
