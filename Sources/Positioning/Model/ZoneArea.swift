/// A zone drawn as a polygon on one floor: a room, a stand, a bar, in venue metres.
///
/// In JSON a polygon is a list of `[x, y]` pairs, in order around it (either way round), not closed
/// (the last vertex joins the first): `{"name": "Bar", "floor": 0, "polygon": [[31, 0], [40, 0], [40, 24], [31, 24]]}`.
public struct ZoneArea: Hashable, Sendable, Codable {
    /// A corner of the polygon, in venue metres.
    public struct Vertex: Hashable, Sendable, Codable {
        public var x: Double
        public var y: Double

        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }

        public init(from decoder: any Decoder) throws {
            var pair = try decoder.unkeyedContainer()
            x = try pair.decode(Double.self)
            y = try pair.decode(Double.self)
            guard pair.isAtEnd else {
                throw DecodingError.dataCorruptedError(in: pair, debugDescription: "a polygon vertex is [x, y]: two numbers")
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var pair = encoder.unkeyedContainer()
            try pair.encode(x)
            try pair.encode(y)
        }
    }

    /// The zone's name, as spots and zone events name it.
    public var name: String
    public var floor: Int
    public var polygon: [Vertex]

    public init(name: String, floor: Int, polygon: [Vertex]) {
        self.name = name
        self.floor = floor
        self.polygon = polygon
    }

    /// Whether (`x`, `y`) lies inside the polygon or on its edge (even-odd rule, so a polygon drawn
    /// either way round works).
    public func contains(x: Double, y: Double) -> Bool {
        var inside = false
        var previous = polygon[polygon.count - 1]
        for vertex in polygon {
            if (vertex.y > y) != (previous.y > y) {
                let crossing = previous.x + (y - previous.y) * (vertex.x - previous.x) / (vertex.y - previous.y)
                if x < crossing { inside.toggle() }
            }
            previous = vertex
        }
        return inside || boundaryDistance(x: x, y: y) == 0
    }

    /// Distance in metres from (`x`, `y`) to the polygon's edge: how far inside it is, or how far outside.
    public func boundaryDistance(x: Double, y: Double) -> Double {
        var nearest = Double.infinity
        var previous = polygon[polygon.count - 1]
        for vertex in polygon {
            nearest = min(nearest, Self.segmentDistance(x: x, y: y, from: previous, to: vertex))
            previous = vertex
        }
        return nearest
    }

    /// The area's problems as sentences naming it; empty when it is valid. `levels` are the venue's floors.
    public func problems(levels: Set<Int>) -> [String] {
        let label = "zone '\(name)' on floor \(floor)"
        var problems: [String] = []
        if name.isEmpty { problems.append("a zone polygon on floor \(floor) has an empty name") }
        if !levels.contains(floor) { problems.append("\(label): the venue does not define floor \(floor)") }
        guard polygon.count >= 3 else {
            return problems + ["\(label): a polygon needs at least 3 vertices, it has \(polygon.count)"]
        }
        guard polygon.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
            return problems + ["\(label) has a vertex that is not a finite number"]
        }
        if abs(signedArea) < 1e-6 { problems.append("\(label): the polygon encloses no area") }
        if let crossing = firstSelfCrossing {
            problems.append("\(label): the polygon's edges \(crossing.0 + 1) and \(crossing.1 + 1) cross; list its vertices in order around it")
        }
        return problems
    }

    /// Shoelace formula: positive when the vertices run anticlockwise.
    var signedArea: Double {
        var sum = 0.0
        var previous = polygon[polygon.count - 1]
        for vertex in polygon {
            sum += previous.x * vertex.y - vertex.x * previous.y
            previous = vertex
        }
        return sum / 2
    }

    /// The first two non-adjacent edges that cross (edge i joins vertex i to vertex i + 1), or nil for a
    /// simple polygon. Quadratic, which is nothing for hand-drawn rooms.
    var firstSelfCrossing: (Int, Int)? {
        let count = polygon.count
        func edge(_ index: Int) -> (Vertex, Vertex) { (polygon[index], polygon[(index + 1) % count]) }
        for first in 0..<count {
            for second in stride(from: first + 2, to: count, by: 1) where !(first == 0 && second == count - 1) {
                let (a, b) = edge(first), (c, d) = edge(second)
                if Self.segmentsCross(a, b, c, d) { return (first, second) }
            }
        }
        return nil
    }

    private static func segmentsCross(_ a: Vertex, _ b: Vertex, _ c: Vertex, _ d: Vertex) -> Bool {
        func side(_ o: Vertex, _ p: Vertex, _ q: Vertex) -> Double { (p.x - o.x) * (q.y - o.y) - (p.y - o.y) * (q.x - o.x) }
        let d1 = side(c, d, a), d2 = side(c, d, b), d3 = side(a, b, c), d4 = side(a, b, d)
        return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))
    }

    private static func segmentDistance(x: Double, y: Double, from a: Vertex, to b: Vertex) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        let t = lengthSquared > 0 ? min(1, max(0, ((x - a.x) * dx + (y - a.y) * dy) / lengthSquared)) : 0
        let px = a.x + t * dx - x, py = a.y + t * dy - y
        return (px * px + py * py).squareRoot()
    }
}

