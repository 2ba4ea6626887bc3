import Foundation
import Positioning
import PositioningTuning

extension FingerprintStore {
    /// The calibration walk against the survey at its spots.
    func calibrationEstimate(
        _ calibration: [LabelledSample], old: BeaconID, new: BeaconID, venue: VenueDetails, _ db: any SQLTransaction
    ) async throws -> ReplacementCalibration.Estimate {
        // One calibration fingerprint per spot, from all its samples (any device, any order).
        var bySpot: [String: [Sample]] = [:]
        for labelled in calibration where !labelled.sample.readings.isEmpty {
            let name = labelled.truth.spot
                ?? venue.spots.nearest(toX: labelled.truth.x, y: labelled.truth.y, floor: labelled.truth.floor)?.name
            if let name { bySpot[name, default: []].append(labelled.sample) }
        }
        let builder = FingerprintBuilder()
        var walked: [String: Fingerprint] = [:]
        for (spot, samples) in bySpot {
            if let fingerprint = try? builder.fingerprint(of: samples) { walked[spot] = fingerprint }
        }
        // The survey's fingerprints at those spots, with the old beacon still in them.
        var identities: [Int64: BeaconID] = [:]
        for row in try await BeaconRecord.all(of: venue.id, db) {
            identities[row.id!] = try row.identity
        }
        var surveyed: [String: [Fingerprint]] = [:]
        let rows = try await db.rows("""
            SELECT s.name, f.id, e.beaconId, e.meanRSSI FROM fingerprint f JOIN spot s ON s.id = f.spotId
            JOIN fingerprintEntry e ON e.fingerprintId = f.id JOIN beacon b ON b.id = e.beaconId
            WHERE s.venueId = \(venue.id) AND b.status = 'active' ORDER BY f.id
            """)
        var fingerprints: [Int64: (spot: String, entries: [BeaconID: FingerprintEntry])] = [:]
        for row in rows {
            let spot = try row.text("name")
            guard walked[spot] != nil else { continue }
            let entry = FingerprintEntry(relativePower: 0, meanRSSI: try row.real("meanRSSI"), dispersion: 0, visibility: 1)
            fingerprints[try row.integer("id"), default: (spot, [:])].entries[identities[try row.integer("beaconId")]!] = entry
        }
        for (_, fingerprint) in fingerprints {
            surveyed[fingerprint.spot, default: []].append(Fingerprint(entries: fingerprint.entries, sampleCount: 1))
        }
        return ReplacementCalibration().estimate(old: old, new: new, survey: surveyed, calibration: walked)
    }
}
