public import Positioning

/// A venue's survey as of one revision: what the daemon and the CLI build a ``RadioMap`` from.
public struct VenueSurvey: Sendable {
    public var venue: VenueDetails
    /// The venue's spots; fingerprints point into this array.
    public var spots: [Spot]
    /// Stored fingerprints over active beacons only, relative powers recomputed among them, in the order
    /// they were recorded, with their run, device and time.
    public var surveyed: [SurveyedFingerprint]
    /// The venue's tuning, read in the same transaction; nil when it was never tuned.
    public var tuning: StoredTuning?

    /// The revision this survey was read at.
    public var revision: Int { venue.revision }

    /// The stored fingerprints with their spots.
    public var fingerprints: [(spot: Int, fingerprint: Fingerprint)] { surveyed.map { ($0.spot, $0.fingerprint) } }

    /// The venue's positioning configuration: its tuning, or the untuned one.
    public var configuration: PositioningConfiguration {
        (tuning?.result.configuration ?? .untuned).positioning()
    }

    /// The dense radio map of this survey under `configuration`: stored fingerprints merged into its
    /// reference windows, laid out in its metric's representation.
    public func radioMap(configuration: PositioningConfiguration) throws(RadioMapError) -> RadioMap {
        try RadioMap(
            spots: spots, fingerprints: configuration.referenceWindow.references(of: surveyed, scale: configuration.builder.scale),
            representation: configuration.locator.metric.representation, zoneAreas: venue.zoneAreas)
    }

    /// The dense radio map of this survey under its own configuration (``configuration``).
    public func radioMap() throws(RadioMapError) -> RadioMap {
        try radioMap(configuration: configuration)
    }
}

extension FingerprintStore {
    /// Reads a venue's survey in one read transaction, so the revision and the fingerprints agree.
    ///
    /// Entries of retired beacons are left out, and relative powers are recomputed with `scale` among
    /// the remaining beacons, as a live scan (which cannot hear a dead beacon) would compute them.
    /// Fingerprints left with no beacon are skipped.
    ///
    /// The read waits without holding a thread of Swift's concurrency pool (GRDB's reader queue on
    /// SQLite, postgres-nio's client on PostgreSQL).
    public func survey(of venueID: String, scale: any RelativePowerScale) async throws -> VenueSurvey {
        try await sqlRead { db in try await self.loadSurvey(of: venueID, scale: scale, db) }
    }

    func loadSurvey(of venueID: String, scale: any RelativePowerScale, _ db: any SQLTransaction) async throws -> VenueSurvey {
        do {
            let venue = try await venueDetails(venueID, db)
            var spotIndex: [Int64: Int] = [:]
            let spotRows = try await SpotRecord.all(of: venueID, db)
            for (index, row) in spotRows.enumerated() { spotIndex[row.id!] = index }
            var beacons: [Int64: BeaconID] = [:]
            for (beacon, id) in try await beaconIndex(venueID, db) { beacons[id] = beacon }

            var fingerprints: [SurveyedFingerprint] = []
            var fingerprintRows: [Int64: (spot: Int, samples: Int, run: Int, device: String, time: Double)] = [:]
            // A run: consecutive fingerprints (by id) of one spot, session and device.
            var previous: (spot: Int64, session: Int64, device: String)?
            var run = -1
            for row in try await db.rows("""
                SELECT f.id, f.spotId, f.sampleCount, f.sessionId, f.device, f.time
                FROM fingerprint f JOIN spot s ON s.id = f.spotId WHERE s.venueId = \(venueID) ORDER BY f.id
                """) {
                let key: (spot: Int64, session: Int64, device: String) = (try row.integer("spotId"), try row.integer("sessionId"), try row.text("device"))
                if previous.map({ $0.spot != key.spot || $0.session != key.session || $0.device != key.device }) ?? true { run += 1 }
                previous = key
                fingerprintRows[try row.integer("id")] = (spotIndex[key.spot]!, try row.int("sampleCount"), run, key.device, try row.real("time"))
            }
            // Entries in primary-key order, so each fingerprint's are contiguous and the database need not sort.
            let entryScan: SQLStatement = """
                SELECT e.fingerprintId, e.beaconId, e.meanRSSI, e.dispersion, e.visibility
                FROM fingerprintEntry e
                WHERE e.fingerprintId IN (SELECT f.id FROM fingerprint f JOIN spot s ON s.id = f.spotId WHERE s.venueId = \(venueID))
                ORDER BY e.fingerprintId
                """
            var currentID: Int64?
            var current: (spot: Int, samples: Int, run: Int, device: String, time: Double)?
            var entries: [(BeaconID, FingerprintEntry)] = []
            func flush() {
                guard currentID != nil, let strongest = entries.map(\.1.meanRSSI).max() else { return }
                var dictionary: [BeaconID: FingerprintEntry] = [:]
                dictionary.reserveCapacity(entries.count)
                for (beacon, var entry) in entries {
                    // Relative powers among the active beacons, as a live scan would compute them.
                    entry.relativePower = scale.relativePower(rssi: entry.meanRSSI, strongest: strongest)
                    dictionary[beacon] = entry
                }
                guard let current else { return }
                fingerprints.append(SurveyedFingerprint(
                    spot: current.spot, run: current.run, device: current.device, time: current.time,
                    fingerprint: Fingerprint(entries: dictionary, sampleCount: current.samples)))
            }
            func take(fingerprint id: Int64, beacon: Int64, meanRSSI: Double, dispersion: Double, visibility: Double) {
                if id != currentID {
                    flush()
                    entries.removeAll(keepingCapacity: true)
                    currentID = id
                    current = fingerprintRows[id]!
                }
                // Entries of retired beacons are left out (they have no identity in `beacons`).
                guard let identity = beacons[beacon] else { return }
                entries.append((identity, FingerprintEntry(relativePower: 0, meanRSSI: meanRSSI, dispersion: dispersion, visibility: visibility)))
            }
            // The hot read of a revision reload: each engine scans as fast as it can (SQLite through its own API).
            try await db.scan(entryScan) { rows in
                for row in rows {
                    take(fingerprint: row.first, beacon: row.second, meanRSSI: row.third, dispersion: row.fourth, visibility: row.fifth)
                }
            }
            flush()
            return VenueSurvey(venue: venue, spots: spotRows.map(\.spot), surveyed: fingerprints, tuning: try await tuning(of: venueID, db))
        }
    }
}
