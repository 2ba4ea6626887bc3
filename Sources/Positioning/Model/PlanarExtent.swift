/// An axis-aligned rectangle of one floor, in the venue's metres: where answers are allowed to fall.
public struct PlanarExtent: Hashable, Sendable, Codable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    /// A rectangle from its corners; the bounds are ordered, so swapped corners give the same rectangle.
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = Swift.min(minX, maxX)
        self.minY = Swift.min(minY, maxY)
        self.maxX = Swift.max(minX, maxX)
        self.maxY = Swift.max(minY, maxY)
    }

    /// The bounding box of the spots of `floor`; nil when the floor has none.
    public init?(spots: some Sequence<Spot>, floor: Int) {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for spot in spots where spot.floor == floor {
            minX = Swift.min(minX, spot.x)
            minY = Swift.min(minY, spot.y)
            maxX = Swift.max(maxX, spot.x)
            maxY = Swift.max(maxY, spot.y)
        }
        guard minX.isFinite else { return nil }
        self.init(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
    }

    /// The rectangle grown by `margin` metres on every side (a negative margin is taken as 0).
    public func enlarged(by margin: Double) -> PlanarExtent {
        let margin = Swift.max(0, margin)
        return PlanarExtent(minX: minX - margin, minY: minY - margin, maxX: maxX + margin, maxY: maxY + margin)
    }

    /// Whether (`x`, `y`) lies inside or on the border.
    public func contains(x: Double, y: Double) -> Bool {
        (minX...maxX).contains(x) && (minY...maxY).contains(y)
    }

    /// The point of the rectangle nearest to (`x`, `y`): the point itself when it is inside.
    public func clamped(x: Double, y: Double) -> (x: Double, y: Double) {
        (Swift.min(maxX, Swift.max(minX, x)), Swift.min(maxY, Swift.max(minY, y)))
    }
}
