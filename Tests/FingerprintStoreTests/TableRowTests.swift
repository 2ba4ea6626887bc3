import Foundation
import Testing

import FingerprintStore

/// Rows declared once (``TableRow``): what is written reads back equal on both engines, an absent
/// optional is NULL (an update clears it), and a stored value this build cannot read is a storage fault
/// naming its column.
@Suite("FingerprintStore: table rows declared once")
struct TableRowTests {
    @Test("a beacon and a floor plan read back exactly as written; an update writes NULL for an absent optional", arguments: BackendTests.engines)
    func roundTrip(engine: StoreEngine) async throws {
        // Given a venue with a floor
        let backend = try await BackendTests.backend(engine)
        let written = SQLValue.storedPrecision(Date(timeIntervalSince1970: 1_795_000_000.123))
        try await backend.write { transaction in
            try await VenueRecord(id: "hall", name: "Hall", revision: 1, createdAt: written, updatedAt: written, geoLat: nil, geoLon: nil, geoBearing: nil)
                .save(transaction)
            try await FloorRecord(venueId: "hall", level: 0, name: "Ground").save(transaction)
        }
        // When a beacon without label or position is inserted, then placed, then its label taken away again
        var beacon = BeaconRecord(
            id: nil, venueId: "hall", uuid: "B9407F30-F5F8-466E-AFF9-25556B57FE6D", major: 1, minor: 2, label: nil, x: nil, y: nil,
            floor: nil, measuredPower: nil, status: .active)
        beacon = try await backend.write { [beacon] transaction in
            var inserted = beacon
            try await inserted.insert(transaction)
            return inserted
        }
        let id = try #require(beacon.id)
        let inserted = try await backend.read { try await BeaconRecord.find(id: id, $0) }
        var placed = beacon
        (placed.label, placed.x, placed.y, placed.floor, placed.measuredPower, placed.status) = ("G1", 3.25, -1.5, 0, -59, .retired)
        try await backend.write { [placed] in try await placed.update($0) }
        let afterPlacing = try await backend.read { try await BeaconRecord.find(id: id, $0) }
        var unlabelled = placed
        unlabelled.label = nil
        try await backend.write { [unlabelled] in try await unlabelled.update($0) }
        let afterClearing = try await backend.read { try await BeaconRecord.all(of: "hall", $0) }
        // Then each read gives back what was written, the cleared label included
        #expect(beacon.id != nil && inserted == beacon)
        #expect(afterPlacing == placed)
        #expect(afterClearing == [unlabelled])

        // When a plan with bytes, a date and a media type is stored twice (the second an upsert)
        let plan = try FloorPlanRecord(row: SQLRow(
            columns: ["venueId", "level", "image", "mediaType", "data", "topLeftX", "topLeftY", "bottomRightX", "bottomRightY", "topRightX",
                      "topRightY", "referencePoints", "updatedAt"],
            values: [.text("hall"), .integer(0), .text("ground.png"), .text("image/png"), .blob(Data([0x89, 0x50, 0x4E, 0x47, 0])), .real(0),
                     .real(10), .real(20), .real(0), .real(20), .real(10), .null, SQLValue(written)]))
        var redrawn = plan
        (redrawn.mediaType, redrawn.referencePoints) = (.svg, "[]")
        try await backend.write { try await plan.save($0) }
        try await backend.write { [redrawn] in try await redrawn.save($0) }
        // Then the one row holds the second, exactly
        #expect(try await backend.read { try await FloorPlanRecord.all(of: "hall", $0) } == [redrawn])
    }

    @Test("a stored name this build does not know, or a value of the wrong kind, is a storage fault naming the column")
    func unreadable() throws {
        // Given a beacon row whose status is 'lost' (a later build's), and one whose major holds text
        let columns = ["id", "venueId", "uuid", "major", "minor", "label", "x", "y", "floor", "measuredPower", "status"]
        let good: [SQLValue] = [.integer(1), .text("hall"), .text("B9407F30-F5F8-466E-AFF9-25556B57FE6D"), .integer(1), .integer(2), .null, .null, .null, .null, .null, .text("active")]
        var lost = good
        lost[10] = .text("lost")
        var textMajor = good
        textMajor[3] = .text("one")
        // Then the good row reads, and each of the others fails with its column named
        #expect(try BeaconRecord(row: SQLRow(columns: columns, values: good)).status == .active)
        #expect(throws: StoreError.storageFault("the stored column 'status' holds 'lost', which this build does not know")) {
            try BeaconRecord(row: SQLRow(columns: columns, values: lost))
        }
        #expect(throws: StoreError.storageFault("the stored column 'major' should hold an integer but holds text(\"one\")")) {
            try BeaconRecord(row: SQLRow(columns: columns, values: textMajor))
        }
    }
}