/// Where a venue's zones are: polygons where the venue draws them, otherwise the areas nearest to the
/// spots that name a zone (the first design's zones, which keep working).
///
/// A point's zone is the polygon of its floor it lies in; outside every polygon it is the zone of the
/// nearest spot of its floor, unless that spot's zone is drawn as a polygon on the floor (the point is then
/// outside that zone: in no zone). A spot without a zone of its own takes the zone of the polygon it
/// stands in.
public struct ZoneLayout: Hashable, Sendable {
    /// The drawn zones.
    public let areas: [ZoneArea]
    /// The venue's spots, each with its zone resolved: its own, else the polygon's it stands in.
    public let spots: [Spot]
    /// ``spots`` by floor and place: the nearest spot to a point without reading them all.
    public let spotGrid: SpotGrid
    /// The drawn zones of each floor, and their names.
    private let areasByFloor: [Int: [ZoneArea]]
    private let drawnNamesByFloor: [Int: Set<String>]
    /// The floors that have a spot or a drawn zone: where a position can have a zone at all.
    private let zonedFloors: Set<Int>

    /// - Parameters:
    ///   - spots: the venue's spots as defined; a spot's own zone wins over the polygon it stands in.
    ///   - areas: the drawn zones; the first that contains a point wins where polygons overlap.
    public init(spots: [Spot], areas: [ZoneArea] = []) {
        let byFloor = Dictionary(grouping: areas, by: \.floor)
        self.areas = areas
        self.areasByFloor = byFloor
        self.drawnNamesByFloor = byFloor.mapValues { Set($0.map(\.name)) }
        self.zonedFloors = Set(spots.map(\.floor)).union(byFloor.keys)
        self.spots = spots.map { spot in
            guard spot.zone == nil, let area = byFloor[spot.floor]?.first(where: { $0.contains(x: spot.x, y: spot.y) })
            else { return spot }
            var resolved = spot
            resolved.zone = area.name
            return resolved
        }
        self.spotGrid = SpotGrid(spots: self.spots)
    }

    /// The zone (`x`, `y`) on `floor` lies in, without hysteresis: what one located scan says.
    public func zone(atX x: Double, y: Double, floor: Int) -> String? {
        zone(atX: x, y: y, floor: floor, nearest: spotGrid.nearest(toX: x, y: y, floor: floor).map { spots[$0] })
    }

    /// ``zone(atX:y:floor:)`` for a caller that already found the nearest of ``spots`` on the floor (the
    /// tracker does, to name the position's spot), so the spots are not searched twice per sample.
    func zone(atX x: Double, y: Double, floor: Int, nearest: Spot?) -> String? {
        let areas = areasByFloor[floor] ?? []
        if let area = areas.first(where: { $0.contains(x: x, y: y) }) { return area.name }
        guard let zone = nearest?.zone else { return nil }
        return areas.contains { $0.name == zone } ? nil : zone
    }

    /// Whether `floor` has a spot or a drawn zone.
    func hasZones(onFloor floor: Int) -> Bool { zonedFloors.contains(floor) }

    /// How clearly (`x`, `y`) on `floor` lies in `challenger` rather than in `current`, in metres: what
    /// ``ZoneHysteresis`` compares with its margin.
    ///
    /// Entering a drawn zone counts the depth inside its polygon; leaving a drawn zone for anything else
    /// counts the distance outside it; between zones of spots it is, as in the first design, how much
    /// nearer the challenger's nearest spot is than the current zone's.
    func lead(of challenger: String?, over current: String?, atX x: Double, y: Double, floor: Int) -> Double {
        let areas = areasByFloor[floor] ?? []
        if let challenger, let area = areas.first(where: { $0.name == challenger && $0.contains(x: x, y: y) }) {
            return area.boundaryDistance(x: x, y: y)
        }
        let currentAreas = areas.filter { $0.name == current }
        if current != nil, !currentAreas.isEmpty {
            return currentAreas.contains { $0.contains(x: x, y: y) }
                ? 0 : currentAreas.map { $0.boundaryDistance(x: x, y: y) }.min()!
        }
        let drawn = drawnNamesByFloor[floor] ?? []
        // Spots of a drawn zone stand for "no zone" outside its polygon, as in `zone(atX:y:floor:)`.
        func spotDistance(_ zone: String?) -> Double {
            var nearest = Double.infinity
            for spot in spots where spot.floor == floor {
                let label = spot.zone.flatMap { drawn.contains($0) ? nil : $0 }
                if label == zone { nearest = min(nearest, spot.planarDistance(toX: x, y: y)) }
            }
            return nearest
        }
        let challengerDistance = spotDistance(challenger)
        return challengerDistance.isFinite ? spotDistance(current) - challengerDistance : 0
    }
}
