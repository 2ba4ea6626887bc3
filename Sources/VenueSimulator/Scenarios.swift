public import Positioning
public import ScanFormats
/// Where a simulated phone stands for a while.
public struct SimulatedStop: Hashable, Sendable {
    public var name: String
    public var x: Double
    public var y: Double
    public var floor: Int

    public init(name: String, x: Double, y: Double, floor: Int) {
        self.name = name
        self.x = x
        self.y = y
        self.floor = floor
    }
}

/// Survey and walk generation over a ``SimulatedVenue``.
extension SimulatedVenue {
    /// Scan-log lines of `device` standing `samples` seconds at each stop in turn, starting at `startTime`,
    /// turning to a random heading at each stop and a little between samples. Lines carry ground truth.
    public func record(
        stops: [SimulatedStop], device: SimulatedDevice, samples: Int, startTime: Double,
        using generator: inout SeededGenerator
    ) -> [ScanLine] {
        var lines: [ScanLine] = []
        var time = startTime
        for stop in stops {
            var heading = 2 * Double.pi * generator.unit()
            for _ in 0..<samples {
                heading += generator.gaussian(deviation: 0.3)
                let sample = self.sample(x: stop.x, y: stop.y, floor: stop.floor, heading: heading, device: device, time: time, using: &generator)
                lines.append(ScanLine(
                    t: time, device: device.name, spot: stop.name, x: stop.x, y: stop.y, floor: stop.floor,
                    beacons: sample.readings.map(ScanLine.BeaconReading.init)))
                time += 1
            }
            time += 4 // walking to the next stop
        }
        return lines
    }
}

extension SimulatedVenue {
    /// The survey phone standing `samplesPerSpot` seconds at every spot, one reference fingerprint per
    /// sample: how benchmarks and tests build large radio maps without a scan log.
    public func standingFingerprints(
        samplesPerSpot: Int, builder: FingerprintBuilder, using generator: inout SeededGenerator
    ) -> [(spot: Int, fingerprint: Fingerprint)] {
        var references: [(spot: Int, fingerprint: Fingerprint)] = []
        references.reserveCapacity(definition.spots.count * samplesPerSpot)
        for (index, spot) in definition.spots.enumerated() {
            for second in 0..<samplesPerSpot {
                let sample = self.sample(
                    x: spot.x, y: spot.y, floor: spot.floor, heading: Double(second), device: SimulatedVenues.surveyDevices[0],
                    time: Double(second), using: &generator)
                if let fingerprint = try? builder.fingerprint(of: [sample]) { references.append((index, fingerprint)) }
            }
        }
        return references
    }

    /// `count` scans of the walk phone (another model than the survey's) 0.7 m and 0.4 m off spots spread
    /// over every floor.
    public func scansBetweenSpots(count: Int, using generator: inout SeededGenerator) -> [Sample] {
        (0..<count).map { index in
            let spot = definition.spots[(index * 7919) % definition.spots.count]
            return sample(
                x: spot.x + 0.7, y: spot.y + 0.4, floor: spot.floor, heading: Double(index), device: SimulatedVenues.walkDevice,
                time: Double(index), using: &generator)
        }
    }
}

/// The venues beaconfix ships and benchmarks with.
public enum SimulatedVenues {
    /// The UUID of every simulated beacon.
    public static let uuid = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"

