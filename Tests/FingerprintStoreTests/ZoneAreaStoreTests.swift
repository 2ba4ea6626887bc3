import FingerprintStore
import Foundation
import Positioning
import ScanFormats
import Testing

@Suite("FingerprintStore: zone polygons")
struct ZoneAreaStoreTests {
    /// The fixture hall with its spots' own zones dropped and two rooms drawn instead; `a` keeps its own.
    static var zonedVenue: VenueDefinition {
        var venue = StoreFixtures.venue
        venue.spots = venue.spots.map { spot in
            var bare = spot
            bare.zone = spot.name == "a" ? "desk" : nil
            return bare
        }
        venue.zones = [
            ZoneArea(name: "west", floor: 0, polygon: [.init(x: -2, y: -3), .init(x: 7, y: -3), .init(x: 7, y: 3), .init(x: -2, y: 3)]),
            ZoneArea(name: "east", floor: 0, polygon: [.init(x: 7, y: -3), .init(x: 12, y: -3), .init(x: 12, y: 3), .init(x: 7, y: 3)]),
        ]
        return venue
    }

    @Test("polygons are stored with their venue, resolve the spots' zones, survive export, and redrawing one bumps the revision", arguments: BackendTests.engines)
    func storedAndResolved(engine: StoreEngine) async throws {
        // Given the hall imported with two drawn zones
        let store = try await BackendTests.store(engine)
        let summary = try await store.importVenue(Self.zonedVenue)
        #expect(summary.zonesSet == 2)
        // Then the venue lists them in their order, and its definition (what export writes) gives them back
        let details = try await store.venue("hall")
        #expect(details.zoneAreas == Self.zonedVenue.zones)
        #expect(details.definition() == Self.zonedVenue)
        // And spots without a zone take their polygon's; a spot's own zone wins
        #expect(details.zones.spots.map(\.zone) == ["desk", "west", "east"])
        #expect(try await store.coverage(of: "hall").spots.map(\.spot.zone) == ["desk", "west", "east"])
        // And the radio map decides positions' zones by the polygons
        let survey = try await store.survey(of: "hall", scale: PositioningConfiguration.defaultScale)
        #expect(try survey.radioMap().zones.zone(atX: 8, y: 0, floor: 0) == "east")

        // When the same venue is imported again, nothing changes
        let again = try await store.importVenue(Self.zonedVenue)
        #expect(again.zonesSet == 0 && !again.changedPositioning)
        // When one polygon is redrawn
        var redrawn = Self.zonedVenue
        redrawn.zones![1].polygon[0].x = 6
        let changed = try await store.importVenue(redrawn)
        // Then it is replaced in place, and the revision moves so positiond reloads
        #expect(changed.zonesSet == 1 && changed.changedPositioning && changed.revision == again.revision + 1)
        await #expect(try store.venue("hall").zoneAreas == redrawn.zones)
    }

    @Test("a broken polygon is refused with the zone named, and nothing is written", arguments: BackendTests.engines)
    func refused(engine: StoreEngine) async throws {
        // Given a venue whose polygon lies on a floor it does not define
        var venue = Self.zonedVenue
        venue.zones![0].floor = 4
        let store = try await BackendTests.store(engine)
        // Then the import is refused, naming the zone, and no venue exists
        await #expect(throws: StoreError.invalidVenue(problems: ["zone 'west' on floor 4: the venue does not define floor 4"])) {
            try await store.importVenue(venue)
        }
        #expect(try await store.venues().isEmpty)
    }
}
