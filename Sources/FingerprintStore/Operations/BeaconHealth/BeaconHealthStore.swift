public import Foundation
public import Positioning

/// A venue's beacon health as the store keeps it: the monitor's whole state, what matching makes of its
/// silent beacons, the venue revision its beacons are of, and a version every write increases.
public struct StoredBeaconHealth: Sendable {
    public var venue: String
    public var revision: Int
    public var version: Int
    public var monitor: BeaconHealthMonitor
    public var degraded: DegradedVenue
    public var updatedAt: Date
}

/// One state change as the history keeps it.
public struct BeaconHealthChangeRecord: Hashable, Sendable, Codable {
    public var id: Int64
    public var venue: String
    public var beacon: String
    public var from: BeaconState
    public var to: BeaconState
    /// When it happened (the deciding sample's time, or when ops acted).
    public var at: Date
    /// When the store wrote it.
    public var recordedAt: Date
    public var offset: Double?
    public var offsetUncertainty: Double?
    public var evidence: BeaconEvidence
    public var reason: String
    /// Who changed it: nil for the monitor, an operator's name (or `ops`) for a reset or a hold.
    public var actor: String?
}

/// A remap proposed to ops, with what became of it.
public struct StoredProposal: Hashable, Sendable, Codable {
    public enum Status: String, Hashable, Sendable, Codable, CaseIterable {
        /// Waiting for ops.
        case open
        /// Accepted: the survey was remapped (``replacement`` names the audit row).
        case accepted
        /// Judged wrong by ops: not proposed again.
        case dismissed
        /// Gone before ops decided: the evidence was reset, or the survey changed under it.
        case withdrawn
    }

    public var id: Int64
    public var venue: String
    public var proposal: BeaconProposal
    public var status: Status
    public var decidedAt: Date?
    public var `operator`: String?
    /// The replacement (or swap) accepting it made, in `replace-beacon list`.
    public var replacement: Int64?
}

/// What a writer's turn on a venue's beacon health did.
public enum BeaconHealthTurn: Sendable {
    /// Another replica holds the turn; nothing was read or written.
    case busy
    /// The turn ran: the venue's health as written (nil: the venue has no health yet and nothing was
    /// pending), the changes and proposals it recorded, and how many samples it took.
    case ran(StoredBeaconHealth?, changes: [BeaconHealthChangeRecord], proposals: [StoredProposal], samples: Int)
}

/// What a turn's step made of the pending evidence.
public struct BeaconHealthStep: Sendable {
    public var monitor: BeaconHealthMonitor
    public var changes: [BeaconStateChange]
    public var proposals: [BeaconProposal]

    public init(monitor: BeaconHealthMonitor, changes: [BeaconStateChange], proposals: [BeaconProposal]) {
        self.monitor = monitor
        self.changes = changes
        self.proposals = proposals
    }
}

extension FingerprintStore {
    /// Stores one batch of located samples' evidence of `venue` at `revision` for the writer, in one
    /// transaction. Any replica, any time: the writer takes batches in the order they were stored.
    public func recordBeaconEvidence(venue: String, revision: Int, samples: [LocatedSample]) async throws {
        guard !samples.isEmpty else { return }
        let body = String(decoding: try JSONEncoder().encode(samples), as: UTF8.self)
        try await daemonWrite { db in
            try await db.execute("""
                INSERT INTO beaconEvidence (venueId, revision, samples, body, createdAt)
                VALUES (\(venue), \(revision), \(samples.count), \(body), \(Date()))
                """)
        }
    }

