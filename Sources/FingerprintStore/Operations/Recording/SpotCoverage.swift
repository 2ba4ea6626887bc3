import Positioning

extension FingerprintStore {
    /// Fingerprint counts and median beacons per fingerprint, per spot of the venue.
    /// - Parameters:
    ///   - firstNew: only fingerprints with a smaller id are read from the database (all when nil);
    ///   - recent: beacon counts of fingerprints the caller has just written, per spot name. Every
    ///     beacon of a fingerprint being recorded is active, so they count as they are.
    func spotCoverage(
        _ venueID: String, _ db: any SQLTransaction, before firstNew: Int64? = nil, adding recent: [String: [Int]] = [:]
    ) async throws -> [RecordSummary.SpotCoverage] {
        let rows = try await db.rows("""
            SELECT s.name AS spot, f.id AS fingerprint,
              (SELECT COUNT(*) FROM fingerprintEntry e JOIN beacon b ON b.id = e.beaconId
               WHERE e.fingerprintId = f.id AND b.status = 'active') AS beacons
            FROM spot s LEFT JOIN fingerprint f ON f.spotId = s.id AND f.id < \(firstNew ?? Int64.max)
            WHERE s.venueId = \(venueID) ORDER BY s.id
            """)
        var order: [String] = []
        var beaconsPerFingerprint: [String: [Int]] = [:]
        for row in rows {
            let spot = try row.text("spot")
            if beaconsPerFingerprint[spot] == nil {
                order.append(spot)
                beaconsPerFingerprint[spot] = recent[spot] ?? []
            }
            if try row.optionalInteger("fingerprint") != nil { beaconsPerFingerprint[spot]!.append(try row.int("beacons")) }
        }
        return order.map { spot in
            let counts = beaconsPerFingerprint[spot]!.sorted()
            return RecordSummary.SpotCoverage(
                spot: spot, added: 0, total: counts.count, medianBeacons: counts.isEmpty ? 0 : counts[counts.count / 2])
        }
    }
}

extension RecordSummary.SpotCoverage {
    /// Fewer than 3 fingerprints, or fingerprints that typically see fewer than 3 beacons.
    public var needsRevisit: Bool { Self.isThin(fingerprints: total, medianBeacons: medianBeacons) }

    /// The one rule for a spot to record again: `record`, `stats`, `map` and the live map all use it.
    static func isThin(fingerprints: Int, medianBeacons: Int) -> Bool { fingerprints < 3 || medianBeacons < 3 }
}
