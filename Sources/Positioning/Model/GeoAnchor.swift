import Foundation

/// Where a venue lies on the Earth: the WGS84 latitude and longitude of its origin and the bearing of its
/// +x axis, in degrees clockwise from true north. The venue's +y axis is 90° counter-clockwise from +x
/// seen from above (a right-handed frame with z up), so with a bearing of 90° +x points east and +y north.
///
/// The venue's floor is taken as the plane tangent to the WGS84 ellipsoid at the origin (the local
/// east-north-up frame): venue metres become east and north metres by the bearing's rotation, and east
/// and north become latitude and longitude through earth-centred coordinates, exactly (no series). The
/// conversion is exact to floating point (nanometres); the tangent plane itself parts from the ellipsoid
/// by d³/(2R²) horizontally at a distance d from the origin: 1.5 µm at 500 m, 0.1 mm at 2 km, so within
/// a few kilometres the answers are as good as the venue's own metres. (An equirectangular projection on
/// the radii of curvature at the origin is up to 4.4 cm off within ±300 m at latitudes up to 70°.)
///
/// Pure maths: no I/O, no state. Not defined near the poles (|lat| above 89°, which ``problems`` refuses).
public struct GeoAnchor: Hashable, Sendable, Codable {
    /// Latitude of the venue origin, WGS84 degrees (north positive).
    public var lat: Double
    /// Longitude of the venue origin, WGS84 degrees (east positive).
    public var lon: Double
    /// Bearing of the venue's +x axis, degrees clockwise from true north.
    public var bearing: Double

    public init(lat: Double, lon: Double, bearing: Double) {
        self.lat = lat
        self.lon = lon
        self.bearing = bearing
    }

    /// A geographic position: WGS84 degrees.
    public struct Coordinate: Hashable, Sendable {
        public var lat: Double
        public var lon: Double

        public init(lat: Double, lon: Double) {
            self.lat = lat
            self.lon = lon
        }
    }

    /// What is wrong with this anchor, as sentences; empty when it can be used.
    public func problems() -> [String] {
        var problems: [String] = []
        if !lat.isFinite || abs(lat) > 89 { problems.append("geo.lat is \(lat); expected degrees between -89 and 89") }
        if !lon.isFinite || abs(lon) > 180 { problems.append("geo.lon is \(lon); expected degrees between -180 and 180") }
        if !bearing.isFinite || abs(bearing) > 360 {
            problems.append("geo.bearing is \(bearing); expected degrees clockwise from north, between -360 and 360")
        }
        return problems
    }

    // WGS84.
    static let semiMajorAxis = 6_378_137.0
    static let flattening = 1 / 298.257_223_563
    static let eccentricitySquared = flattening * (2 - flattening)

    /// East and north metres of venue metres (`x`, `y`).
    func eastNorth(x: Double, y: Double) -> (east: Double, north: Double) {
        let theta = bearing * .pi / 180
        let (s, c) = (sin(theta), cos(theta))
        // +x is (sin θ, cos θ) in (east, north); +y, a quarter turn counter-clockwise, is (-cos θ, sin θ).
        return (x * s - y * c, x * c + y * s)
    }

    /// Venue metres of east and north metres: the inverse rotation of ``eastNorth(x:y:)``.
    func venue(east: Double, north: Double) -> (x: Double, y: Double) {
        let theta = bearing * .pi / 180
        let (s, c) = (sin(theta), cos(theta))
        return (east * s + north * c, -east * c + north * s)
    }

    /// Earth-centred, earth-fixed coordinates of a geodetic point at height `height` metres.
    static func ecef(lat: Double, lon: Double, height: Double) -> (x: Double, y: Double, z: Double) {
        let (phi, lambda) = (lat * .pi / 180, lon * .pi / 180)
        let primeVertical = semiMajorAxis / (1 - eccentricitySquared * sin(phi) * sin(phi)).squareRoot()
        return (
            (primeVertical + height) * cos(phi) * cos(lambda),
            (primeVertical + height) * cos(phi) * sin(lambda),
            (primeVertical * (1 - eccentricitySquared) + height) * sin(phi)
        )
    }

    /// The rotation from earth-centred offsets to east, north, up at the origin, as its three rows.
    private var enuRows: (east: (Double, Double, Double), north: (Double, Double, Double), up: (Double, Double, Double)) {
        let (phi, lambda) = (lat * .pi / 180, lon * .pi / 180)
        return (
            (-sin(lambda), cos(lambda), 0),
            (-sin(phi) * cos(lambda), -sin(phi) * sin(lambda), cos(phi)),
            (cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
        )
    }

    /// The latitude and longitude of venue metres (`x`, `y`), on the origin's tangent plane.
    public func coordinate(x: Double, y: Double) -> Coordinate {
        let (east, north) = eastNorth(x: x, y: y)
        let origin = Self.ecef(lat: lat, lon: lon, height: 0)
        let rows = enuRows
        // The transpose of the rotation takes east-north-up back to earth-centred offsets (up = 0: the plane).
        let px = origin.x + rows.east.0 * east + rows.north.0 * north
        let py = origin.y + rows.east.1 * east + rows.north.1 * north
        let pz = origin.z + rows.east.2 * east + rows.north.2 * north
        return Self.geodetic(x: px, y: py, z: pz)
    }

    /// The venue metres of a latitude and longitude (on the ellipsoid), the inverse of ``coordinate(x:y:)``.
    public func venuePoint(_ coordinate: Coordinate) -> (x: Double, y: Double) {
        let point = Self.ecef(lat: coordinate.lat, lon: coordinate.lon, height: 0)
        let origin = Self.ecef(lat: lat, lon: lon, height: 0)
        let (dx, dy, dz) = (point.x - origin.x, point.y - origin.y, point.z - origin.z)
        let rows = enuRows
        let east = rows.east.0 * dx + rows.east.1 * dy + rows.east.2 * dz
        let north = rows.north.0 * dx + rows.north.1 * dy + rows.north.2 * dz
        return venue(east: east, north: north)
    }

    /// Geodetic latitude and longitude of an earth-centred point, by fixed-point iteration on the latitude
    /// (a few iterations reach the last bit near the surface).
    static func geodetic(x: Double, y: Double, z: Double) -> Coordinate {
        let p = (x * x + y * y).squareRoot()
        var phi = atan2(z, p * (1 - eccentricitySquared))
        for _ in 0..<8 {
            let primeVertical = semiMajorAxis / (1 - eccentricitySquared * sin(phi) * sin(phi)).squareRoot()
            let height = p / cos(phi) - primeVertical
            let next = atan2(z, p * (1 - eccentricitySquared * primeVertical / (primeVertical + height)))
            if abs(next - phi) < 1e-15 {
                phi = next
                break
            }
            phi = next
        }
        return Coordinate(lat: phi * 180 / .pi, lon: atan2(y, x) * 180 / .pi)
    }
}

extension Position {
    /// This position with its latitude and longitude through `anchor`; unchanged (no `lat`/`lon`) without one.
    public func anchored(by anchor: GeoAnchor?) -> Position {
        guard let anchor else { return self }
        var position = self
        let coordinate = anchor.coordinate(x: x, y: y)
        position.lat = coordinate.lat
        position.lon = coordinate.lon
        return position
    }
}
