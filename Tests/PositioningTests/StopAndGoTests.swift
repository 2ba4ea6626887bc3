import Foundation
import Positioning
import Testing
import TestSupport

/// The tracker when phones stop, fall silent and come back: no extrapolation over gaps, no drift, no
/// answer outside the venue.
@Suite("Tracking: stop-and-go, silence and the venue's extent")
struct StopAndGoTests {
    /// A 20 m room along x with a spot every 2 m ("x0" ... "x20"; zone "hall" west of 10 m, "bar" east of
    /// it) and three beacons at 0, 10 and 20 m; each spot's fingerprint is its own ``sample(x:time:)``.
    static func room() throws -> RadioMap {
        let xs = stride(from: 0.0, through: 20, by: 2).map { $0 }
        let spots = xs.map { Spot(name: "x\(Int($0))", x: $0, y: 0, floor: 0, zone: $0 < 10 ? "hall" : "bar") }
        let builder = FingerprintBuilder(scale: DecibelScale(dynamicRange: 40, exponent: 1))
        return try RadioMap(spots: spots, fingerprints: xs.enumerated().map { index, x in
            (index, try builder.fingerprint(of: [sample(x: x, time: 0)]))
        })
    }

    /// What a phone at `x` hears: 2 dB less per metre from each beacon.
    static func sample(x: Double, time: Double) -> Sample {
        Fixtures.sample([1: -50 - 2 * abs(x), 2: -50 - 2 * abs(x - 10), 3: -50 - 2 * abs(x - 20)], time: time)
    }

    let builder = FingerprintBuilder(scale: DecibelScale(dynamicRange: 40, exponent: 1))
    /// One neighbour: the raw answer is exactly the best spot, so only the tracker moves the dot.
    let locator = Locator(metric: ManhattanMetric(penalty: 0.5), estimator: WeightedNearestSpots(neighbourCount: 1))

    /// The tracker as it was before silence, velocity decay and the extent existed.
    /// Both merge no samples (window 0), so every answer is one scan's.
    static let unbounded = TrackerConfiguration(
        window: 0, smoother: AlphaBetaSmoother(velocityHalfLife: .infinity), silenceReset: .infinity, extentMargin: .infinity)
    static let today = TrackerConfiguration(window: 0)

    /// Walks east across the room at 2 m/s, heard every second, then stands at the east wall, heard once a
    /// minute for 12 minutes (as when a phone's scans are throttled in a pocket).
    func walkThenStandAMinuteApart(_ configuration: TrackerConfiguration) throws -> [Position] {
        let map = try Self.room()
        var tracker = DeviceTracker(device: "phone", configuration: configuration)
        let walk = (0...10).map { (x: 2 * Double($0), time: Double($0)) }
        let stand = (1...12).map { (x: 20.0, time: 10 + 60 * Double($0)) }
        return try (walk + stand).compactMap { step in
            try tracker.update(with: Self.sample(x: step.x, time: step.time), builder: builder, locator: locator, map: map).position
        }
    }

    @Test("stationary points a minute apart stay inside the room instead of flying off (the 391 m case)")
    func minuteApartStaysInside() throws {
        // Given a phone that walked east across a 20 m room and then stands at its east end, heard once a minute
        // When replayed through the tracker as it was (velocity kept over gaps, no extent)
        let old = try walkThenStandAMinuteApart(Self.unbounded)
        // Then the dot sails some 80 m out of the room: the defect this guards against
        #expect(old.map(\.x).max()! > 60, "the scenario must reproduce the old defect: \(old.map(\.x))")
        // When replayed through today's tracker
        let positions = try walkThenStandAMinuteApart(Self.today)
        // Then every answer lies within the surveyed extent plus its 3 m margin
        #expect(positions.count == 23)
        for position in positions {
            #expect((-3...23).contains(position.x), "x = \(position.x)")
            #expect((-3...3).contains(position.y), "y = \(position.y)")
        }
        // And once the phone stands, it is answered where it stands
        #expect(positions.suffix(12).allSatisfy { $0.x == 20 && $0.spot == "x20" }, "\(positions.map(\.x))")
    }

    @Test("after silence the tracker restarts at the new measurement and forgets the samples before it")
    func silenceResets() throws {
        // Given a tracker merging 30 s of samples but forgetting after 10 s of silence, that has seen the
        // phone walk west → middle
        let map = try Self.room()
        var tracker = DeviceTracker(
            device: "phone", configuration: TrackerConfiguration(window: 30, silenceReset: 10))
        for (x, time) in [(0.0, 0.0), (0, 1), (10, 6), (10, 7)] {
            _ = try tracker.update(with: Self.sample(x: x, time: time), builder: builder, locator: locator, map: map)
        }
        // When it is heard again at the east wall after 15 s of silence
        let update = try tracker.update(with: Self.sample(x: 20, time: 22), builder: builder, locator: locator, map: map)
        // Then only the new sample is merged, and the answer is that measurement, neither smoothed towards
        // the old track nor extrapolated along it
        #expect(update.windowSamples == 1)
        #expect(update.raw.position?.spot == "x20")
        #expect(update.position?.x == 20)
        #expect(update.position?.spot == "x20")

        // And a gap just under the limit keeps the window and smooths as usual
        let next = try tracker.update(with: Self.sample(x: 10, time: 31), builder: builder, locator: locator, map: map)
        #expect(next.windowSamples == 2)
        let x = try #require(next.position?.x)
        #expect(x > 10 && x < 20, "smoothed between the two: \(x)")
    }

