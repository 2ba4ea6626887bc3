/// How the distances of a spot's reference fingerprints make the spot's distance.
public enum SpotAggregation: Hashable, Sendable {
    /// The best fingerprint stands for the spot.
    case best
    /// The mean of the spot's `count` best fingerprints (fewer when it has fewer matching ones): one
    /// lucky reference fingerprint weighs less.
    case meanOfBest(Int)
}

/// Which neighbours a position is interpolated from.
public enum NeighbourLevel: Hashable, Sendable, Codable {
    /// The nearest spots, each at its aggregated distance (``SpotAggregation``): a sparse survey, a few
    /// fingerprints per spot.
    case spots
    /// The nearest reference fingerprints, whatever their spot: a dense survey with dozens of fingerprints
    /// per spot, where a spot with many close fingerprints should pull harder than one with a single lucky one.
    case fingerprints
}

/// Matches a live fingerprint against a radio map and estimates a position, or says why it cannot.
///
/// The pipeline: distance to every reference fingerprint (``FingerprintMetric``), the best fingerprint
/// per spot, the nearest spots, then a continuous position (``PositionEstimator``). Configuration is
/// plain values; a `Locator` holds no state and can serve any number of concurrent queries.
public struct Locator: Sendable {
    public var metric: any FingerprintMetric
    public var aggregation: SpotAggregation
    /// Whether the estimator interpolates between spots or between reference fingerprints.
    public var neighbours: NeighbourLevel
    public var estimator: any PositionEstimator
    /// Fewer surveyed beacons heard than this gives `unknown` (at least 1).
    public var minimumBeacons: Int
    /// A best spot distance above this gives `unknown`; nil accepts any finite distance.
    public var maximumDistance: Float?
    /// How many candidate spots a result lists.
    public var candidateCount: Int

    public init(
        metric: any FingerprintMetric,
        aggregation: SpotAggregation = .best,
        neighbours: NeighbourLevel = .spots,
        estimator: any PositionEstimator,
        minimumBeacons: Int = 1,
        maximumDistance: Float? = nil,
        candidateCount: Int = 5
    ) {
        self.metric = metric
        self.aggregation = aggregation
        self.neighbours = neighbours
        self.estimator = estimator
        self.minimumBeacons = max(1, minimumBeacons)
        self.maximumDistance = maximumDistance
        self.candidateCount = max(1, candidateCount)
    }

    /// Locates `fingerprint` in `map`.
    public func locate(_ fingerprint: Fingerprint, in map: RadioMap) -> LocationResult {
        locate(map.query(for: fingerprint), in: map)
    }

