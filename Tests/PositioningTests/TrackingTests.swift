import Positioning
import Testing
import TestSupport

@Suite("Tracking: smoothing, zones, devices")
struct TrackingTests {
    func position(_ x: Double, floor: Int = 0) -> Position {
        Position(x: x, y: 0, floor: floor, accuracy: 2, spot: "s", zone: nil)
    }

    @Test("an impossible jump is gated to walking speed")
    func gatesJumps() {
        // Given a device at x = 0
        var smoother = AlphaBetaSmoother(alpha: 1, beta: 0, maximumSpeed: 2, gateSlack: 1, resetAfterGated: 3)
        _ = smoother.smooth(position(0), at: 0)
        // When an estimate 30 m away arrives one second later
        let next = smoother.smooth(position(30), at: 1)
        // Then the dot moves at most 2 m/s x 1 s + 1 m of slack
        #expect(abs(next.x - 3) < 1e-9)
    }

    @Test("a jump that persists is believed after a few updates")
    func persistentJumpResets() {
        var smoother = AlphaBetaSmoother(alpha: 1, beta: 0, maximumSpeed: 2, gateSlack: 1, resetAfterGated: 3)
        _ = smoother.smooth(position(0), at: 0)
        _ = smoother.smooth(position(50), at: 1)
        _ = smoother.smooth(position(50), at: 2)
        let third = smoother.smooth(position(50), at: 3)
        #expect(third.x == 50)
    }

    @Test("noise is smoothed: the dot moves part of the way")
    func smoothsNoise() {
        var smoother = AlphaBetaSmoother(alpha: 0.5, beta: 0)
        _ = smoother.smooth(position(0), at: 0)
        let next = smoother.smooth(position(2), at: 1)
        #expect(abs(next.x - 1) < 1e-9)
    }

    @Test("a Kalman gain takes more of a sharp answer than of a vague one")
    func covarianceGainWeighsAnswers() {
        // Given a track started at x = 0 with a 2 m radius, wandering 1 m² per second
        func step(toRadius radius: Double) -> Double {
            var smoother = AlphaBetaSmoother(beta: 0, gain: .covariance(processNoise: 1, measurementScale: 1))
            _ = smoother.smooth(position(0), at: 0)
            return smoother.smooth(Position(x: 2, y: 0, floor: 0, accuracy: radius, spot: "s", zone: nil), at: 1).x
        }
        // When an answer 2 m away arrives a second later, sharp (1 m) or vague (8 m)
        let sharp = step(toRadius: 1), vague = step(toRadius: 8)
        // Then the gain is the track's variance against the answer's: p / (p + r) per axis, where a round
        // covariance of radius R has r = (R / 1.0675)² / 2
        func variance(_ radius: Double) -> Double { (radius / PositionCovariance.radiusFactor) * (radius / PositionCovariance.radiusFactor) / 2 }
        let predicted = variance(2) + 1
        #expect(abs(sharp - 2 * predicted / (predicted + variance(1))) < 1e-9)
        #expect(abs(vague - 2 * predicted / (predicted + variance(8))) < 1e-9)
        #expect(sharp > 1.5 && vague < 0.5)
    }

    @Test("a Kalman gain moves the dot little along the long axis of an answer's covariance")
    func covarianceGainFollowsShape() throws {
        // Given a track at the origin and an answer 2 m off in x and in y, long along x (a scan that fits two
        // places on a line along x equally well)
        var smoother = AlphaBetaSmoother(beta: 0, gain: .covariance(processNoise: 1, measurementScale: 1))
        _ = smoother.smooth(position(0), at: 0)
        let long = Position(
            x: 2, y: 2, floor: 0, accuracy: 2, spot: "s", zone: nil, covariance: PositionCovariance(xx: 3.4, xy: 0, yy: 0.1))
        // When it is smoothed
        let next = smoother.smooth(long, at: 1)
        // Then the dot follows it across (y) much more than along (x)
        #expect(next.y > 1.5 && next.x < 1.2)
        // And the track carries the answer's shape, scaled to its own radius
        let covariance = try #require(next.covariance)
        #expect(covariance.xx > 10 * covariance.yy)
        #expect(abs(PositionCovariance.radiusFactor * covariance.trace.squareRoot() - next.accuracy) < 1e-9)
    }

