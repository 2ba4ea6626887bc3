/// A surveyed place of a venue: where fingerprints were recorded.
public struct Spot: Hashable, Sendable, Codable {
    public var name: String
    /// Metres in the venue's own frame.
    public var x: Double
    public var y: Double
    public var floor: Int
    /// An optional named area (a room, a stand, a table) that zone events are about.
    public var zone: String?

    public init(name: String, x: Double, y: Double, floor: Int, zone: String? = nil) {
        self.name = name
        self.x = x
        self.y = y
        self.floor = floor
        self.zone = zone
    }

    /// Planar distance in metres, ignoring floors.
    public func planarDistance(toX otherX: Double, y otherY: Double) -> Double {
        ((x - otherX) * (x - otherX) + (y - otherY) * (y - otherY)).squareRoot()
    }
}

/// An estimated position. In JSON the accuracy radius is `accuracy_m`.
public struct Position: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public var floor: Int
    /// Radius in metres within which the true position probably lies.
    public var accuracy: Double
    /// The surveyed spot nearest to the estimate, by name.
    public var spot: String
    /// The zone of that spot, when it has one.
    public var zone: String?
    /// WGS84 latitude and longitude in degrees, when the venue has a ``GeoAnchor`` (``anchored(by:)``
    /// sets them; the estimators work in venue metres only and leave them nil).
    public var lat: Double?
    public var lon: Double?
    /// The position's covariance in square metres of the venue's frame (`covariance_m2` in JSON): the
    /// posterior's shape, scaled so that its 68% circle is ``accuracy``. Long along the line between two
    /// places the scan fits equally well. Nil from estimators that give none.
    public var covariance: PositionCovariance?

    public init(
        x: Double, y: Double, floor: Int, accuracy: Double, spot: String, zone: String?, lat: Double? = nil,
        lon: Double? = nil, covariance: PositionCovariance? = nil
    ) {
        self.x = x
        self.y = y
        self.floor = floor
        self.accuracy = accuracy
        self.spot = spot
        self.zone = zone
        self.lat = lat
        self.lon = lon
        self.covariance = covariance
    }

    enum CodingKeys: String, CodingKey {
        case x, y, floor, spot, zone, lat, lon
        case accuracy = "accuracy_m"
        case covariance = "covariance_m2"
    }
}

extension Collection<Spot> {
    /// The spot of `floor` nearest to (`x`, `y`), nil when the floor has none.
    public func nearest(toX x: Double, y: Double, floor: Int) -> Spot? {
        nearestIndex(toX: x, y: y, floor: floor).map { self[$0] }
    }

    /// Where in the collection the spot of `floor` nearest to (`x`, `y`) is: the first at the smallest
    /// finite squared distance, read over every spot (``SpotGrid`` answers the same without). Nil when the
    /// floor has none.
    public func nearestIndex(toX x: Double, y: Double, floor: Int) -> Index? {
        var best: Index?
        var bestDistance = Double.infinity
        for index in indices where self[index].floor == floor {
            let spot = self[index]
            let distance = (spot.x - x) * (spot.x - x) + (spot.y - y) * (spot.y - y)
            if distance < bestDistance {
                best = index
                bestDistance = distance
            }
        }
        return best
    }
}
