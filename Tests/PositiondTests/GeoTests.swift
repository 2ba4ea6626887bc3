import FingerprintStore
import Foundation
import HummingbirdTesting
import Positioning
import positiond
import Testing

/// Positions in WGS84 when the venue has a geographic anchor (venue.json's `geo`).
@Suite("positiond geographic coordinates")
struct GeoTests {
    /// Near the Brandenburg Gate, the venue's +x axis 17.5° east of north.
    static let anchor = GeoAnchor(lat: 52.5161, lon: 13.3777, bearing: 17.5)

    /// The anchor as `GET /v1/venues/{venue}` gives it.
    static func anchor(of venue: TestResponse) throws -> GeoAnchor {
        let geo = try #require(venue.json["geo"] as? [String: Double])
        return GeoAnchor(lat: try #require(geo["lat"]), lon: try #require(geo["lon"]), bearing: try #require(geo["bearing"]))
    }

    /// How far, in metres, a position's lat/lon lies from its x/y once converted back through `anchor`.
    static func roundTripError(_ position: [String: Any]?, _ anchor: GeoAnchor) throws -> Double {
        let position = try #require(position)
        let lat = try #require(position["lat"] as? Double, "no lat in \(position)")
        let lon = try #require(position["lon"] as? Double, "no lon in \(position)")
        let back = anchor.venuePoint(.init(lat: lat, lon: lon))
        let dx = back.x - (position["x"] as! Double), dy = back.y - (position["y"] as! Double)
        return (dx * dx + dy * dy).squareRoot()
    }

    @Test("a geo-anchored venue gives its anchor, and locate, tracked samples and device state carry lat/lon that convert back within 1 cm")
    func anchored() async throws {
        // Given demo-hall with a geo anchor
        let app = try await TestEnvironment.app(store: try TestEnvironment.untunedDemoStore { $0.geo = Self.anchor })
        let walk = try TestEnvironment.walk
        try await app.test(.router) { client in
            // When the venue is read
            let venue = try await client.call(.get, "/v1/venues/demo-hall")
            // Then it carries the anchor
            let anchor = try Self.anchor(of: venue)
            #expect(anchor == Self.anchor)
            // When a walk stop is located
            let located = try await client.call(.post, "/v1/venues/demo-hall/locate", body: TestEnvironment.body(Array(walk[0..<5])))
            #expect(located.json["status"] as? String == "located")
            // Then its lat/lon convert back to its venue x/y within 1 cm
            #expect(try Self.roundTripError(located.json["position"] as? [String: Any], anchor) < 0.01)
            // And a tracked device's smoothed and raw positions do too, as does its state read back
            var tracked: TestResponse?
            for line in walk[0..<5] {
                tracked = try await client.call(.post, "/v1/venues/demo-hall/devices/phone-g/samples", body: TestEnvironment.body([line]))
            }
            let state = try #require(tracked)
            #expect(try Self.roundTripError(state.json["position"] as? [String: Any], anchor) < 0.01)
            #expect(try Self.roundTripError((state.json["raw"] as? [String: Any])?["position"] as? [String: Any], anchor) < 0.01)
            let read = try await client.call(.get, "/v1/venues/demo-hall/devices/phone-g")
            #expect(try Self.roundTripError(read.json["position"] as? [String: Any], anchor) < 0.01)
            // And the coordinates are where the anchor puts the venue: within a few hundred metres of it
            let position = try #require(located.json["position"] as? [String: Any])
            #expect(abs((position["lat"] as! Double) - anchor.lat) < 0.005 && abs((position["lon"] as! Double) - anchor.lon) < 0.005)
        }
    }

    @Test("a venue without an anchor has no geo, and its positions no lat/lon")
    func unanchored() async throws {
        // Given demo-hall without a geo anchor
        let app = try await TestEnvironment.app(store: try TestEnvironment.untunedDemoStore { $0.geo = nil })
        let walk = try TestEnvironment.walk
        try await app.test(.router) { client in
            // When the venue is read, a stop located and a device tracked
            let venue = try await client.call(.get, "/v1/venues/demo-hall")
            let located = try await client.call(.post, "/v1/venues/demo-hall/locate", body: TestEnvironment.body(Array(walk[0..<5])))
            let tracked = try await client.call(.post, "/v1/venues/demo-hall/devices/phone-g/samples", body: TestEnvironment.body(Array(walk[0..<3])))
            // Then there is no anchor and no position has lat or lon
            #expect(venue.json["geo"] == nil)
            for position in [located.json["position"], tracked.json["position"], (tracked.json["raw"] as? [String: Any])?["position"]] {
                let position = try #require(position as? [String: Any])
                #expect(position["lat"] == nil && position["lon"] == nil && position["x"] != nil)
            }
        }
    }
}