    /// One writer's turn on `venue`'s beacon health, in one transaction: on PostgreSQL only the replica that
    /// takes the venue's advisory lock (the others get ``BeaconHealthTurn/busy`` at once and try again on
    /// their next beat); on SQLite the write lock is the turn. The stored state, and the pending evidence of
    /// `revision` in the order it was stored, go to `step`; what it returns is written (the monitor, every
    /// change into the history, every proposal), the evidence it took is deleted, and evidence of an older
    /// revision is dropped (its beacon columns are another survey's). Evidence of a newer revision waits for
    /// a writer that serves it.
    ///
    /// `step` gets nil when the venue has no stored health yet, and returns nil to write nothing. `local`
    /// is evidence of `revision` the caller gathered itself and did not store: it comes after the stored
    /// evidence (a daemon alone on a SQLite file need not write its evidence only to read it back).
    public func advanceBeaconHealth(
        venue: String, revision: Int, local: [LocatedSample] = [],
        step: @escaping @Sendable (_ stored: StoredBeaconHealth?, _ samples: [LocatedSample]) throws -> BeaconHealthStep?
    ) async throws -> BeaconHealthTurn {
        try await daemonWrite { db in
            if db.engine == .postgresql {
                // One lock per schema and venue: stores in other schemas of the database need not wait.
                let lock = try await db.rows("""
                    SELECT CASE WHEN pg_try_advisory_xact_lock(hashtext(current_schema() || ':beacon-health'), hashtext(\(venue)))
                    THEN 1 ELSE 0 END AS taken
                    """)
                guard try lock.first?.bool("taken") == true else { return .busy }
            }
            let stored = try await self.storedBeaconHealth(of: venue, db)
            try await db.execute("DELETE FROM beaconEvidence WHERE venueId = \(venue) AND revision < \(revision)")
            var samples: [LocatedSample] = []
            var taken: [Int64] = []
            for row in try await db.rows("SELECT id, body FROM beaconEvidence WHERE venueId = \(venue) AND revision = \(revision) ORDER BY id") {
                samples += try JSONDecoder().decode([LocatedSample].self, from: Data(try row.text("body").utf8))
                taken.append(try row.integer("id"))
            }
            samples += local
            guard let result = try step(stored, samples) else { return .ran(stored, changes: [], proposals: [], samples: 0) }
            for start in stride(from: 0, to: taken.count, by: 400) {
                let chunk = taken[start..<min(start + 400, taken.count)]
                try await db.execute("DELETE FROM beaconEvidence WHERE id IN (\(list: chunk.map { SQLValue.integer($0) }))")
            }
            let now = Date()
            var health = StoredBeaconHealth(
                venue: venue, revision: revision, version: (stored?.version ?? 0) + 1, monitor: result.monitor,
                degraded: stored?.degraded ?? .intact, updatedAt: now)
            if health.degraded.silent != health.monitor.tolerance.silent.sorted() {
                // The silent set changed: until its assessment is stored, its beacons are charged as absent (the
                // survey as it is) and the radius is not widened.
                health.degraded = DegradedVenue.unassessed(health.monitor.tolerance.silent)
            }
            try await self.write(health, db)
            var changes: [BeaconHealthChangeRecord] = []
            for change in result.changes {
                changes.append(try await self.recordChange(
                    venue: venue, beacon: change.beacon.description, from: change.from, to: change.to, at: change.time, offset: change.offset,
                    offsetUncertainty: change.offsetUncertainty, evidence: change.evidence, reason: change.reason, actor: nil, db))
            }
            var proposals: [StoredProposal] = []
            for proposal in result.proposals {
                proposals.append(try await self.recordProposal(venue: venue, proposal, db))
            }
            try await self.withdrawStaleProposals(venue: venue, open: health.monitor.proposals, db)
            return .ran(health, changes: changes, proposals: proposals, samples: samples.count)
        }
    }

    /// The venue's stored beacon health; nil before any evidence was taken.
    public func beaconHealth(of venue: String) async throws -> StoredBeaconHealth? {
        try await sqlRead { db in
            try await self.venueRecord(venue, db)
            return try await self.storedBeaconHealth(of: venue, db)
        }
    }

    /// The version of the venue's stored beacon health (nil before any): what a replica that does not write
    /// reads on every beat to know whether to read the rest.
    public func beaconHealthVersion(of venue: String) async throws -> Int? {
        try await sqlRead { db in
            try await db.rows("SELECT version FROM beaconHealthMonitor WHERE venueId = \(venue)").first.map { Int(try $0.integer("version")) }
        }
    }