    /// `demo-hall`: a two-floor conference hall, 40 × 24 m per floor, 20 beacons, 60 spots in 6 zones,
    /// with interior walls, an SVG plan per floor drawn from those walls (``SimulatedVenue/floorPlanSVG(level:)``)
    /// and a geographic anchor. `make run` serves it; README in venues/demo-hall tells how it was generated.
    public static func demoHall(seed: UInt64) throws(BeaconIDError) -> SimulatedVenue {
        let beaconPlaces: [(Double, Double, Int)] = [
            (3, 3, 0), (3, 21, 0), (12, 6, 0), (12, 18, 0), (20, 12, 0), (27, 5, 0), (27, 19, 0), (35, 3, 0), (35, 21, 0), (39, 12, 0),
            (4, 12, 1), (10, 3, 1), (10, 21, 1), (17, 12, 1), (24, 4, 1), (24, 20, 1), (30, 12, 1), (36, 3, 1), (36, 21, 1), (39, 16, 1),
        ]
        let beacons = beaconPlaces.enumerated().map { index, place in
            VenueDefinition.Beacon(
                uuid: uuid, major: place.2 + 1, minor: index + 1, x: place.0, y: place.1, floor: place.2,
                label: "\(place.2 == 0 ? "G" : "U")\(index + 1)", measuredPower: -59)
        }
        var spots: [Spot] = []
        let columns = ["A", "B", "C", "D", "E", "F"]
        for floor in 0...1 {
            for (column, letter) in columns.enumerated() {
                for row in 0..<5 {
                    let x = 3 + 6.8 * Double(column), y = 2.5 + 4.75 * Double(row)
                    // No zone of their own: each spot takes the zone of the polygon it stands in.
                    spots.append(Spot(name: "\(floor == 0 ? "G" : "U")-\(letter)\(row + 1)", x: x, y: y, floor: floor))
                }
            }
        }
        let definition = VenueDefinition(
            id: "demo-hall", name: "Demo conference hall (simulated)",
            floors: [
                VenueDefinition.Floor(level: 0, name: "Ground", plan: plan("plans/ground.svg")),
                VenueDefinition.Floor(level: 1, name: "Gallery", plan: plan("plans/gallery.svg")),
            ],
            beacons: beacons, spots: spots, geo: demoHallAnchor, zones: demoHallZones)
        let walls = [
            // Ground: the entrance and the bar are walled off from the main hall, with doors.
            Wall(floor: 0, from: (10, 0), to: (10, 10), loss: 6), Wall(floor: 0, from: (10, 14), to: (10, 24), loss: 6),
            Wall(floor: 0, from: (31, 0), to: (31, 8), loss: 8), Wall(floor: 0, from: (31, 12), to: (31, 24), loss: 8),
            // Gallery: meeting rooms behind a glass partition and a concrete wall.
            Wall(floor: 1, from: (20, 0), to: (20, 9), loss: 4), Wall(floor: 1, from: (20, 15), to: (20, 24), loss: 4),
            Wall(floor: 1, from: (20, 12), to: (40, 12), loss: 10),
        ]
        return try SimulatedVenue(
            definition: definition, walls: walls, outline: PlanarExtent(minX: 0, minY: 0, maxX: 40, maxY: 24), model: PropagationModel(),
            seed: seed)
    }

    /// demo-hall's plans cover the 40 × 24 m hall with a metre to spare on every side.
    static func plan(_ image: String) -> FloorPlanPlacement {
        FloorPlanPlacement(image: image, topLeft: .init(x: -1, y: 25), bottomRight: .init(x: 41, y: -1))
    }

    /// Where demo-hall would stand: the origin at a corner of the CCIB conference centre in Barcelona, the
    /// hall's long side (+x) along the city grid, 135° from north (illustrative: the venue is simulated).
    public static let demoHallAnchor = GeoAnchor(lat: 41.4093, lon: 2.2191, bearing: 135)

    /// demo-hall's six zones, the rooms its walls divide: on the ground floor the entrance and the bar are
    /// walled off from the main hall; upstairs the meeting rooms lie behind the wall at y = 12. The meeting
    /// rooms come first so that the spots on that wall (y = 12) are theirs.
    static let demoHallZones: [ZoneArea] = [
        area("Entrance", floor: 0, x: 0...10, y: 0...24), area("Main hall", floor: 0, x: 10...31, y: 0...24),
        area("Bar", floor: 0, x: 31...40, y: 0...24),
        area("Gallery west", floor: 1, x: 0...20, y: 0...24), area("Meeting rooms", floor: 1, x: 20...40, y: 12...24),
        area("Gallery east", floor: 1, x: 20...40, y: 0...12),
    ]

