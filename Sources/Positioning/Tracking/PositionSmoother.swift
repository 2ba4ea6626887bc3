/// Smooths a stream of position estimates of one device so the dot moves instead of jumping.
public protocol PositionSmoother: Sendable {
    /// Feeds the estimate made at `time` (seconds) and returns the smoothed position.
    mutating func smooth(_ measurement: Position, at time: Double) -> Position
}

/// An alpha-beta filter (a steady-state Kalman filter) with a walking-speed motion model and gating
/// of physically impossible jumps.
///
/// - A measurement that would need more than `maximumSpeed` to reach (plus `gateSlack` metres of
///   measurement noise) is pulled back onto the reachable disc: people do not teleport.
/// - If `resetAfterGated` measurements in a row had to be gated, the filter believed the wrong place;
///   it restarts at the measurement.
/// - A floor change is accepted after `floorChangeUpdates` consecutive estimates on the new floor
///   (stairs and lifts are real, one stray vote is not).
/// - The velocity fades between measurements, halving every `velocityHalfLife` seconds, and the prediction
///   follows the fading velocity: a phone that stops (or falls silent) drifts at most
///   `velocityHalfLife / ln 2` seconds' worth of its last velocity, however long the gap, instead of moving on
///   in a straight line. People stop far more often than the filter can see them stop.
///
/// The filter does not know what a venue looks like: ``DeviceTracker`` restarts it after silence
/// (``reset()``) and keeps its answers inside the surveyed extent.
public struct AlphaBetaSmoother: PositionSmoother, Hashable {
    /// Share of the position residual applied per update (0...1].
    public var alpha: Double
    /// Share of the residual rate applied to the velocity.
    public var beta: Double
    /// Metres per second: brisk walking with margin.
    public var maximumSpeed: Double
    /// Metres of measurement noise always allowed, however short the interval.
    public var gateSlack: Double
    /// Gated measurements in a row after which the filter restarts at the measurement.
    public var resetAfterGated: Int
    /// Consecutive estimates on another floor after which the floor changes.
    public var floorChangeUpdates: Int
    /// Seconds in which the velocity halves when no measurement confirms it (`.infinity` keeps it, as a
    /// plain alpha-beta filter does).
    public var velocityHalfLife: Double

    private struct State: Hashable {
        var x: Double
        var y: Double
        var vx = 0.0
        var vy = 0.0
        var floor: Int
        var accuracy: Double
        var time: Double
        var gatedInARow = 0
        var otherFloorVotes = 0
    }

    private var state: State?

    public init(
        alpha: Double = 0.5, beta: Double = 0.1, maximumSpeed: Double = 2, gateSlack: Double = 1.5,
        resetAfterGated: Int = 4, floorChangeUpdates: Int = 2, velocityHalfLife: Double = 2
    ) {
        self.alpha = min(1, max(0.01, alpha))
        self.beta = min(1, max(0, beta))
        self.maximumSpeed = maximumSpeed
        self.gateSlack = gateSlack
        self.resetAfterGated = max(1, resetAfterGated)
        self.floorChangeUpdates = max(1, floorChangeUpdates)
        self.velocityHalfLife = velocityHalfLife.isNaN ? 2 : max(0.01, velocityHalfLife)
    }

    /// Forgets the track: the next measurement is taken as it is, with no velocity. For when the past no
    /// longer says anything about the present (after silence).
    public mutating func reset() {
        state = nil
    }

    public mutating func smooth(_ measurement: Position, at time: Double) -> Position {
        guard var current = state else { return restart(at: measurement, time: time) }
        if measurement.floor != current.floor {
            current.otherFloorVotes += 1
            if current.otherFloorVotes >= floorChangeUpdates { return restart(at: measurement, time: time) }
            state = current
            return position(of: current, template: measurement)
        }
        current.otherFloorVotes = 0

        let dt = max(0, time - current.time)
        // The velocity decays exponentially, v(t) = v·2^(−t/h); the prediction moves by its integral,
        // v·h/ln 2·(1 − 2^(−dt/h)), which tends to v·dt for short gaps and is bounded for long ones.
        let decay = velocityHalfLife.isInfinite ? 1 : exp2(-dt / velocityHalfLife)
        let travel = velocityHalfLife.isInfinite ? dt : velocityHalfLife / M_LN2 * (1 - decay)
        let predictedX = current.x + current.vx * travel
        let predictedY = current.y + current.vy * travel
        current.vx *= decay
        current.vy *= decay
        var residualX = measurement.x - predictedX
        var residualY = measurement.y - predictedY

        // Gate against the last position (not the prediction), so velocity cannot build up a jump.
        let jumpX = measurement.x - current.x, jumpY = measurement.y - current.y
        let jump = (jumpX * jumpX + jumpY * jumpY).squareRoot()
        let reach = maximumSpeed * dt + gateSlack
        if jump > reach {
            current.gatedInARow += 1
            if current.gatedInARow >= resetAfterGated { return restart(at: measurement, time: time) }
            let scale = reach / jump
            residualX = current.x + jumpX * scale - predictedX
            residualY = current.y + jumpY * scale - predictedY
        } else {
            current.gatedInARow = 0
        }

        current.x = predictedX + alpha * residualX
        current.y = predictedY + alpha * residualY
        if dt > 0 {
            current.vx += beta * residualX / dt
            current.vy += beta * residualY / dt
            let speed = (current.vx * current.vx + current.vy * current.vy).squareRoot()
            if speed > maximumSpeed {
                current.vx *= maximumSpeed / speed
                current.vy *= maximumSpeed / speed
            }
        }
        current.accuracy = alpha * measurement.accuracy + (1 - alpha) * current.accuracy
        current.time = max(current.time, time)
        state = current
        return position(of: current, template: measurement)
    }

    private mutating func restart(at measurement: Position, time: Double) -> Position {
        let fresh = State(x: measurement.x, y: measurement.y, floor: measurement.floor, accuracy: measurement.accuracy, time: time)
        state = fresh
        return measurement
    }

    /// The filter's state as a position; spot and zone are the caller's to refresh.
    private func position(of state: State, template: Position) -> Position {
        Position(x: state.x, y: state.y, floor: state.floor, accuracy: state.accuracy, spot: template.spot, zone: template.zone)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
