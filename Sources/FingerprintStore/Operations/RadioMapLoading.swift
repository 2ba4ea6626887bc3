import GRDB
public import Positioning

/// A venue's survey as of one revision: what the daemon and the CLI build a ``RadioMap`` from.
public struct VenueSurvey: Sendable {
    public var venue: VenueDetails
    /// The venue's spots; fingerprints point into this array.
    public var spots: [Spot]
    /// Reference fingerprints over active beacons only, relative powers recomputed among them.
    public var fingerprints: [(spot: Int, fingerprint: Fingerprint)]

    /// The revision this survey was read at.
    public var revision: Int { venue.revision }

    /// The dense radio map of this survey.
    public func radioMap() throws(RadioMapError) -> RadioMap {
        try RadioMap(spots: spots, fingerprints: fingerprints)
    }
}

extension FingerprintStore {
    /// Reads a venue's survey in one read transaction, so the revision and the fingerprints agree.
    ///
    /// Entries of retired beacons are left out, and relative powers are recomputed with `scale` among
    /// the remaining beacons, as a live scan (which cannot hear a dead beacon) would compute them.
    /// Fingerprints left with no beacon are skipped.
    public func survey(of venueID: String, scale: any RelativePowerScale) throws -> VenueSurvey {
        try writer.read { db in
            let venue = try venueDetails(venueID, db)
            var spotIndex: [Int64: Int] = [:]
            let spotRows = try SpotRecord.filter(SpotRecord.Columns.venueId == venueID).order(SpotRecord.Columns.id).fetchAll(db)
            for (index, row) in spotRows.enumerated() { spotIndex[row.id!] = index }
            var beacons: [Int64: BeaconID] = [:]
            for (beacon, id) in try beaconIndex(venueID, db) { beacons[id] = beacon }

            var fingerprints: [(spot: Int, fingerprint: Fingerprint)] = []
            var currentID: Int64?
            var currentSpot = 0
            var current = Fingerprint(entries: [:], sampleCount: 0)
            func flush() {
                if currentID != nil, !current.entries.isEmpty {
                    fingerprints.append((currentSpot, current.rescaled(with: scale)))
                }
            }
            let cursor = try Row.fetchCursor(db, sql: """
                SELECT f.id, f.spotId, f.sampleCount, e.beaconId, e.relativePower, e.meanRSSI, e.dispersion, e.visibility
                FROM fingerprint f JOIN spot s ON s.id = f.spotId
                LEFT JOIN fingerprintEntry e ON e.fingerprintId = f.id
                WHERE s.venueId = ? ORDER BY f.id
                """, arguments: [venueID])
            while let row = try cursor.next() {
                let id: Int64 = row[0]
                if id != currentID {
                    flush()
                    currentID = id
                    currentSpot = spotIndex[row[1]]!
                    current = Fingerprint(entries: [:], sampleCount: row[2])
                }
                guard let beaconRow: Int64 = row[3], let beacon = beacons[beaconRow] else { continue }
                current.entries[beacon] = FingerprintEntry(
                    relativePower: Float(row[4] as Double), meanRSSI: row[5], dispersion: row[6], visibility: row[7])
            }
            flush()
            return VenueSurvey(venue: venue, spots: spotRows.map(\.spot), fingerprints: fingerprints)
        }
    }
}