    /// Locates a query already laid out along `map`'s columns.
    public func locate(_ query: QueryVector, in map: RadioMap) -> LocationResult {
        if let early = precheck(query) { return early }
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: map.count) { rowDistance in
            metric.distances(from: query, in: map, into: rowDistance)
            return result(for: query, rowDistances: UnsafeBufferPointer(rowDistance), in: map)
        }
    }

    /// Locates several queries, reading the map once for all of them when the metric can (the
    /// squared-Euclidean family): what a server batching concurrent requests would call.
    public func locate(batch queries: [QueryVector], in map: RadioMap) -> [LocationResult] {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: map.count * queries.count) { rowDistances in
            metric.distances(from: queries, in: map, into: rowDistances)
            return queries.enumerated().map { index, query in
                precheck(query) ?? result(
                    for: query,
                    rowDistances: UnsafeBufferPointer(rebasing: rowDistances[(index * map.count)..<((index + 1) * map.count)]),
                    in: map)
            }
        }
    }

    /// Locates a query whose row distances are already computed (cross-validation masks some rows out).
    func locate(rowDistances: UnsafeBufferPointer<Float>, query: QueryVector, in map: RadioMap) -> LocationResult {
        precheck(query) ?? result(for: query, rowDistances: rowDistances, in: map)
    }

    /// The answer for queries that cannot be matched at all.
    private func precheck(_ query: QueryVector) -> LocationResult? {
        let heard = Int(query.presentCount)
        guard heard > 0 else { return unknown(.noKnownBeacon, query) }
        guard heard >= minimumBeacons else { return unknown(.tooFewBeacons(heard: heard, required: minimumBeacons), query) }
        return nil
    }

    private func unknown(_ reason: UnknownReason, _ query: QueryVector, candidates: [SpotCandidate] = []) -> LocationResult {
        LocationResult(
            outcome: .unknown(reason), candidates: candidates, matchedBeacons: Int(query.presentCount),
            unmappedBeacons: query.unmappedBeacons)
    }

    private func result(for query: QueryVector, rowDistances: UnsafeBufferPointer<Float>, in map: RadioMap) -> LocationResult {
        let spotDistance = spotDistances(fromRowDistances: rowDistances, in: map)
        let candidates = nearest(spotDistance, in: map, limit: max(candidateCount, estimator.candidatesWanted))
        guard let best = candidates.first else { return unknown(.noCommonBeacon, query) }
        let listed = Array(candidates.prefix(candidateCount))
        if let maximumDistance, best.distance > maximumDistance {
            return unknown(.tooFar(distance: best.distance, threshold: maximumDistance), query, candidates: listed)
        }
        let neighbours = switch self.neighbours {
        case .spots: candidates
        case .fingerprints: Self.nearestRows(rowDistances, in: map, limit: estimator.candidatesWanted)
        }
        var position = estimator.estimate(from: neighbours, spots: map.spots)
        // The estimator names the nearest spot's zone; drawn zones decide by where the position lies.
        if !map.zones.areas.isEmpty { position.zone = map.zones.zone(atX: position.x, y: position.y, floor: position.floor) }
        return LocationResult(
            outcome: .located(position), candidates: listed,
            matchedBeacons: Int(query.presentCount), unmappedBeacons: query.unmappedBeacons)
    }

    /// The `limit` reference fingerprints nearest to the query, nearest first, each as a candidate of its
    /// spot (a spot appears once per fingerprint, so a spot with several close fingerprints weighs more).
    /// Only the small result buffer is allocated, never anything per row.
    public static func nearestRows(_ rowDistance: UnsafeBufferPointer<Float>, in map: RadioMap, limit: Int) -> [SpotCandidate] {
        var best: [SpotCandidate] = []
        best.reserveCapacity(limit + 1)
        for row in 0..<rowDistance.count {
            let distance = rowDistance[row]
            guard distance.isFinite else { continue }
            if best.count == limit, let last = best.last, distance >= last.distance { continue }
            let spot = map.spotOfRow[row]
            let position = best.firstIndex { distance < $0.distance } ?? best.endIndex
            best.insert(SpotCandidate(spotIndex: spot, spot: map.spots[spot], distance: distance), at: position)
            if best.count > limit { best.removeLast() }
        }
        return best
    }

    /// The distance of every spot of `map` to `query` (`.infinity` when no fingerprint of the spot
    /// shares a beacon with it), aggregated per ``aggregation``.
    public func spotDistances(to query: QueryVector, in map: RadioMap) -> [Float] {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: map.count) { rowDistance in
            metric.distances(from: query, in: map, into: rowDistance)
            return spotDistances(fromRowDistances: UnsafeBufferPointer(rowDistance), in: map)
        }
    }

    func spotDistances(fromRowDistances rowDistance: UnsafeBufferPointer<Float>, in map: RadioMap) -> [Float] {
        var spotDistance = [Float](repeating: .infinity, count: map.spots.count)
        // Each spot's rows are contiguous: one sequential pass keeping the smallest distances in registers.
        switch aggregation {
        case .best, .meanOfBest(...1):
            for (spot, rows) in map.spotRanges.enumerated() {
                var best = Float.infinity
                for row in rows { best = min(best, rowDistance[row]) }
                spotDistance[spot] = best
            }
        case .meanOfBest(2):
            for (spot, rows) in map.spotRanges.enumerated() {
                var first = Float.infinity, second = Float.infinity
                for row in rows {
                    // Branch-free: the two smallest so far (first ≤ second).
                    let distance = rowDistance[row]
                    second = min(second, max(first, distance))
                    first = min(first, distance)
                }
                spotDistance[spot] = second.isFinite ? (first + second) / 2 : first
            }
        case .meanOfBest(let keep):
            withUnsafeTemporaryAllocation(of: Float.self, capacity: keep) { best in
                for (spot, rows) in map.spotRanges.enumerated() where !rows.isEmpty {
                    best.initialize(repeating: .infinity)
                    for row in rows {
                        var distance = rowDistance[row]
                        guard distance < best[keep - 1] else { continue }
                        for slot in 0..<keep where distance < best[slot] { swap(&distance, &best[slot]) }
                    }
                    var sum: Float = 0, finite: Float = 0
                    for slot in 0..<keep where best[slot].isFinite {
                        sum += best[slot]
                        finite += 1
                    }
                    if finite > 0 { spotDistance[spot] = sum / finite }
                }
            }
        }
        return spotDistance
    }

    /// The `limit` spots nearest to `query`, nearest first, each at its aggregated distance.
    /// Spots with no fingerprint sharing a beacon with the query are left out.
    public func nearestSpots(to query: QueryVector, in map: RadioMap, limit: Int) -> [SpotCandidate] {
        nearest(spotDistances(to: query, in: map), in: map, limit: limit)
    }

    func nearest(_ spotDistance: [Float], in map: RadioMap, limit: Int) -> [SpotCandidate] {
        // Partial selection: keep the best `limit` in a small sorted buffer.
        var best: [SpotCandidate] = []
        best.reserveCapacity(limit + 1)
        for (index, distance) in spotDistance.enumerated() where distance.isFinite {
            if best.count == limit, let last = best.last, distance >= last.distance { continue }
            let candidate = SpotCandidate(spotIndex: index, spot: map.spots[index], distance: distance)
            let position = best.firstIndex { distance < $0.distance } ?? best.endIndex
            best.insert(candidate, at: position)
            if best.count > limit { best.removeLast() }
        }
        return best
    }
}