    private static func area(_ name: String, floor: Int, x: ClosedRange<Double>, y: ClosedRange<Double>) -> ZoneArea {
        ZoneArea(name: name, floor: floor, polygon: [
            .init(x: x.lowerBound, y: y.lowerBound), .init(x: x.upperBound, y: y.lowerBound),
            .init(x: x.upperBound, y: y.upperBound), .init(x: x.lowerBound, y: y.upperBound),
        ])
    }

    /// The surveyors' phones and the phone of the test walk (a model the survey never saw).
    public static let surveyDevices = [
        SimulatedDevice(name: "iphone-13", gainOffset: 0), SimulatedDevice(name: "galaxy-s21", gainOffset: -6),
    ]
    public static let walkDevice = SimulatedDevice(name: "pixel-7", gainOffset: 4)

    /// The stops of demo-hall's test walk: from the entrance through the hall to the bar, then up to the
    /// gallery and into the meeting rooms, a stop every 3 m or so, between the surveyed spots.
    public static func demoHallWalk() -> [SimulatedStop] {
        let legs: [(from: (Double, Double), to: (Double, Double), floor: Int)] = [
            ((2, 12), (30, 11), 0), ((30, 11), (38, 18), 0), ((6, 6), (18, 18), 1), ((18, 18), (36, 18), 1),
        ]
        var stops: [SimulatedStop] = []
        for leg in legs {
            let dx = leg.to.0 - leg.from.0, dy = leg.to.1 - leg.from.1
            let steps = max(1, Int(((dx * dx + dy * dy).squareRoot() / 3).rounded()))
            for step in 0..<steps {
                let fraction = Double(step) / Double(steps)
                let x = ((leg.from.0 + fraction * dx) * 100).rounded() / 100
                let y = ((leg.from.1 + fraction * dy) * 100).rounded() / 100
                stops.append(SimulatedStop(name: "walk-\(stops.count + 1)", x: x, y: y, floor: leg.floor))
            }
        }
        return stops
    }

    /// A synthetic venue for benchmarks: `beacons` beacons and `spots` spots spread evenly over `floors`
    /// identical square floors (3.5 m apart), each sized so every spot hears about a dozen of its floor's
    /// beacons. Spots are numbered floor by floor, row by row.
    public static func grid(beacons: Int, spots: Int, floors: Int = 1, seed: UInt64) throws(BeaconIDError) -> SimulatedVenue {
        let floors = max(1, floors)
        let beaconsPerFloor = max(1, beacons / floors), spotsPerFloor = max(1, spots / floors)
        let side = 6 * Double(beaconsPerFloor).squareRoot()
        let perRow = Int(Double(beaconsPerFloor).squareRoot().rounded(.up))
        let beaconDefinitions = (0..<(beaconsPerFloor * floors)).map { index in
            let floor = index / beaconsPerFloor, place = index % beaconsPerFloor
            return VenueDefinition.Beacon(
                uuid: uuid, major: floor + 1, minor: place + 1,
                x: (Double(place % perRow) + 0.5) * side / Double(perRow),
                y: (Double(place / perRow) + 0.5) * side / Double(perRow), floor: floor)
        }
        let spotsPerRow = Int(Double(spotsPerFloor).squareRoot().rounded(.up))
        let spotDefinitions = (0..<(spotsPerFloor * floors)).map { index in
            let floor = index / spotsPerFloor, place = index % spotsPerFloor
            return Spot(
                name: "s\(index)", x: (Double(place % spotsPerRow) + 0.5) * side / Double(spotsPerRow),
                y: (Double(place / spotsPerRow) + 0.5) * side / Double(spotsPerRow), floor: floor)
        }
        let definition = VenueDefinition(
            id: floors == 1 ? "grid-\(beacons)x\(spots)" : "grid-\(beacons)x\(spots)x\(floors)", name: "Synthetic grid",
            floors: (0..<floors).map { VenueDefinition.Floor(level: $0, name: floors == 1 ? "Floor" : "Floor \($0)") },
            beacons: beaconDefinitions, spots: spotDefinitions)
        return try SimulatedVenue(definition: definition, walls: [], model: PropagationModel(), seed: seed)
    }
}
