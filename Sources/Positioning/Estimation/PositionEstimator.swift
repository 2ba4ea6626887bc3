/// Turns the best candidate spots into a continuous position.
public protocol PositionEstimator: Sendable {
    /// How many candidates, nearest first, the estimator wants.
    var neighbourCount: Int { get }

    /// A position from `candidates` (nearest first, all with finite distances, at least one).
    /// `spots` are all the venue's spots, to name the one nearest the estimate.
    func estimate(from candidates: [SpotCandidate], spots: [Spot]) -> Position
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

/// Weighted k nearest spots: the floor by weighted vote, then (x, y) as the weighted mean of the
/// neighbours on that floor, and an accuracy radius from their weighted spread around it.
///
/// Interpolating between spots matters: live positions usually lie between surveyed spots.
public struct WeightedNearestSpots: PositionEstimator, Hashable {
    public var neighbourCount: Int
    public var weighting: NeighbourWeighting
    /// The smallest accuracy radius ever reported, metres: even a perfect match is not exact.
    public var minimumAccuracy: Double
    /// The radius is `accuracyScale · sqrt(spread² + resolution²)`, calibrated per venue so that it holds
    /// the true position 68% of the time (``TunedConfiguration/accuracyScale``).
    public var accuracyScale: Double
    /// Metres: the survey's resolution, a floor under the neighbours' spread (a single neighbour has none).
    public var resolution: Double

    public init(
        neighbourCount: Int = 4,
        weighting: NeighbourWeighting = .inverseDistance(power: 1, epsilon: 0.01),
        minimumAccuracy: Double = 1,
        accuracyScale: Double = 1,
        resolution: Double = 0
    ) {
        precondition(neighbourCount >= 1, "neighbourCount must be at least 1")
        self.neighbourCount = neighbourCount
        self.weighting = weighting
        self.minimumAccuracy = minimumAccuracy
        self.accuracyScale = accuracyScale
        self.resolution = resolution
    }

    public func estimate(from candidates: [SpotCandidate], spots: [Spot]) -> Position {
        precondition(!candidates.isEmpty, "estimate needs at least one candidate")
        let neighbours = candidates.prefix(neighbourCount)
        let best = neighbours.first!.distance
        let weights = neighbours.map { weighting.weight(for: $0.distance, best: best) }

        var floorWeights: [Int: Double] = [:]
        for (neighbour, weight) in zip(neighbours, weights) { floorWeights[neighbour.spot.floor, default: 0] += weight }
        // Ties go to the floor of the best candidate, so the answer never depends on dictionary order.
        let bestFloor = neighbours.first!.spot.floor
        let floor = floorWeights.max { lhs, rhs in
            lhs.value != rhs.value ? lhs.value < rhs.value : (rhs.key == bestFloor)
        }!.key

        var totalWeight = 0.0, x = 0.0, y = 0.0
        for (neighbour, weight) in zip(neighbours, weights) where neighbour.spot.floor == floor {
            totalWeight += weight
            x += weight * neighbour.spot.x
            y += weight * neighbour.spot.y
        }
        x /= totalWeight
        y /= totalWeight

        var spread = 0.0
        for (neighbour, weight) in zip(neighbours, weights) where neighbour.spot.floor == floor {
            let dx = neighbour.spot.x - x, dy = neighbour.spot.y - y
            spread += weight * (dx * dx + dy * dy)
        }
        let accuracy = max(minimumAccuracy, accuracyScale * (spread / totalWeight + resolution * resolution).squareRoot())

        let nearest = spots.nearest(toX: x, y: y, floor: floor) ?? neighbours.first!.spot
        return Position(x: x, y: y, floor: floor, accuracy: accuracy, spot: nearest.name, zone: nearest.zone)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
