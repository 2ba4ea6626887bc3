import Foundation
import Positioning
import Testing

@Suite("GeoAnchor: venue metres to WGS84 and back")
struct GeoAnchorTests {
    static let latitudes: [Double] = [-60, 0, 45, 52.5161, 70]
    static let bearings: [Double] = [0, 17.5, 90, 213, -45]

    @Test("venue metres round-trip through lat/lon to well under a millimetre within 500 m", arguments: latitudes)
    func roundTrip(lat: Double) {
        var worst = 0.0
        for bearing in Self.bearings {
            // Given an anchor at this latitude and bearing
            let anchor = GeoAnchor(lat: lat, lon: 13.3777, bearing: bearing)
            // When every point of a 500 m grid around the origin goes to lat/lon and back
            for x in stride(from: -500.0, through: 500, by: 50) {
                for y in stride(from: -500.0, through: 500, by: 50) {
                    let back = anchor.venuePoint(anchor.coordinate(x: x, y: y))
                    worst = max(worst, ((back.x - x) * (back.x - x) + (back.y - y) * (back.y - y)).squareRoot())
                }
            }
        }
        // Then it comes back within 10 µm (the tangent plane parts from the ellipsoid by d³/2R², 1.5 µm at 500 m)
        #expect(worst < 1e-5, "worst round-trip error \(worst) m at latitude \(lat)")
    }

    @Test("the axes point where the bearing says: 0° puts +x north and +y west, 90° puts +x east and +y north")
    func axes() {
        // Given anchors at 0° and 90°
        let north = GeoAnchor(lat: 52.5, lon: 13.4, bearing: 0)
        let east = GeoAnchor(lat: 52.5, lon: 13.4, bearing: 90)
        // Then 100 m along each axis moves the right way, and not the other
        let xNorth = north.coordinate(x: 100, y: 0), yWest = north.coordinate(x: 0, y: 100)
        #expect(xNorth.lat > 52.5 && abs(xNorth.lon - 13.4) < 1e-12)
        #expect(yWest.lon < 13.4 && abs(yWest.lat - 52.5) < 1e-6)
        let xEast = east.coordinate(x: 100, y: 0), yNorth = east.coordinate(x: 0, y: 100)
        #expect(xEast.lon > 13.4 && abs(xEast.lat - 52.5) < 1e-6)
        #expect(yNorth.lat > 52.5 && abs(yNorth.lon - 13.4) < 1e-12)
        // And the origin is the anchor itself
        let origin = north.coordinate(x: 0, y: 0)
        #expect(abs(origin.lat - 52.5) < 1e-12 && abs(origin.lon - 13.4) < 1e-12)
    }

    @Test("distances agree with the WGS84 radii of curvature at the equator")
    func radii() {
        // Given an anchor on the equator: the meridian's radius there is a(1-e²), the parallel's a
        let a = 6_378_137.0, f = 1 / 298.257_223_563
        let meridian = a * (1 - f * (2 - f))
        let northward = GeoAnchor(lat: 0, lon: 0, bearing: 0).coordinate(x: 1000, y: 0)
        let eastward = GeoAnchor(lat: 0, lon: 0, bearing: 90).coordinate(x: 1000, y: 0)
        // Then 1 km north and east are 1000/M and 1000/a radians, to 1e-9° (0.1 mm)
        #expect(abs(northward.lat - 1000 / meridian * 180 / .pi) < 1e-9)
        #expect(abs(eastward.lon - 1000 / a * 180 / .pi) < 1e-9)
    }

    @Test("a position gains lat/lon from an anchor and none without one")
    func anchoredPosition() {
        let position = Position(x: 12, y: -3, floor: 1, accuracy: 2, spot: "s", zone: nil)
        #expect(position.anchored(by: nil) == position)
        let anchor = GeoAnchor(lat: 40.4168, lon: -3.7038, bearing: 33)
        let anchored = position.anchored(by: anchor)
        let expected = anchor.coordinate(x: 12, y: -3)
        #expect(anchored.lat == expected.lat && anchored.lon == expected.lon)
        #expect(anchored.x == 12 && anchored.y == -3)
    }

    @Test("anchors outside the globe or near a pole are refused with the field named", arguments: [
        (GeoAnchor(lat: 91, lon: 0, bearing: 0), "geo.lat"),
        (GeoAnchor(lat: 89.5, lon: 0, bearing: 0), "geo.lat"),
        (GeoAnchor(lat: 0, lon: -181, bearing: 0), "geo.lon"),
        (GeoAnchor(lat: 0, lon: 0, bearing: .nan), "geo.bearing"),
        (GeoAnchor(lat: 0, lon: 0, bearing: 400), "geo.bearing"),
    ])
    func problems(anchor: GeoAnchor, field: String) {
        let problems = anchor.problems()
        #expect(problems.count == 1 && problems[0].hasPrefix(field), "\(problems)")
        #expect(GeoAnchor(lat: 52.5, lon: 13.4, bearing: -90).problems().isEmpty)
    }
}
