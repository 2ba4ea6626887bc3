import FingerprintStore
import Foundation
import HummingbirdTesting
import Positioning
import positiond
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
        let store = try await TestEnvironment.untunedDemoStore { venue in
            for index in venue.floors.indices { venue.floors[index].plan = nil }
        }
        try await store.setFloorPlan(venue: "demo-hall", level: 1, placement: Self.placement, image: Self.png)
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
            #expect(plan["top_right"] as? [String: Double] == ["x": 41, "y": 25] && plan["bottom_left"] as? [String: Double] == ["x": -1, "y": -1])
            #expect(plan["reference_points"] == nil)
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

    @Test("a plan, even one stored with a script before import sanitised SVGs, is served inert; the pages run only their own files and may not be framed")
    func lockedDown() async throws {
        // Given demo-hall whose gallery plan is an SVG with a script, stored as it was (as an older survey stored it)
        let hostile = FloorPlanImage(
            data: Data(#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 24" onload="alert(1)"><script>alert(2)</script><rect width="40" height="24"/></svg>"#.utf8),
            mediaType: .svg)
        let store = try await TestEnvironment.untunedDemoStore { venue in
            for index in venue.floors.indices { venue.floors[index].plan = nil }
        }
        try await store.setFloorPlan(
            venue: "demo-hall", level: 1, placement: FloorPlanPlacement(image: "plans/g.svg", topLeft: .init(x: -1, y: 25), bottomRight: .init(x: 41, y: -1)),
            image: hostile)
        let app = try await TestEnvironment.app(store: store)
        try await app.test(.router) { client in
            // When the plan is fetched
            let plan = try await client.call(.get, "/v1/venues/demo-hall/floors/1/plan")
            // Then a browser opening it runs nothing, loads nothing but inline images, and does not sniff its type
            #expect(plan.status == .ok && plan.headers[.contentType] == "image/svg+xml")
            #expect(plan.headers[.contentSecurityPolicy] == "default-src 'none'; img-src data:; style-src 'unsafe-inline'")
            #expect(plan.headers[.xContentTypeOptions] == "nosniff")
            // When the map page is fetched
            let page = try await client.call(.get, "/venues/demo-hall/map")
            // Then it may run only positiond's own scripts and styles, and no site may frame it or learn its address
            let policy = try #require(page.headers[.contentSecurityPolicy])
            for directive in ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "object-src 'none'"] {
                #expect(policy.contains(directive), "\(policy)")
            }
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
            #expect(page.headers[.xFrameOptions] == "DENY" && page.headers[.referrerPolicy] == "no-referrer")
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
            // And an error answer carries the same locks
            let missing = try await client.call(.get, "/v1/venues/demo-hall/floors/0/plan")
            #expect(missing.status == .notFound && missing.headers[.contentSecurityPolicy] == SecurityHeadersMiddleware<AppRequestContext>.documentPolicy)
            #expect(missing.headers[.xContentTypeOptions] == "nosniff")
        }
    }

    @Test("a plan placed by reference points answers its rotated corners and the points as given")
    func rotatedPlan() async throws {
        // Given demo-hall's ground plan (420 × 260 px, 10 px a metre) placed so that the pixels of its
        // bottom edge run from venue (0, 0) at 30 degrees anticlockwise
        let store = try await TestEnvironment.untunedDemoStore()
        let image = FloorPlanImage(data: try TestEnvironment.demoFile("plans/ground.svg"), mediaType: .svg)
        let angle = Double.pi / 6
        let placement = FloorPlanPlacement(image: "plans/floor-0.svg", anchoring: .referencePoints(
            .init(pixel: .init(x: 0, y: 260), venue: .init(x: 0, y: 0)), .init(pixel: .init(x: 420, y: 260), venue: .init(x: 42 * cos(angle), y: 42 * sin(angle)))))
        try await store.setFloorPlan(venue: "demo-hall", level: 0, placement: placement, image: image)
        let app = try await TestEnvironment.app(store: store)
        try await app.test(.router) { client in
            // When the venue is read
            let venue = try await client.call(.get, "/v1/venues/demo-hall")
            let plan = try #require((venue.json["floors"] as? [[String: Any]])?.first?["plan"] as? [String: Any])
            // Then the corners are turned by 30 degrees and the image keeps its 42 × 26 m shape
            func corner(_ name: String) throws -> (Double, Double) {
                let point = try #require(plan[name] as? [String: Double])
                return (point["x"] ?? .nan, point["y"] ?? .nan)
            }
            let (bottomLeft, topLeft, topRight) = (try corner("bottom_left"), try corner("top_left"), try corner("top_right"))
            #expect(abs(bottomLeft.0) < 1e-9 && abs(bottomLeft.1) < 1e-9)
            #expect(abs(topLeft.0 + 26 * sin(angle)) < 1e-9 && abs(topLeft.1 - 26 * cos(angle)) < 1e-9)
            #expect(abs(hypot(topRight.0 - topLeft.0, topRight.1 - topLeft.1) - 42) < 1e-9)
            // And the reference points are given back as they were set
            let points = try #require(plan["reference_points"] as? [[String: [String: Double]]])
            #expect(points.count == 2 && points[0]["pixel"] == ["x": 0, "y": 260] && points[0]["venue"] == ["x": 0, "y": 0])
        }
    }
}
