/// A distance between a live fingerprint and reference fingerprints.
///
/// Every metric compares the beacons both sides see, in its ``representation`` (relative powers unless
/// it says otherwise), and adds a penalty for beacons present on one side only. Two fingerprints that
/// share no beacon have no distance (`nil`, or `.infinity` in bulk): they are never a match.
public protocol FingerprintMetric: Sendable {
    /// What the metric compares per beacon: a ``RadioMap`` it reads in bulk must be built with this
    /// representation (`RadioMap(spots:fingerprints:representation:)`).
    var representation: SignalRepresentation { get }

    /// The plain, obviously correct definition on sparse fingerprints. Tests hold ``distances(from:in:into:)``
    /// to it.
    func distance(_ query: Fingerprint, _ reference: Fingerprint) -> Float?

    /// Distances from `query` to the rows of the blocks `blocks` selects, packed: the `i`-th selected
    /// block's 8 rows at `i * 8 ..< i * 8 + 8` (at most `distances.count`; ``BlockSelection``). Rows that
    /// share no beacon with the query get `.infinity`. Implementations must not allocate per row.
    func distances(from query: QueryVector, in map: RadioMap, blocks: BlockSelection, into distances: UnsafeMutableBufferPointer<Float>)

    /// Distances from each of `queries` to every row: query `q`'s distances at `q * map.count ..< (q + 1) * map.count`.
    /// Metrics that can read the map once for the whole batch override the default, which runs one query
    /// after the other.
    func distances(from queries: [QueryVector], in map: RadioMap, into distances: UnsafeMutableBufferPointer<Float>)
}

extension FingerprintMetric {
    /// Distances from `query` to every row of `map`, written into `distances` (`map.count` elements, row
    /// order). Rows that share no beacon with the query get `.infinity`.
    public func distances(from query: QueryVector, in map: RadioMap, into distances: UnsafeMutableBufferPointer<Float>) {
        self.distances(from: query, in: map, blocks: .all(of: map), into: distances)
    }

    /// Relative powers: what every metric compared before dB-scale metrics existed.
    public var representation: SignalRepresentation { .relativePower }

    public func distances(from queries: [QueryVector], in map: RadioMap, into distances: UnsafeMutableBufferPointer<Float>) {
        for (index, query) in queries.enumerated() {
            self.distances(from: query, in: map, into: UnsafeMutableBufferPointer(rebasing: distances[(index * map.count)..<((index + 1) * map.count)]))
        }
    }
}

/// The cost of a beacon heard on one side only, in relative-power units (a beacon's full swing is 1);
/// ``DecibelOffsetMetric`` reads it as dB² per dB of the missing beacon's level instead.
///
/// The two sides differ: a beacon the phone hears now but the survey never heard there is strong
/// evidence against the spot, while a weak beacon the survey heard but the phone missed in one scan
/// is common (missed readings), so it costs less.
public struct AbsencePenalty: Hashable, Sendable {
    /// A beacon heard by the live scan, absent from the reference fingerprint.
    public var queryOnly: Float
    /// A beacon of the reference fingerprint that the live scan did not hear.
    public var referenceOnly: Float

    public init(queryOnly: Float, referenceOnly: Float) {
        self.queryOnly = queryOnly
        self.referenceOnly = referenceOnly
    }

    /// The same penalty on both sides.
    public init(_ both: Float) {
        self.init(queryOnly: both, referenceOnly: both)
    }

    @inline(__always)
    func cost(queryOnly onlyQ: Float, referenceOnly onlyR: Float) -> Float {
        queryOnly * onlyQ + referenceOnly * onlyR
    }

    @inline(__always)
    func squaredCost(queryOnly onlyQ: Float, referenceOnly onlyR: Float) -> Float {
        queryOnly * queryOnly * onlyQ + referenceOnly * referenceOnly * onlyR
    }

    @inline(__always)
    func cost(queryOnly onlyQ: SIMD8<Float>, referenceOnly onlyR: SIMD8<Float>) -> SIMD8<Float> {
        queryOnly * onlyQ + referenceOnly * onlyR
    }

    @inline(__always)
    func squaredCost(queryOnly onlyQ: SIMD8<Float>, referenceOnly onlyR: SIMD8<Float>) -> SIMD8<Float> {
        (queryOnly * queryOnly) * onlyQ + (referenceOnly * referenceOnly) * onlyR
    }
}

extension AbsencePenalty: ExpressibleByFloatLiteral {
    /// `0.5` reads as the same penalty on both sides.
    public init(floatLiteral value: Float) {
        self.init(value)
    }
}

/// Whether a distance is divided by the number of beacons either side sees.
///
/// Averaging per beacon makes a scan that hears 3 beacons and one that hears 12 comparable: without it,
/// references that see few beacons win simply because they have fewer terms.
public enum DistanceNormalization: Hashable, Sendable {
    case none
    case perUnionBeacon

    @inline(__always)
    func apply(_ distance: Float, union: Float) -> Float {
        switch self {
        case .none: distance
        case .perUnionBeacon: distance / max(1, union)
        }
    }

    @inline(__always)
    func apply(_ distance: SIMD8<Float>, union: SIMD8<Float>) -> SIMD8<Float> {
        switch self {
        case .none: distance
        case .perUnionBeacon: distance / union.replacing(with: 1, where: union .< 1)
        }
    }
}

/// Counts shared between metrics: how two sparse fingerprints overlap.
struct Overlap {
    var common = 0
    var onlyInQuery = 0
    var onlyInReference = 0

    init(_ query: Fingerprint, _ reference: Fingerprint) {
        for beacon in query.entries.keys {
            if reference.entries[beacon] != nil { common += 1 } else { onlyInQuery += 1 }
        }
        onlyInReference = reference.entries.count - common
    }

    var union: Float { Float(common + onlyInQuery + onlyInReference) }
}
