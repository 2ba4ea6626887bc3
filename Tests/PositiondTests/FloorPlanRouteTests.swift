import FingerprintStore
import Foundation
import HummingbirdTesting
import Positioning
@testable import positiond
import ScanFormats
import Testing

@Suite("positiond floor plans")
struct FloorPlanRouteTests {
    static let png = FloorPlanImage(
        data: Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!,
        mediaType: .png)
    static let placement = FloorPlanPlacement(image: "plans/gallery.png", topLeft: .init(x: -1, y: 25), bottomRight: .init(x: 41, y: -1))

    @Test("the venue's floors say which has a plan and where it lies; the plan route serves the stored bytes with their media type, 404 without one")
    func plans() async throws {
        // Given demo-hall with a PNG plan on the gallery only
        let store = try TestEnvironment.untunedDemoStore { venue in
            for index in venue.floors.indices { venue.floors[index].plan = nil }
        }
        try store.setFloorPlan(venue: "demo-hall", level: 1, placement: Self.placement, image: Self.png)
        let app = try await TestEnvironment.app(store: store)
        try await app.test(.router) { client in
            // When the venue is read
            let venue = try await client.call(.get, "/v1/venues/demo-hall")
            // Then the gallery has its placement and the ground floor says it has none
            let floors = try #require(venue.json["floors"] as? [[String: Any]])
            #expect(floors[0]["has_plan"] as? Bool == false && floors[0]["plan"] == nil)
            #expect(floors[1]["has_plan"] as? Bool == true)
            let plan = try #require(floors[1]["plan"] as? [String: Any])
            #expect(plan["media_type"] as? String == "image/png")
            #expect(plan["top_left"] as? [String: Double] == ["x": -1, "y": 25])
            #expect(plan["bottom_right"] as? [String: Double] == ["x": 41, "y": -1])
            #expect(plan["url"] as? String == "/v1/venues/demo-hall/floors/1/plan")
            // When the plan is fetched
            let image = try await client.call(.get, "/v1/venues/demo-hall/floors/1/plan")
            // Then it is the stored bytes, as PNG
            #expect(image.status == .ok)
            #expect(image.headers[.contentType] == "image/png")
            #expect(Data(buffer: image.body) == Self.png.data)
            // And a browser's Accept of images is served; an Accept the plan's type does not meet is refused
            let browser = try await client.call(.get, "/v1/venues/demo-hall/floors/1/plan", headers: [.accept: "image/avif,image/webp,image/*,*/*;q=0.8"])
            #expect(browser.status == .ok)
            let unmet = try await client.call(.get, "/v1/venues/demo-hall/floors/1/plan", headers: [.accept: "image/svg+xml"])
            #expect(unmet.status == .notAcceptable)
            #expect(unmet.errorMessage.contains("content type: image/png, accepted: image/svg+xml"), "\(unmet.errorMessage)")
            // And a floor without a plan, an unknown floor and an unknown venue are 404s that say which
            let none = try await client.call(.get, "/v1/venues/demo-hall/floors/0/plan")
            #expect(none.status == .notFound)
            #expect(none.errorMessage.contains("floor 0 of venue 'demo-hall' has no plan"))
            let noFloor = try await client.call(.get, "/v1/venues/demo-hall/floors/9/plan")
            #expect(noFloor.status == .notFound)
            #expect(noFloor.errorMessage == "venue 'demo-hall' has no floor 9")
            let noVenue = try await client.call(.get, "/v1/venues/atlantis/floors/0/plan")
            #expect(noVenue.status == .notFound)
        }
    }
}
