import Positioning
import Testing
import TestSupport

@Suite("Spot grid: the nearest spot without reading them all")
struct SpotGridTests {
    /// The definition: the first spot of `floor` at the smallest squared distance, over every spot.
    static func scanned(_ spots: [Spot], x: Double, y: Double, floor: Int) -> Int? {
        spots.nearestIndex(toX: x, y: y, floor: floor)
    }

    /// Points inside, at the edges of and far outside `spots`' floors.
    static func points(around spots: [Spot], count: Int, using generator: inout SeededGenerator) -> [(x: Double, y: Double, floor: Int)] {
        let floors = Array(Set(spots.map(\.floor))).sorted()
        let minX = spots.map(\.x).min()!, maxX = spots.map(\.x).max()!
        let minY = spots.map(\.y).min()!, maxY = spots.map(\.y).max()!
        let marginX = max(1, maxX - minX), marginY = max(1, maxY - minY)
        return (0..<count).map { _ in
            (Double.random(in: (minX - marginX)...(maxX + marginX), using: &generator),
             Double.random(in: (minY - marginY)...(maxY + marginY), using: &generator),
             // Now and then a floor without spots.
             Int.random(in: 0..<8, using: &generator) == 0 ? 99 : floors.randomElement(using: &generator)!)
        }
    }

    @Test("answers as the scan over every spot: random, clustered and lattice venues, ties included")
    func sameAsScan() {
        // Given venues of several shapes
        var generator = SeededGenerator(seed: 11)
        var venues: [[Spot]] = []
        venues.append((0..<5_000).map { index in
            Spot(name: "r\(index)", x: .random(in: 0..<120, using: &generator), y: .random(in: -30..<30, using: &generator),
                 floor: index % 3)
        })
        // Two tight clusters far apart: most cells empty.
        venues.append((0..<2_000).map { index in
            let base = index % 2 == 0 ? 0.0 : 10_000.0
            return Spot(name: "c\(index)", x: base + .random(in: 0..<2, using: &generator), y: base + .random(in: 0..<2, using: &generator), floor: 0)
        })
        // A lattice with duplicated places: equal distances everywhere, the first spot must win.
        venues.append((0..<1_800).map { index in
            Spot(name: "l\(index)", x: Double(index % 30), y: Double((index / 30) % 30), floor: index / 900)
        })
        // A line, one spot, and all spots in one place.
        venues.append((0..<300).map { Spot(name: "line\($0)", x: Double($0) * 0.5, y: 7, floor: 0) })
        venues.append([Spot(name: "only", x: 3, y: 4, floor: 2)])
        venues.append((0..<10).map { Spot(name: "same\($0)", x: 1, y: 1, floor: 0) })
        for spots in venues {
            let grid = SpotGrid(spots: spots)
            // When points all around are looked up, lattice points and half-way points among them
            var points = Self.points(around: spots, count: 3_000, using: &generator)
            for _ in 0..<500 {
                let spot = spots.randomElement(using: &generator)!
                points.append((spot.x + Double(Int.random(in: -2...2, using: &generator)) * 0.5, spot.y + 0.5, spot.floor))
            }
            // Then the grid names the spot the scan names, on every one
            var mismatches = 0
            for point in points where grid.nearest(toX: point.x, y: point.y, floor: point.floor)
                != Self.scanned(spots, x: point.x, y: point.y, floor: point.floor) {
                mismatches += 1
            }
            #expect(mismatches == 0, "venue of \(spots.count) spots, first \(spots[0].name)")
            // And each floor's extent is the bounding box of its spots
            for floor in Set(spots.map(\.floor)).union([99]) {
                #expect(grid.extent(ofFloor: floor) == PlanarExtent(spots: spots, floor: floor))
            }
        }
    }

    @Test("a point or spot that is not finite gets the scan's answer, not a crash")
    func notFinite() {
        // Given a floor with an unplaced spot among placed ones
        let spots = [
            Spot(name: "lost", x: .nan, y: 0, floor: 0), Spot(name: "a", x: 0, y: 0, floor: 0),
            Spot(name: "far", x: .infinity, y: 1, floor: 0), Spot(name: "b", x: 5, y: 0, floor: 0),
            Spot(name: "alone", x: .nan, y: .nan, floor: 1),
        ]
        let grid = SpotGrid(spots: spots)
        // When finite and infinite points are looked up, Then the answers are the scan's
        for (x, y, floor) in [(1.0, 0.0, 0), (4.0, 0.0, 0), (Double.infinity, 0.0, 0), (Double.nan, 0.0, 0), (0.0, 0.0, 1)] {
            #expect(grid.nearest(toX: x, y: y, floor: floor) == Self.scanned(spots, x: x, y: y, floor: floor), "\(x), \(y), \(floor)")
        }
    }

    @Test("a locate names the spot nearest its position, on a map of many spots")
    func locateNamesNearestSpot() throws {
        // Given a map of 1,600 spots on two floors
        let spots = (0..<1_600).map { Spot(name: "s\($0)", x: Double($0 % 40) * 1.5, y: Double(($0 / 40) % 20) * 1.5, floor: $0 / 800) }
        var generator = SeededGenerator(seed: 5)
        let references = spots.indices.map { spot in
            (spot: spot, fingerprint: Fixtures.fingerprint(rssi: Dictionary(uniqueKeysWithValues: (0..<6).map { offset in
                (UInt16((spot + offset * 7) % 90), -60 - Double.random(in: 0..<30, using: &generator))
            })))
        }
        let map = try RadioMap(spots: spots, fingerprints: references, representation: .decibels(floor: -100))
        let locator = Locator(metric: DecibelOffsetMetric(), estimator: WeightedNearestSpots())
        // When scans of the survey are located
        for (spot, fingerprint) in references.prefix(200) where spot % 7 == 0 {
            guard let position = locator.locate(fingerprint, in: map).position else {
                Issue.record("spot \(spot) not located")
                continue
            }
            // Then the answer's spot is the nearest to its position of its floor, by the scan over every spot
            let nearest = try #require(Self.scanned(spots, x: position.x, y: position.y, floor: position.floor))
            #expect(position.spot == spots[nearest].name)
        }
    }
}
