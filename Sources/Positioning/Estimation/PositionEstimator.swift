/// Turns the best candidate spots into a continuous position.
public protocol PositionEstimator: Sendable {
    /// How many candidates, nearest first, the estimator wants.
    var candidatesWanted: Int { get }

    /// A position from `candidates` (nearest first, all with finite distances, at least one).
    /// `spots` are all the venue's spots, to name the one nearest the estimate.
    func estimate(from candidates: [SpotCandidate], spots: SpotGrid) -> Position
}

/// How much each of the k nearest spots weighs in the estimate.
public enum NeighbourWeighting: Hashable, Sendable {
    /// Every neighbour counts the same.
    case uniform
    /// Weight `1 / (distance + epsilon)^power`: closer matches pull harder.
    case inverseDistance(power: Double, epsilon: Double)
    /// Weight `exp(−(distance − best) / (relativeScale · best))`: how much farther than the best match a
    /// neighbour is, relative to the best match, so the weighting does not depend on the metric's units.
    case exponential(relativeScale: Double)

    /// The weight of a neighbour at `distance` when the best candidate is at `best`.
    func weight(for distance: Float, best: Float) -> Double {
        switch self {
        case .uniform:
            return 1
        case .inverseDistance(let power, let epsilon):
            return 1 / pow(Double(distance) + epsilon, power)
        case .exponential(let relativeScale):
            let reference = max(Double(best), 1e-6)
            return exp(-(Double(distance) - Double(best)) / (relativeScale * reference))
        }
    }
}

/// How an answer's uncertainty (its covariance, and the accuracy radius drawn from it) is derived from the
/// candidates. Chosen per venue by cross-validation (``SurveyTuner``), never by a test walk.
public enum UncertaintyModel: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The interpolation neighbours' weighted spread around the position (what every tuning before the
    /// posterior used).
    case neighbourSpread
    /// A posterior over the `candidates` nearest candidates: a candidate's likelihood is
    /// `exp(−(d − best) / (temperature · best))`, so the temperature says how much farther than the best
    /// match, relative to it, a place stays plausible. The covariance is the posterior's second moment
    /// around the position, so a posterior split between two places is wide along the line between them.
    case posterior(temperature: Double, candidates: Int)

    /// Candidates the model reads, beyond the neighbours the position is interpolated from.
    public var candidatesRead: Int {
        switch self {
        case .neighbourSpread: 0
        case .posterior(_, let candidates): max(1, candidates)
        }
    }

    public var description: String {
        switch self {
        case .neighbourSpread: "neighbours' spread"
        case .posterior(let temperature, let candidates):
            "posterior over \(candidates) candidates, temperature \(temperature)"
        }
    }
}

/// A symmetric 2 × 2 covariance of a planar position, in square metres of the venue's frame.
public struct PositionCovariance: Hashable, Sendable, Codable {
    public var xx: Double
    public var xy: Double
    public var yy: Double

    public init(xx: Double, xy: Double, yy: Double) {
        self.xx = xx
        self.xy = xy
        self.yy = yy
    }

    /// `xx + yy`: the mean squared distance from the position.
    public var trace: Double { xx + yy }

    /// A 2-D Gaussian's 68% circle is `radiusFactor · sqrt(trace)` when it is round:
    /// `sqrt(−2 ln 0.32) / sqrt(2)`.
    public static let radiusFactor = (-2 * log(0.32)).squareRoot() / 2.0.squareRoot()

    /// The round covariance whose 68% circle is `radius`.
    public static func round(radius: Double) -> PositionCovariance {
        let variance = (radius / radiusFactor) * (radius / radiusFactor) / 2
        return PositionCovariance(xx: variance, xy: 0, yy: variance)
    }

    /// Every entry times `factor`.
    public func scaled(by factor: Double) -> PositionCovariance {
        PositionCovariance(xx: xx * factor, xy: xy * factor, yy: yy * factor)
    }

    /// This covariance's shape scaled so that its 68% circle (``radiusFactor`` · sqrt(trace)) is `radius`;
    /// a round one when the shape has no extent.
    public func scaled(toRadius radius: Double) -> PositionCovariance {
        guard trace > 0, trace.isFinite else { return .round(radius: radius) }
        return scaled(by: (radius / Self.radiusFactor) * (radius / Self.radiusFactor) / trace)
    }
}

/// Weighted k nearest spots: the floor by weighted vote, then (x, y) as the weighted mean of the
/// neighbours on that floor, and a covariance and accuracy radius from the ``UncertaintyModel``.
///
/// Interpolating between spots matters: live positions usually lie between surveyed spots.
public struct WeightedNearestSpots: PositionEstimator, Hashable {
    public var neighbourCount: Int
    public var weighting: NeighbourWeighting
    /// The smallest accuracy radius ever reported, metres: even a perfect match is not exact.
    public var minimumAccuracy: Double
    /// The radius is `accuracyScale · sqrt(trace + resolution²)` of the uncertainty model's covariance,
    /// calibrated per venue so that it holds the true position 68% of the time
    /// (``TunedConfiguration/accuracyScale``).
    public var accuracyScale: Double
    /// Metres: the survey's resolution, a floor under the covariance (a single neighbour has no spread).
    public var resolution: Double
    /// Where the covariance comes from.
    public var uncertainty: UncertaintyModel