    @Test("a reset smoother takes the next measurement as it is")
    func smootherReset() {
        // Given a smoother that has tracked a phone moving east at 1 m/s
        var smoother = AlphaBetaSmoother()
        for second in 0..<10 { _ = smoother.smooth(Self.position(Double(second)), at: Double(second)) }
        // When it is reset and a measurement arrives at x = 3
        smoother.reset()
        let restarted = smoother.smooth(Self.position(3), at: 100)
        // Then it answers exactly that measurement
        #expect(restarted.x == 3)
    }

    @Test("a phone that stops does not drift on along its old velocity")
    func stopDoesNotDrift() {
        // Given a phone walking east at 2 m/s for 10 s, then standing at x = 20 for 20 s, measured each second
        func track(_ smoother: AlphaBetaSmoother) -> [Double] {
            var smoother = smoother
            var xs: [Double] = []
            for second in 0...30 {
                xs.append(smoother.smooth(Self.position(min(20, 2 * Double(second))), at: Double(second)).x)
            }
            return xs
        }
        // When smoothed with the velocity kept between updates, and with it fading (half-life 1 s)
        let kept = track(AlphaBetaSmoother(beta: 0.3, velocityHalfLife: .infinity))
        let fading = track(AlphaBetaSmoother(beta: 0.3, velocityHalfLife: 1))
        // Then the kept velocity overshoots the stop by metres, the fading one by far less
        let keptOvershoot = kept.max()! - 20, fadingOvershoot = max(0, fading.max()! - 20)
        #expect(keptOvershoot > 1, "\(kept)")
        #expect(fadingOvershoot < keptOvershoot / 2, "\(fading)")
        // And ten seconds after the stop the fading filter sits at the stop
        #expect(abs(fading[25] - 20) < 0.25, "\(fading)")
    }

    @Test("smoothed and raw positions are kept inside the floor's surveyed extent plus the margin")
    func clampsToExtent() throws {
        // Given a smoother that keeps its velocity (so it overshoots when the phone stops at the east wall)
        let map = try Self.room()
        let smoother = AlphaBetaSmoother(beta: 0.5, maximumSpeed: 3, velocityHalfLife: .infinity)
        func xs(margin: Double) throws -> [Double] {
            var tracker = DeviceTracker(
                device: "phone", configuration: TrackerConfiguration(window: 0, smoother: smoother, extentMargin: margin))
            var xs: [Double] = []
            for (x, time) in [(0.0, 0.0), (10, 4), (20, 8), (20, 9), (20, 10), (20, 11)] {
                let update = try tracker.update(with: Self.sample(x: x, time: time), builder: builder, locator: locator, map: map)
                xs.append(try #require(update.position).x)
                #expect(try #require(update.raw.position).x <= 20 + margin)
            }
            return xs
        }
        // When the phone walks to the east wall and stops there, with no extent and with a 1 m margin
        let free = try xs(margin: .infinity)
        let bounded = try xs(margin: 1)
        // Then without an extent the dot leaves the room, and with one it stops at 21 m
        #expect(free.max()! > 21, "\(free)")
        #expect(bounded.allSatisfy { (-1...21).contains($0) }, "\(bounded)")
        #expect(bounded.contains(21), "\(bounded)")
    }

    @Test("the extent of a floor is its spots' bounding box, enlarged and clamping")
    func extent() throws {
        let spots = [Spot(name: "a", x: 1, y: 2, floor: 0), Spot(name: "b", x: 5, y: -1, floor: 0), Spot(name: "c", x: 50, y: 50, floor: 1)]
        let extent = try #require(PlanarExtent(spots: spots, floor: 0))
        #expect(extent == PlanarExtent(minX: 1, minY: -1, maxX: 5, maxY: 2))
        #expect(PlanarExtent(spots: spots, floor: 2) == nil)
        let enlarged = extent.enlarged(by: 3)
        #expect(enlarged == PlanarExtent(minX: -2, minY: -4, maxX: 8, maxY: 5))
        #expect(enlarged.clamped(x: 100, y: -100) == (8, -4))
        #expect(enlarged.clamped(x: 0, y: 0) == (0, 0))
        #expect(!extent.contains(x: 0, y: 0) && enlarged.contains(x: 0, y: 0))
    }

    static func position(_ x: Double) -> Position {
        Position(x: x, y: 0, floor: 0, accuracy: 2, spot: "s", zone: nil)
    }
}
