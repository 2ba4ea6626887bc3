public import Positioning
public import ScanFormats

/// A simulated visitor's plan: where it stands and for how long, in order.
public struct VisitorItinerary: Hashable, Sendable {
    public struct Stay: Hashable, Sendable {
        public var x: Double
        public var y: Double
        public var floor: Int
        /// Seconds standing there (moving a little) before walking on.
        public var seconds: Int

        public init(x: Double, y: Double, floor: Int, seconds: Int) {
            self.x = x
            self.y = y
            self.floor = floor
            self.seconds = seconds
        }
    }

    public var device: String
    public var start: Double
    public var stays: [Stay]

    public init(device: String, start: Double, stays: [Stay]) {
        self.device = device
        self.start = start
        self.stays = stays
    }
}

/// A visitor's true stay in a zone, from its ground truth: what the history's visits should find.
public struct TrueVisit: Hashable, Sendable {
    public var device: String
    public var zone: String
    public var enteredAt: Double
    public var exitedAt: Double
}

extension SimulatedVenue {
    /// One sample a second of a visitor following `itinerary`: standing at each stay, walking to the next
    /// at `speed` m/s in a straight line (changing floor on arrival, as at a staircase). Lines carry the true
    /// position.
    public func visit(
        _ itinerary: VisitorItinerary, device: SimulatedDevice, speed: Double = 1.0, using generator: inout SeededGenerator
    ) -> [ScanLine] {
        var lines: [ScanLine] = []
        var time = itinerary.start
        var heading = 2 * Double.pi * generator.unit()
        func emit(_ x: Double, _ y: Double, _ floor: Int) {
            heading += generator.gaussian(deviation: 0.3)
            let sample = self.sample(x: x, y: y, floor: floor, heading: heading, device: device, time: time, using: &generator)
            lines.append(ScanLine(
                t: time, device: itinerary.device, spot: nil, x: (x * 100).rounded() / 100, y: (y * 100).rounded() / 100, floor: floor,
                beacons: sample.readings.map(ScanLine.BeaconReading.init)))
            time += 1
        }
        var previous: VisitorItinerary.Stay?
        for stay in itinerary.stays {
            if let previous {
                let dx = stay.x - previous.x, dy = stay.y - previous.y
                let steps = Int(((dx * dx + dy * dy).squareRoot() / speed).rounded(.up))
                for step in 1..<max(1, steps) {
                    let fraction = Double(step) / Double(steps)
                    emit(previous.x + fraction * dx, previous.y + fraction * dy, previous.floor)
                }
            }
            for _ in 0..<stay.seconds {
                // Standing is never perfectly still: a step or two around the spot.
                emit(stay.x + generator.gaussian(deviation: 0.3), stay.y + generator.gaussian(deviation: 0.3), stay.floor)
            }
            previous = stay
        }
        return lines
    }

    /// The true zone visits of `lines` (one device's, in time order): runs of samples whose true position
    /// lies in one zone, from its first sample there to its first sample elsewhere.
    public static func trueVisits(of lines: [ScanLine], zones: ZoneLayout) -> [TrueVisit] {
        var visits: [TrueVisit] = []
        var current: (zone: String, since: Double)?
        for line in lines {
            guard let x = line.x, let y = line.y, let floor = line.floor else { continue }
            let zone = zones.zone(atX: x, y: y, floor: floor)
            if zone == current?.zone { continue }
            if let open = current { visits.append(TrueVisit(device: line.device, zone: open.zone, enteredAt: open.since, exitedAt: line.t)) }
            current = zone.map { ($0, line.t) }
        }
        if let open = current, let last = lines.last {
            visits.append(TrueVisit(device: last.device, zone: open.zone, enteredAt: open.since, exitedAt: last.t + 1))
        }
        return visits
    }
}

extension SimulatedVenues {
    /// Where a visitor of demo-hall stands in each zone: inside the room, away from its walls and doors.
    public static let demoHallZoneCentres: [String: (x: Double, y: Double, floor: Int)] = [
        "Entrance": (4, 18, 0), "Main hall": (20, 12, 0), "Bar": (36, 18, 0),
        "Gallery west": (10, 12, 1), "Meeting rooms": (30, 19, 1), "Gallery east": (30, 5, 1),
    ]

    /// A day of `count` demo-hall visitors arriving over `hours` hours from `start`: each enters at the
    /// Entrance, then visits three to six zones for 2 to 30 minutes each, and leaves through the Entrance.
    public static func demoHallDay(count: Int, start: Double, hours: Double, seed: UInt64) -> [VisitorItinerary] {
        var generator = SeededGenerator(seed: seed)
        let inner = ["Main hall", "Bar", "Gallery west", "Meeting rooms", "Gallery east"]
        func stay(_ zone: String, _ seconds: Int) -> VisitorItinerary.Stay {
            let centre = demoHallZoneCentres[zone]!
            return .init(
                x: centre.x + (generator.unit() - 0.5) * 4, y: centre.y + (generator.unit() - 0.5) * 4, floor: centre.floor, seconds: seconds)
        }
        return (0..<count).map { index in
            let arrival = start + (hours * 3600 - 3 * 3600) * generator.unit()
            var stays = [stay("Entrance", 60 + Int(generator.unit() * 120))]
            var previous = "Entrance"
            for _ in 0..<(3 + Int(generator.unit() * 4)) {
                let next = inner.filter { $0 != previous }[Int(generator.unit() * Double(inner.count - 1))]
                stays.append(stay(next, 120 + Int(generator.unit() * 1680)))
                previous = next
            }
            stays.append(stay("Entrance", 30 + Int(generator.unit() * 60)))
            return VisitorItinerary(device: "visitor-\(index + 1)", start: arrival.rounded(), stays: stays)
        }
    }
}