    public init(
        neighbourCount: Int = 4,
        weighting: NeighbourWeighting = .inverseDistance(power: 1, epsilon: 0.01),
        minimumAccuracy: Double = 1,
        accuracyScale: Double = 1,
        resolution: Double = 0,
        uncertainty: UncertaintyModel = .neighbourSpread
    ) {
        precondition(neighbourCount >= 1, "neighbourCount must be at least 1")
        self.neighbourCount = neighbourCount
        self.weighting = weighting
        self.minimumAccuracy = minimumAccuracy
        self.accuracyScale = accuracyScale
        self.resolution = resolution
        self.uncertainty = uncertainty
    }

    public var candidatesWanted: Int { max(neighbourCount, uncertainty.candidatesRead) }

    public func estimate(from candidates: [SpotCandidate], spots: SpotGrid) -> Position {
        precondition(!candidates.isEmpty, "estimate needs at least one candidate")
        let neighbours = candidates.prefix(neighbourCount)
        let best = neighbours.first!.distance
        // On the stack, as everything else here: a locate allocates only its answer's arrays.
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: neighbours.count) { weights in
            for (index, neighbour) in neighbours.enumerated() {
                weights[index] = weighting.weight(for: neighbour.distance, best: best)
            }
            let weights = UnsafeBufferPointer(weights)
            let floor = Self.heaviestFloor(of: neighbours, weights: weights)
            var totalWeight = 0.0, x = 0.0, y = 0.0
            for (neighbour, weight) in zip(neighbours, weights) where neighbour.spot.floor == floor {
                totalWeight += weight
                x += weight * neighbour.spot.x
                y += weight * neighbour.spot.y
            }
            x /= totalWeight
            y /= totalWeight
            return position(x: x, y: y, floor: floor, neighbours: neighbours, weights: weights, candidates: candidates, best: best, spots: spots)
        }
    }

    /// The floor whose neighbours weigh the most; ties go to the best candidate's floor (met first), then to
    /// the floor met first, so the answer never depends on anything but the candidates' order.
    private static func heaviestFloor(of neighbours: ArraySlice<SpotCandidate>, weights: UnsafeBufferPointer<Double>) -> Int {
        var floor = neighbours.first!.spot.floor, heaviest = -Double.infinity
        for (index, neighbour) in zip(neighbours.indices, neighbours) {
            let candidate = neighbour.spot.floor
            let offset = index - neighbours.startIndex
            // Each floor once, at its first neighbour: its weight summed in candidate order.
            guard !neighbours[neighbours.startIndex..<index].contains(where: { $0.spot.floor == candidate }) else { continue }
            var total = 0.0
            for (other, weight) in zip(neighbours[index...], weights[offset...]) where other.spot.floor == candidate { total += weight }
            if total > heaviest {
                heaviest = total
                floor = candidate
            }
        }
        return floor
    }

    private func position(
        x: Double, y: Double, floor: Int, neighbours: ArraySlice<SpotCandidate>, weights: UnsafeBufferPointer<Double>,
        candidates: [SpotCandidate], best: Float, spots: SpotGrid
    ) -> Position {
        let spread: PositionCovariance = switch uncertainty {
        case .neighbourSpread:
            Self.secondMoment(of: zip(neighbours, weights).lazy.map { ($0.0.spot, $0.1) }, floor: floor, aroundX: x, y: y)
        case .posterior(let temperature, let count):
            Self.secondMoment(
                of: candidates.prefix(max(1, count)).lazy.map { [likelihood = NeighbourWeighting.exponential(relativeScale: temperature)] in
                    ($0.spot, likelihood.weight(for: $0.distance, best: best))
                },
                floor: floor, aroundX: x, y: y)
        }
        // The resolution floor is round: half of it along each axis, so that the trace gains resolution².
        let floored = PositionCovariance(
            xx: spread.xx + resolution * resolution / 2, xy: spread.xy, yy: spread.yy + resolution * resolution / 2)
        let accuracy = max(minimumAccuracy, accuracyScale * floored.trace.squareRoot())

        let nearest = spots.nearest(toX: x, y: y, floor: floor).map { spots.spots[$0] } ?? neighbours.first!.spot
        return Position(
            x: x, y: y, floor: floor, accuracy: accuracy, spot: nearest.name, zone: nearest.zone,
            covariance: floored.scaled(toRadius: accuracy))
    }

    /// The weighted second moment around (`x`, `y`) of the places of `floor` among `weighted`.
    private static func secondMoment(
        of weighted: some Sequence<(Spot, Double)>, floor: Int, aroundX x: Double, y: Double
    ) -> PositionCovariance {
        var total = 0.0, xx = 0.0, xy = 0.0, yy = 0.0
        for (spot, weight) in weighted where spot.floor == floor && weight.isFinite {
            let dx = spot.x - x, dy = spot.y - y
            total += weight
            xx += weight * dx * dx
            xy += weight * dx * dy
            yy += weight * dy * dy
        }
        guard total > 0 else { return PositionCovariance(xx: 0, xy: 0, yy: 0) }
        return PositionCovariance(xx: xx / total, xy: xy / total, yy: yy / total)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