    /// Stores the assessment of the venue's silent beacons, when they are still the monitor's silent set
    /// (a later change makes it stale, and the next assessment replaces it); returns whether it did.
    @discardableResult
    public func storeDegradedVenue(_ degraded: DegradedVenue, venue: String) async throws -> Bool {
        try await daemonWrite { db in
            guard var health = try await self.storedBeaconHealth(of: venue, db),
                health.monitor.tolerance.silent.sorted() == degraded.silent
            else { return false }
            health.degraded = degraded
            health.version += 1
            health.updatedAt = Date()
            try await self.write(health, db)
            return true
        }
    }

    /// The venue's state changes, newest first, at most `limit`.
    public func beaconHealthHistory(of venue: String, limit: Int = 100) async throws -> [BeaconHealthChangeRecord] {
        try await sqlRead { db in
            try await self.venueRecord(venue, db)
            return try await db.rows("""
                SELECT * FROM beaconHealthChange WHERE venueId = \(venue) ORDER BY id DESC LIMIT \(max(1, limit))
                """).map(Self.changeRecord)
        }
    }

    /// Forgets what the monitor concluded about `beacon` of `venue` (ops reversing an automatic change): its
    /// state and statistics start afresh, its proposals are withdrawn, and the history records who did it.
    public func resetBeaconHealth(venue: String, beacon: BeaconID, operator: String?) async throws -> BeaconHealthChangeRecord {
        try await daemonWrite { db in
            guard var health = try await self.storedBeaconHealth(of: venue, db) else {
                try await self.venueRecord(venue, db)
                throw StoreError.invalidInput("venue '\(venue)' has no beacon health yet: positiond records it from located scans")
            }
            let before = health.monitor.health.first { $0.beacon == beacon }
            guard health.monitor.reset(beacon) else {
                throw StoreError.invalidInput("the beacon health of venue '\(venue)' knows no beacon \(beacon)")
            }
            health.version += 1
            health.updatedAt = Date()
            try await self.write(health, db)
            try await self.withdrawStaleProposals(venue: venue, open: health.monitor.proposals, db)
            return try await self.recordChange(
                venue: venue, beacon: beacon.description, from: before?.state ?? .insufficientEvidence, to: .insufficientEvidence,
                at: Date().timeIntervalSince1970, offset: nil, offsetUncertainty: nil, evidence: BeaconEvidence(),
                reason: "reset by ops: its evidence is gathered afresh", actor: `operator` ?? "ops", db)
        }
    }

    /// Suspends (`held`) or resumes the automatic tolerance for `beacon` of `venue`: its state is still judged
    /// and shown, but matching acts on it only when not held. Recorded in the history.
    public func holdBeacon(venue: String, beacon: BeaconID, held: Bool, operator: String?) async throws -> BeaconHealthChangeRecord {
        try await daemonWrite { db in
            guard var health = try await self.storedBeaconHealth(of: venue, db) else {
                try await self.venueRecord(venue, db)
                throw StoreError.invalidInput("venue '\(venue)' has no beacon health yet: positiond records it from located scans")
            }
            guard health.monitor.hold(beacon, held) else {
                throw StoreError.invalidInput("venue '\(venue)' has no surveyed beacon \(beacon) in its beacon health")
            }
            health.version += 1
            health.updatedAt = Date()
            try await self.write(health, db)
            let state = health.monitor.health.first { $0.beacon == beacon }
            return try await self.recordChange(
                venue: venue, beacon: beacon.description, from: state?.state ?? .insufficientEvidence, to: state?.state ?? .insufficientEvidence,
                at: Date().timeIntervalSince1970, offset: state?.offset, offsetUncertainty: state?.offsetUncertainty,
                evidence: state?.evidence ?? BeaconEvidence(),
                reason: held ? "held by ops: matching no longer acts on its state" : "released by ops: matching acts on its state again",
                actor: `operator` ?? "ops", db)
        }
    }

    // MARK: - Rows

