/// A point of a floor, in the venue's metres.
public struct FloorPoint: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public var floor: Int

    public init(x: Double, y: Double, floor: Int) {
        self.x = x
        self.y = y
        self.floor = floor
    }
}

/// A moment of a walking survey at which the surveyor marked where they were: a spot reached, or a point
/// tapped on the map.
public struct Checkpoint: Hashable, Sendable, Codable {
    /// Seconds since the Unix epoch, on the clock of the samples it places.
    public var time: Double
    public var position: FloorPoint
    /// The turns of the way walked from the previous checkpoint to this one (a corridor's corners), in
    /// order, on this checkpoint's floor; empty for a straight line.
    public var via: [PlanarPoint]

    public init(time: Double, position: FloorPoint, via: [PlanarPoint] = []) {
        self.time = time
        self.position = position
        self.via = via
    }
}

/// A planar point of one floor (the floor is its segment's).
public struct PlanarPoint: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// Why a checkpoint list is not a path.
public enum WalkedPathError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No checkpoint at all: nothing can be placed.
    case empty
    /// Checkpoint `index` (0-based, in the order given) is not later than the one before it.
    case notIncreasing(index: Int, time: Double, previous: Double)
    /// Checkpoint `index` has a time or coordinate that is not a finite number.
    case notFinite(index: Int)

    public var description: String {
        switch self {
        case .empty: "the path has no checkpoint"
        case .notIncreasing(let index, let time, let previous):
            "checkpoint \(index + 1) (t = \(time)) is not later than the one before it (t = \(previous)); checkpoints must be in time order"
        case .notFinite(let index): "checkpoint \(index + 1) has a time or coordinate that is not a finite number"
        }
    }
}

/// Where a walking survey's sample was taken, or why it cannot be told.
public enum WalkPlacement: Hashable, Sendable {
    case placed(FloorPoint)
    /// Taken before the first checkpoint: where the surveyor stood then was never marked.
    case beforeFirstCheckpoint
    /// Taken after the last checkpoint.
    case afterLastCheckpoint
    /// Taken between two checkpoints on different floors (on the stairs or in a lift): no straight line
    /// joins them.
    case betweenFloors
}

/// A surveyor's walk: checkpoints in time order, and between two of them the straight line (or the
/// polyline through the later one's `via` points) walked at a steady pace. A sample is placed where the
/// surveyor was at its time, by the share of the segment's time elapsed along the segment's length.
///
/// Pure and cheap: placing a sample is a binary search over the checkpoints and a walk along one polyline.
public struct WalkedPath: Hashable, Sendable {
    public let checkpoints: [Checkpoint]

    /// - Throws: ``WalkedPathError`` when the list is empty, not strictly increasing in time, or holds a
    ///   number that is not finite.
    public init(checkpoints: [Checkpoint]) throws(WalkedPathError) {
        guard !checkpoints.isEmpty else { throw .empty }
        for (index, checkpoint) in checkpoints.enumerated() {
            let numbers = [checkpoint.time, checkpoint.position.x, checkpoint.position.y] + checkpoint.via.flatMap { [$0.x, $0.y] }
            guard numbers.allSatisfy(\.isFinite) else { throw .notFinite(index: index) }
            if index > 0, checkpoint.time <= checkpoints[index - 1].time {
                throw .notIncreasing(index: index, time: checkpoint.time, previous: checkpoints[index - 1].time)
            }
        }
        self.checkpoints = checkpoints
    }

