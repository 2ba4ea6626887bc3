public import Positioning
/// A venue's definition: the `venue.json` interchange format.
///
/// ```json
/// {"id": "uji-geo-p12", "name": "UJI Geotec lab",
///  "floors": [{"level": 0, "name": "Ground"}],
///  "beacons": [{"uuid": "E2C5…", "major": 1, "minor": 1, "x": 15.9, "y": 10.1, "floor": 0, "label": "B1"}],
///  "spots": [{"name": "p_16.09_02.79", "x": 16.091, "y": 2.795, "floor": 0, "zone": "optional"}]}
/// ```
/// Coordinates are metres in the venue's own frame; beacon positions are optional. An optional `geo`
/// object, `{"lat": 52.52, "lon": 13.40, "bearing": 90}`, places that frame on the Earth (``GeoAnchor``).
/// Whether a beacon takes part in positioning.
public enum BeaconStatus: String, Codable, Hashable, Sendable, CaseIterable {
    case active
    /// Failed, replaced or removed: kept for history and audit, left out of matching.
    case retired

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let status = BeaconStatus(rawValue: name) else {
            // A name this build does not know is an error that says so, never a guess.
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "a beacon's status is 'active' or 'retired', not '\(name)'")
        }
        self = status
    }
}

public struct VenueDefinition: Codable, Hashable, Sendable {
    public struct Floor: Codable, Hashable, Sendable {
        public var level: Int
        public var name: String
        /// The floor's plan image and where it lies (``FloorPlanPlacement``); optional.
        public var plan: FloorPlanPlacement?

        public init(level: Int, name: String, plan: FloorPlanPlacement? = nil) {
            self.level = level
            self.name = name
            self.plan = plan
        }
    }

    public struct Beacon: Codable, Hashable, Sendable {
        public var uuid: String
        public var major: Int
        public var minor: Int
        public var x: Double?
        public var y: Double?
        public var floor: Int?
        public var label: String?
        /// Calibrated power at 1 m in dBm, when the venue knows it.
        public var measuredPower: Int?
        /// `retired` for a beacon kept only for history (exports write it); absent means active.
        public var status: BeaconStatus?

        public init(
            uuid: String, major: Int, minor: Int, x: Double? = nil, y: Double? = nil, floor: Int? = nil,
            label: String? = nil, measuredPower: Int? = nil, status: BeaconStatus? = nil
        ) {
            self.uuid = uuid
            self.major = major
            self.minor = minor
            self.x = x
            self.y = y
            self.floor = floor
            self.label = label
            self.measuredPower = measuredPower
            self.status = status
        }

        /// The validated identity of this beacon.
        public func identity() throws(BeaconIDError) -> BeaconID {
            try BeaconID(uuidString: uuid, major: major, minor: minor)
        }

        enum CodingKeys: String, CodingKey {
            case uuid, major, minor, x, y, floor, label, status
            case measuredPower = "measured_power"
        }
    }

    public var id: String
    public var name: String
    public var floors: [Floor]
    public var beacons: [Beacon]
    public var spots: [Spot]
    /// Where the venue's origin lies on the Earth and where its +x axis points; optional.
    public var geo: GeoAnchor?
    /// Zones drawn as polygons, each on one floor (``ZoneArea``); optional. A spot without a zone of its
    /// own takes the zone of the polygon it stands in; spots that name a zone keep working without one.
    public var zones: [ZoneArea]?

    public init(
        id: String, name: String, floors: [Floor], beacons: [Beacon], spots: [Spot], geo: GeoAnchor? = nil,
        zones: [ZoneArea]? = nil
    ) {
        self.id = id
        self.name = name
        self.floors = floors
        self.beacons = beacons
        self.spots = spots
        self.geo = geo
        self.zones = zones
    }

    /// Checks what JSON decoding cannot: identities, duplicates, references to floors.
    ///
    /// - Returns: the venue's problems as sentences; empty when it is valid.
    public func problems() -> [String] {
        var problems: [String] = []
        if id.isEmpty { problems.append("the venue id is empty") }
        if let geo { problems += geo.problems() }
        let levels = Set(floors.map(\.level))
        if levels.count != floors.count { problems.append("two floors share a level") }
        for floor in floors { problems += floor.plan?.problems(level: floor.level) ?? [] }
        var seenBeacons = Set<BeaconID>()
        for (index, beacon) in beacons.enumerated() {
            do {
                let identity = try beacon.identity()
                if !seenBeacons.insert(identity).inserted {
                    problems.append("beacon \(identity) is listed twice")
                }
            } catch {
                problems.append("beacon #\(index + 1): \(error.description)")
            }
            if let floor = beacon.floor, !levels.contains(floor) {
                problems.append("beacon #\(index + 1) is on floor \(floor), which the venue does not define")
            }
        }
        var seenSpots = Set<String>()
        for spot in spots {
            if !seenSpots.insert(spot.name).inserted { problems.append("spot '\(spot.name)' is listed twice") }
            if !levels.contains(spot.floor) {
                problems.append("spot '\(spot.name)' is on floor \(spot.floor), which the venue does not define")
            }
            if !spot.x.isFinite || !spot.y.isFinite { problems.append("spot '\(spot.name)' has a non-finite coordinate") }
        }
        var drawn = Set<ZoneKey>()
        for area in zones ?? [] {
            problems += area.problems(levels: levels)
            if !drawn.insert(ZoneKey(name: area.name, floor: area.floor)).inserted {
                problems.append("zone '\(area.name)' has two polygons on floor \(area.floor); a zone has at most one per floor")
            }
        }
        return problems
    }

    private struct ZoneKey: Hashable {
        var name: String
        var floor: Int
    }
}