    @Test("a Kalman track's radius shrinks while answers agree and grows again over a gap")
    func covarianceGainRadius() {
        var smoother = AlphaBetaSmoother(beta: 0, gain: .covariance(processNoise: 1, measurementScale: 1))
        // Given five agreeing answers a second apart
        var radii = (0..<5).map { smoother.smooth(position(0), at: Double($0)).accuracy }
        // Then each radius is smaller than the one before
        #expect(zip(radii, radii.dropFirst()).allSatisfy { $0 > $1 }, "\(radii)")
        // And after 8 s of silence the next answer's radius is wider than the last: the person may have wandered
        radii.append(smoother.smooth(position(0), at: 12).accuracy)
        #expect(radii[5] > radii[4], "\(radii)")
    }

    @Test("one stray floor vote does not change floor; two do")
    func floorChange() {
        var smoother = AlphaBetaSmoother(floorChangeUpdates: 2)
        _ = smoother.smooth(position(0), at: 0)
        #expect(smoother.smooth(position(0, floor: 1), at: 1).floor == 0)
        #expect(smoother.smooth(position(0, floor: 1), at: 2).floor == 1)
    }

    @Test("hysteresis: a device dithering at a border produces no event storm")
    func hysteresisAtBorder() {
        // Given zone A at x = 0 and zone B at x = 4, and a device settled in A
        let spots = [Spot(name: "a", x: 0, y: 0, floor: 0, zone: "A"), Spot(name: "b", x: 4, y: 0, floor: 0, zone: "B")]
        var zones = ZoneHysteresis(margin: 1, requiredUpdates: 3)
        var events: [ZoneEvent] = []
        for t in 0..<3 { events += zones.update(x: 0.5, y: 0, floor: 0, zones: ZoneLayout(spots: spots), time: Double(t)) }
        #expect(events == [ZoneEvent(kind: .enter, zone: "A", time: 2)])
        // When it dithers around the border (x = 1.8 ... 2.4) for a minute
        events = []
        for t in 3..<63 { events += zones.update(x: t % 2 == 0 ? 1.8 : 2.4, y: 0, floor: 0, zones: ZoneLayout(spots: spots), time: Double(t)) }
        // Then nothing is emitted
        #expect(events.isEmpty)
        #expect(zones.currentZone == "A")
        // And when it clearly walks into B, exactly one exit and one enter follow
        for t in 63..<66 { events += zones.update(x: 3.8, y: 0, floor: 0, zones: ZoneLayout(spots: spots), time: Double(t)) }
        #expect(events == [ZoneEvent(kind: .exit, zone: "A", time: 65), ZoneEvent(kind: .enter, zone: "B", time: 65)])
    }

    @Test("the tracker merges recent samples, ignores stuck beacons and emits zone events")
    func deviceTracker() throws {
        // Given the corridor venue and a tracker with a 3 s window
        let map = try LocatorTests.corridor()
        let builder = FingerprintBuilder(scale: DecibelScale(dynamicRange: 40, exponent: 1))
        let locator = Locator(metric: ManhattanMetric(penalty: 0.5), estimator: WeightedNearestSpots(neighbourCount: 1))
        var tracker = DeviceTracker(
            device: "phone",
            configuration: TrackerConfiguration(window: 3, stuckRepeats: 4, zones: ZoneHysteresis(margin: 1, requiredUpdates: 2)))
        // When the phone stands at "east" for 6 s, with beacon 4 frozen by a hung stack
        var events: [ZoneEvent] = []
        var last: TrackingUpdate?
        for second in 0..<6 {
            let jitter = Double(second % 2)
            let sample = Fixtures.sample([1: -96 - jitter, 2: -80 + jitter, 3: -60 - jitter, 4: -50], time: Double(second))
            last = try tracker.update(with: sample, builder: builder, locator: locator, map: map)
            events += last!.events
        }
        // Then the window holds 4 samples (3 s back from the newest), beacon 4 is flagged stuck,
        // the device is at "east" in zone "bar", entered exactly once
        let update = try #require(last)
        #expect(update.windowSamples == 4)
        #expect(update.stuckBeacons == [Fixtures.beacon(4)])
        #expect(update.position?.spot == "east")
        #expect(tracker.currentZone == "bar")
        #expect(events.map(\.kind) == [.enter])
        #expect(tracker.lastUpdate == update)
    }

    @Test("a tracker fed only empty samples reports the error instead of a position")
    func trackerEmpty() throws {
        let map = try LocatorTests.corridor()
        var tracker = DeviceTracker(device: "phone")
        #expect(throws: FingerprintError.noValidReadings(samples: 1)) {
            try tracker.update(
                with: Fixtures.sample([:]), builder: FingerprintBuilder(),
                locator: Locator(metric: ManhattanMetric(), estimator: WeightedNearestSpots()), map: map)
        }
    }
}