    func storedBeaconHealth(of venue: String, _ db: any SQLTransaction) async throws -> StoredBeaconHealth? {
        guard let row = try await db.rows("SELECT * FROM beaconHealthMonitor WHERE venueId = \(venue)").first else { return nil }
        do {
            return StoredBeaconHealth(
                venue: venue, revision: Int(try row.integer("revision")), version: Int(try row.integer("version")),
                monitor: try JSONDecoder().decode(BeaconHealthMonitor.self, from: Data(try row.text("monitor").utf8)),
                degraded: try JSONDecoder().decode(DegradedVenue.self, from: Data(try row.text("degraded").utf8)),
                updatedAt: try row.date("updatedAt"))
        } catch let error as DecodingError {
            throw StoreError.storageFault("the stored beacon health of venue '\(venue)' cannot be read: \(error)")
        }
    }

    func write(_ health: StoredBeaconHealth, _ db: any SQLTransaction) async throws {
        let monitor = String(decoding: try JSONEncoder().encode(health.monitor), as: UTF8.self)
        let degraded = String(decoding: try JSONEncoder().encode(health.degraded), as: UTF8.self)
        try await db.execute("""
            INSERT INTO beaconHealthMonitor (venueId, revision, version, monitor, degraded, updatedAt)
            VALUES (\(health.venue), \(health.revision), \(health.version), \(monitor), \(degraded), \(health.updatedAt))
            ON CONFLICT (venueId) DO UPDATE SET revision = excluded.revision, version = excluded.version, monitor = excluded.monitor,
                degraded = excluded.degraded, updatedAt = excluded.updatedAt
            """)
    }

    private func recordChange(
        venue: String, beacon: String, from: BeaconState, to: BeaconState, at: Double, offset: Double?, offsetUncertainty: Double?,
        evidence: BeaconEvidence, reason: String, actor: String?, _ db: any SQLTransaction
    ) async throws -> BeaconHealthChangeRecord {
        let now = SQLValue.storedPrecision(Date())
        let evidenceText = String(decoding: try JSONEncoder().encode(evidence), as: UTF8.self)
        let id = try await db.insertReturningID("""
            INSERT INTO beaconHealthChange (venueId, beacon, fromState, toState, at, recordedAt, offsetDB, offsetError, evidence, reason, actor)
            VALUES (\(venue), \(beacon), \(from.rawValue), \(to.rawValue), \(at), \(now), \(offset), \(offsetUncertainty), \(evidenceText),
                \(reason), \(actor))
            """)
        return BeaconHealthChangeRecord(
            id: id, venue: venue, beacon: beacon, from: from, to: to, at: Date(timeIntervalSince1970: at), recordedAt: now, offset: offset,
            offsetUncertainty: offsetUncertainty, evidence: evidence, reason: reason, actor: actor)
    }

    static func changeRecord(_ row: SQLRow) throws -> BeaconHealthChangeRecord {
        func state(_ column: String) throws -> BeaconState {
            let text = try row.text(column)
            guard let state = BeaconState(rawValue: text) else { throw StoreError.storageFault("a beacon-health change holds the unknown state '\(text)'") }
            return state
        }
        return BeaconHealthChangeRecord(
            id: try row.integer("id"), venue: try row.text("venueId"), beacon: try row.text("beacon"), from: try state("fromState"),
            to: try state("toState"), at: try row.date("at"), recordedAt: try row.date("recordedAt"), offset: try row.optionalReal("offsetDB"),
            offsetUncertainty: try row.optionalReal("offsetError"),
            evidence: (try? JSONDecoder().decode(BeaconEvidence.self, from: Data(try row.text("evidence").utf8))) ?? BeaconEvidence(),
            reason: try row.text("reason"), actor: try row.optionalText("actor"))
    }
}

extension DegradedVenue {
    /// A silent set not yet assessed: charged as absent, the radius as it was.
    static func unassessed(_ silent: Set<BeaconID>) -> DegradedVenue {
        var degraded = DegradedVenue.intact
        degraded.silent = silent.sorted()
        return degraded
    }
}