    /// Where the surveyor was at `time`. A sample at a checkpoint's own time is placed on it.
    public func placement(at time: Double) -> WalkPlacement {
        guard let first = checkpoints.first, let last = checkpoints.last else { return .beforeFirstCheckpoint }
        if time < first.time { return .beforeFirstCheckpoint }
        if time > last.time { return .afterLastCheckpoint }
        // The last checkpoint at or before `time`.
        var low = 0, high = checkpoints.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if checkpoints[middle].time <= time { low = middle } else { high = middle - 1 }
        }
        let from = checkpoints[low]
        if from.time == time || low == checkpoints.count - 1 { return .placed(from.position) }
        let to = checkpoints[low + 1]
        guard from.position.floor == to.position.floor else { return .betweenFloors }
        let share = (time - from.time) / (to.time - from.time)
        let (x, y) = Self.point(along: [PlanarPoint(x: from.position.x, y: from.position.y)] + to.via + [PlanarPoint(x: to.position.x, y: to.position.y)], share: share)
        return .placed(FloorPoint(x: x, y: y, floor: from.position.floor))
    }

    /// The point `share` (0...1) of the way along a polyline, by length.
    private static func point(along corners: [PlanarPoint], share: Double) -> (Double, Double) {
        var lengths: [Double] = []
        lengths.reserveCapacity(corners.count - 1)
        for index in 1..<corners.count {
            lengths.append(((corners[index].x - corners[index - 1].x) * (corners[index].x - corners[index - 1].x)
                + (corners[index].y - corners[index - 1].y) * (corners[index].y - corners[index - 1].y)).squareRoot())
        }
        let total = lengths.reduce(0, +)
        guard total > 0 else { return (corners[0].x, corners[0].y) }  // stood still between the two marks
        var remaining = share * total
        for (index, length) in lengths.enumerated() {
            if remaining <= length || index == lengths.count - 1 {
                let fraction = length > 0 ? Swift.min(remaining / length, 1) : 0
                let start = corners[index], end = corners[index + 1]
                return (start.x + fraction * (end.x - start.x), start.y + fraction * (end.y - start.y))
            }
            remaining -= length
        }
        return (corners[corners.count - 1].x, corners[corners.count - 1].y)
    }
}

/// Which spot a walking survey's sample is recorded at. A walk gives every sample its own point, but a
/// radio map groups fingerprints by spot: a sample within `snapDistance` of a spot the venue already has
/// on its floor joins it (the nearest), and any other goes to the cell of a `cellSize` grid it falls in,
/// a spot named by the cell's centre (`x,y,floor`, as spots created from a log's coordinates are named).
public struct WalkSpotAssignment: Hashable, Sendable {
    public let cellSize: Double
    public let snapDistance: Double
    private let spotsByFloor: [Int: [Spot]]

    /// - Parameters:
    ///   - spots: the venue's spots.
    ///   - cellSize: the grid's cell, metres (positive).
    ///   - snapDistance: how near a spot must be to take the sample, metres (0 never snaps).
    public init(spots: [Spot], cellSize: Double, snapDistance: Double) {
        precondition(cellSize > 0 && cellSize.isFinite, "cellSize must be a positive number of metres")
        self.cellSize = cellSize
        self.snapDistance = Swift.max(0, snapDistance)
        spotsByFloor = Dictionary(grouping: spots, by: \.floor)
    }

    /// The ground truth a sample taken at `point` is recorded with.
    public func truth(at point: FloorPoint) -> GroundTruth {
        var nearest: (spot: Spot, distance: Double)?
        for spot in spotsByFloor[point.floor] ?? [] {
            let distance = ((spot.x - point.x) * (spot.x - point.x) + (spot.y - point.y) * (spot.y - point.y)).squareRoot()
            if distance <= snapDistance, distance < nearest?.distance ?? .infinity { nearest = (spot, distance) }
        }
        if let nearest {
            return GroundTruth(spot: nearest.spot.name, x: nearest.spot.x, y: nearest.spot.y, floor: nearest.spot.floor)
        }
        return GroundTruth(spot: nil, x: cellCentre(point.x), y: cellCentre(point.y), floor: point.floor)
    }

    /// The centre of the cell holding `coordinate`, rounded to the millimetre so names stay short.
    private func cellCentre(_ coordinate: Double) -> Double {
        (((coordinate / cellSize).rounded(.down) + 0.5) * cellSize * 1000).rounded() / 1000
    }
}
