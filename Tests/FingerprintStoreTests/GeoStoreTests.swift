import FingerprintStore
import Foundation
import Positioning
import ScanFormats
import Testing

@Suite("FingerprintStore: a venue's geographic anchor")
struct GeoStoreTests {
    static let anchor = GeoAnchor(lat: 48.8584, lon: 2.2945, bearing: 231.75)

    static var anchoredVenue: VenueDefinition {
        var venue = StoreFixtures.venue
        venue.geo = anchor
        return venue
    }

    @Test("an anchor is stored, read back and written out in the definition", arguments: BackendTests.engines)
    func storedAndRead(engine: StoreEngine) async throws {
        // Given a venue imported with an anchor
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(Self.anchoredVenue)
        // Then the venue and its definition carry it exactly
        await #expect(try store.venue("hall").geo == Self.anchor)
        await #expect(try store.venue("hall").definition().geo == Self.anchor)
        // And a venue imported without one has none
        var plain = StoreFixtures.venue
        plain.id = "plain"
        _ = try await store.importVenue(plain)
        await #expect(try store.venue("plain").geo == nil)
    }

    @Test("re-importing without geo keeps the anchor; a different anchor bumps the revision", arguments: BackendTests.engines)
    func updates(engine: StoreEngine) async throws {
        // Given an anchored venue
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(Self.anchoredVenue)
        let revision = try await store.venue("hall").revision
        // When its definition is imported again without geo
        let same = try await store.importVenue(StoreFixtures.venue)
        // Then the anchor is kept and positioning did not change
        #expect(!same.changedPositioning && same.revision == revision)
        await #expect(try store.venue("hall").geo == Self.anchor)
        // When a different anchor is imported
        var moved = Self.anchoredVenue
        moved.geo?.bearing = 12
        let changed = try await store.importVenue(moved)
        // Then the venue has it, at a new revision (positiond's answers change with it)
        #expect(changed.changedPositioning && changed.revision == revision + 1)
        await #expect(try store.venue("hall").geo?.bearing == 12)
    }

    @Test("an anchor off the globe is refused with the field named, and nothing is written", arguments: BackendTests.engines)
    func refused(engine: StoreEngine) async throws {
        let store = try await BackendTests.store(engine)
        var venue = Self.anchoredVenue
        venue.geo = GeoAnchor(lat: 95, lon: 2.2945, bearing: 0)
        await #expect(throws: StoreError.invalidVenue(problems: ["geo.lat is 95.0; expected degrees between -89 and 89"])) {
            try await store.importVenue(venue)
        }
        #expect(try await store.venues().isEmpty)
    }

    @Test("the anchor migration is named and listed")
    func migrationListed() {
        #expect(FingerprintStore.knownMigrations.contains("v5: venue geographic anchor"))
    }
}
