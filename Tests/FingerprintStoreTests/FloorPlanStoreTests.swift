import FingerprintStore
import Foundation
import Positioning
import ScanFormats
import Testing

@Suite("FingerprintStore: floor plans")
struct FloorPlanStoreTests {
    static let svg = FloorPlanImage(data: Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="24"><rect width="40" height="24"/></svg>"#.utf8), mediaType: .svg)
    static let placement = FloorPlanPlacement(image: "plans/ground.svg", topLeft: .init(x: -1, y: 25), bottomRight: .init(x: 41, y: -1))

    static var plannedVenue: VenueDefinition {
        var venue = StoreFixtures.venue
        venue.floors[0].plan = placement
        return venue
    }

    @Test("a plan imported with its venue is stored byte for byte with its placement", arguments: BackendTests.engines)
    func imported(engine: StoreEngine) async throws {
        // Given a venue whose ground floor has a plan
        let store = try await BackendTests.store(engine)
        let summary = try await store.importVenue(Self.plannedVenue, plans: [0: Self.svg])
        // Then the image and the placement come back exactly
        #expect(summary.plansSet == 1)
        await #expect(try store.floorPlans(of: "hall")[0]?.image == Self.svg)
        #expect(try await store.floorPlanImage(venue: "hall", level: 0) == Self.svg)
        await #expect(try store.venue("hall").floors[0].plan == Self.placement)
        await #expect(try store.venue("hall").definition().floors[0].plan == Self.placement)
        // And importing the same again changes nothing
        let again = try await store.importVenue(Self.plannedVenue, plans: [0: Self.svg])
        #expect(again.plansSet == 0 && !again.changedPositioning)
    }

    @Test("setting a plan replaces it and bumps the revision; an unknown floor or venue, or a bad placement, is refused and nothing changes", arguments: BackendTests.engines)
    func setPlan(engine: StoreEngine) async throws {
        // Given the venue with its plan
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(Self.plannedVenue, plans: [0: Self.svg])
        let revision = try await store.venue("hall").revision
        // When another image is set with another placement
        let png = FloorPlanImage(data: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]), mediaType: .png)
        let moved = FloorPlanPlacement(image: "plans/floor-0.png", topLeft: .init(x: 0, y: 30), bottomRight: .init(x: 50, y: 0))
        let after = try await store.setFloorPlan(venue: "hall", level: 0, placement: moved, image: png)
        // Then it replaced the first at a new revision
        #expect(after == revision + 1)
        await #expect(try store.floorPlans(of: "hall")[0]?.image == png)
        await #expect(try store.venue("hall").floors[0].plan == moved)
        // And an unknown floor, an unknown venue and a bad placement are refused
        await #expect(throws: StoreError.invalidInput("venue 'hall' has no floor 7 (its floors: 0)")) {
            try await store.setFloorPlan(venue: "hall", level: 7, placement: moved, image: png)
        }
        await #expect(throws: StoreError.unknownVenue("atlantis")) {
            try await store.setFloorPlan(venue: "atlantis", level: 0, placement: moved, image: png)
        }
        let flipped = FloorPlanPlacement(image: "plans/floor-0.png", topLeft: .init(x: 60, y: 30), bottomRight: .init(x: 50, y: 0))
        await #expect(throws: StoreError.self) { try await store.setFloorPlan(venue: "hall", level: 0, placement: flipped, image: png) }
        await #expect(try store.venue("hall").revision == after)
    }

    @Test("a plan without its image is refused with the floor named, and nothing is written", arguments: BackendTests.engines)
    func missingImage(engine: StoreEngine) async throws {
        let store = try await BackendTests.store(engine)
        await #expect(throws: StoreError.invalidInput("floor 0's plan names 'plans/ground.svg', but no image was given for it")) {
            try await store.importVenue(Self.plannedVenue)
        }
        #expect(try await store.venues().isEmpty)
    }

    @Test("a plan placed by reference points is stored as given, with the corners its image's size puts it at; one whose size cannot be read is refused", arguments: BackendTests.engines)
    func referencePoints(engine: StoreEngine) async throws {
        // Given the hall and its 40 × 24 px SVG, placed so that pixel (0, 24) lies at venue (0, 0) and pixel
        // (40, 24) at (0, 20): turned a quarter anticlockwise, half a metre a pixel
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(StoreFixtures.venue)
        let placement = FloorPlanPlacement(image: "plans/floor-0.svg", anchoring: .referencePoints(
            .init(pixel: .init(x: 0, y: 24), venue: .init(x: 0, y: 0)), .init(pixel: .init(x: 40, y: 24), venue: .init(x: 0, y: 20))))
        try await store.setFloorPlan(venue: "hall", level: 0, placement: placement, image: Self.svg)
        // Then the placement comes back as given, and the corners are where that turn puts them
        let stored = try await #require(try store.floorPlans(of: "hall")[0])
        #expect(stored.placement == placement)
        await #expect(try store.venue("hall").floors[0].plan == placement)
        let corners = try await #require(try store.venue("hall").planCorners[0])
        #expect(abs(corners.topLeft.x + 12) < 1e-9 && abs(corners.topLeft.y - 0) < 1e-9)
        #expect(abs(corners.topRight.x + 12) < 1e-9 && abs(corners.topRight.y - 20) < 1e-9)
        #expect(abs(corners.bottomRight.x - 0) < 1e-9 && abs(corners.bottomRight.y - 20) < 1e-9)
        #expect(!corners.isAxisAligned && stored.corners == corners)
        // And an SVG with no size cannot be placed by reference points, and nothing changes
        let revision = try await store.venue("hall").revision
        let sizeless = FloorPlanImage(data: Data(#"<svg xmlns="http://www.w3.org/2000/svg"><rect width="4" height="4"/></svg>"#.utf8), mediaType: .svg)
        await #expect(throws: StoreError.self) { try await store.setFloorPlan(venue: "hall", level: 0, placement: placement, image: sizeless) }
        await #expect(try store.venue("hall").revision == revision)
        await #expect(try store.floorPlans(of: "hall")[0]?.image == Self.svg)
    }

    @Test("the floor plan migration is named and listed")
    func migrationListed() {
        #expect(FingerprintStore.knownMigrations.contains("v6: floor plans"))
    }
}
