/// Smooths a stream of position estimates of one device so the dot moves instead of jumping.
public protocol PositionSmoother: Sendable {
    /// Feeds the estimate made at `time` (seconds) and returns the smoothed position.
    mutating func smooth(_ measurement: Position, at time: Double) -> Position
}

/// How much of a new measurement an ``AlphaBetaSmoother`` takes.
public enum SmootherGain: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The fixed share ``AlphaBetaSmoother/alpha`` of every measurement, whatever its radius.
    case fixed
    /// A Kalman gain: the track's own uncertainty (a round variance that grows by `processNoise` m² every
    /// second: a person's wander, stop-and-go included) against the measurement's covariance
    /// (``Position/covariance``) times `measurementScale` (successive scans of one phone err alike, so each
    /// is worth less than its own covariance says). A measurement long along one axis moves the dot little
    /// along it; a sharp one after a vague stretch moves it far. The track's radius is its own 68% circle.
    case covariance(processNoise: Double, measurementScale: Double)

    public var description: String {
        switch self {
        case .fixed: "fixed gain"
        case .covariance(let processNoise, let measurementScale):
            "Kalman gain (wander \(processNoise) m²/s, measurement covariance x\(measurementScale))"
        }
    }
}

/// An alpha-beta filter (a steady-state Kalman filter, or with ``SmootherGain/covariance(processNoise:measurementScale:)``
/// a Kalman filter over each answer's covariance) with a walking-speed motion model and gating of
/// physically impossible jumps.
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
    /// Fixed, or from each measurement's covariance.
    public var gain: SmootherGain

    private struct State: Hashable {
        var x: Double
        var y: Double
        var vx = 0.0
        var vy = 0.0
        var floor: Int
        var accuracy: Double
        /// Per-axis variance of the track's position, m² (covariance gain only).
        var variance = 0.0
        var time: Double
        var gatedInARow = 0
        var otherFloorVotes = 0
    }

    private var state: State?

    public init(
        alpha: Double = 0.5, beta: Double = 0.1, maximumSpeed: Double = 2, gateSlack: Double = 1.5,
        resetAfterGated: Int = 4, floorChangeUpdates: Int = 2, velocityHalfLife: Double = 2, gain: SmootherGain = .fixed
    ) {
        self.alpha = min(1, max(0.01, alpha))
        self.beta = min(1, max(0, beta))
        self.maximumSpeed = maximumSpeed
        self.gateSlack = gateSlack
        self.resetAfterGated = max(1, resetAfterGated)
        self.floorChangeUpdates = max(1, floorChangeUpdates)
        self.velocityHalfLife = velocityHalfLife.isNaN ? 2 : max(0.01, velocityHalfLife)
        self.gain = switch gain {
        case .fixed: .fixed
        case .covariance(let processNoise, let measurementScale):
            .covariance(
                processNoise: processNoise.isFinite ? max(0, processNoise) : 1,
                measurementScale: measurementScale.isFinite && measurementScale > 0 ? measurementScale : 1)
        }
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

        let (stepX, stepY): (Double, Double)
        // How much of the residual the velocity believes: all of it with a fixed gain (beta is its share), the
        // measurement's mean gain with a covariance gain (a vague measurement says little about motion).
        var velocityShare = 1.0
        switch gain {
        case .fixed:
            (stepX, stepY) = (alpha * residualX, alpha * residualY)
            current.accuracy = alpha * measurement.accuracy + (1 - alpha) * current.accuracy
        case .covariance(let processNoise, let measurementScale):
            // K = P (P + R)⁻¹ with the track's P = p·I: the 2 × 2 inverse written out.
            let predicted = current.variance + processNoise * dt
            let noise = Self.measurementCovariance(of: measurement, scale: measurementScale)
            let a = predicted + noise.xx, b = noise.xy, d = predicted + noise.yy
            let determinant = a * d - b * b
            guard determinant > 0, determinant.isFinite else {
                (stepX, stepY) = (alpha * residualX, alpha * residualY)
                break
            }
            let k00 = predicted * d / determinant, k01 = -predicted * b / determinant, k11 = predicted * a / determinant
            (stepX, stepY) = (k00 * residualX + k01 * residualY, k01 * residualX + k11 * residualY)
            // (I − K)·P, kept round: its mean per-axis variance.
            current.variance = max(0, predicted * (2 - k00 - k11) / 2)
            velocityShare = (k00 + k11) / 2
            current.accuracy = PositionCovariance.radiusFactor * (2 * current.variance).squareRoot()
        }
        current.x = predictedX + stepX
        current.y = predictedY + stepY
        if dt > 0 {
            current.vx += beta * velocityShare * residualX / dt
            current.vy += beta * velocityShare * residualY / dt
            let speed = (current.vx * current.vx + current.vy * current.vy).squareRoot()
            if speed > maximumSpeed {
                current.vx *= maximumSpeed / speed
                current.vy *= maximumSpeed / speed
            }
        }
        current.time = max(current.time, time)
        state = current
        return position(of: current, template: measurement)
    }

    private mutating func restart(at measurement: Position, time: Double) -> Position {
        var fresh = State(x: measurement.x, y: measurement.y, floor: measurement.floor, accuracy: measurement.accuracy, time: time)
        if case .covariance(_, let measurementScale) = gain {
            fresh.variance = Self.measurementCovariance(of: measurement, scale: measurementScale).trace / 2
        }
        state = fresh
        return measurement
    }

    /// The measurement's covariance times `scale`; a round one of its radius when it carries none.
    private static func measurementCovariance(of measurement: Position, scale: Double) -> PositionCovariance {
        (measurement.covariance ?? .round(radius: measurement.accuracy)).scaled(by: scale)
    }

    /// The filter's state as a position; spot and zone are the caller's to refresh.
    private func position(of state: State, template: Position) -> Position {
        // The newest measurement gives the covariance its shape; the smoothed radius its size.
        Position(
            x: state.x, y: state.y, floor: state.floor, accuracy: state.accuracy, spot: template.spot, zone: template.zone,
            covariance: template.covariance?.scaled(toRadius: state.accuracy))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
