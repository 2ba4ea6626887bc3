/// A venue's survey as matrices, built once per venue revision and then only read.
///
/// Rows are reference fingerprints, columns the beacons seen anywhere in the survey. The compact matrix
/// holds each beacon's value in the map's ``representation`` (relative power unless a metric asks for dB),
/// with ``absent`` (-1, never a value) where a fingerprint does not see a beacon, laid out for SIMD: rows are grouped in blocks of 8 (``lanes``), and a block stores,
/// beacon after beacon, that beacon's value in its 8 rows. One SIMD register then holds one beacon of 8
/// fingerprints, so the kernels compute 8 distances at once with no horizontal sums, and skip the beacons
/// the query does not see.
///
/// The BLAS layout, ``matrix``, stores each row as three contiguous blocks of `beaconCount` floats,
/// `[mask | value | value²]` (`mask` 1 where the fingerprint sees the beacon, `value` its value or 0,
/// `value²` its square), so the squared-Euclidean family reduces to one matrix product per query (see
/// ``EuclideanMetric``). It is three times the bytes of the compact matrix and only the BLAS kernel reads
/// it, so it is laid out on first use rather than with every map.
public struct RadioMap: Sendable {
    /// What the matrices hold per beacon; a metric's ``FingerprintMetric/representation`` must match it.
    public let representation: SignalRepresentation
    /// The map's columns, sorted.
    public let beacons: [BeaconID]
    /// The venue's spots, each with its zone resolved (``ZoneLayout/spots``); rows point into this array.
    public let spots: [Spot]
    /// Where the venue's zones are: what a position's zone is decided by.
    public let zones: ZoneLayout
    /// ``spots`` by floor and place: which is nearest to a position, each floor's extent.
    public var spotGrid: SpotGrid { zones.spotGrid }
    /// For every row, the index of its spot in ``spots``. Rows are ordered by spot.
    public let spotOfRow: [Int]
    /// The rows of each spot: rows are sorted by spot (stably), so each spot's rows are contiguous and
    /// aggregating row distances per spot is one sequential pass.
    public let spotRanges: [Range<Int>]
    /// Number of reference fingerprints (rows).
    public let count: Int
    /// Number of beacons (columns).
    public let beaconCount: Int
    /// Floats per row: `3 * beaconCount`.
    public let rowStride: Int
    /// `count * rowStride` floats, row-major, `[mask | value | value²]` per row; laid out from ``compact``
    /// on first use, once per map.
    public var matrix: [Float] { blasLayout.value { blasMatrix() } }
    private let blasLayout = DerivedLayout()
    /// Beacons each row sees (padded with zeros to `blockCount * lanes`, for the SIMD kernels).
    public let presentCount: [Float]
    /// Sum of each row's values (padded like ``presentCount``).
    public let valueSum: [Float]
    /// Rows per block of ``compact``: the SIMD width.
    public static let lanes = 8
    /// Blocks of ``compact``: `count` rounded up to a multiple of ``lanes``, divided by it. The rows of the
    /// last block beyond `count` are all ``absent``.
    public let blockCount: Int
    /// `blockCount * beaconCount * lanes` floats: the value of beacon `c` in row `r` is at
    /// `(r / lanes) * beaconCount * lanes + c * lanes + r % lanes`. A map stored sparse (``isBlockSparse``)
    /// expands it on first use, once per map; the kernels never need it.
    public var compact: [Float] {
        switch storage {
        case .dense(let values): values
        case .sparse: denseExpansion.value { expandedCompact() }
        }
    }
    /// How the blocks' values are kept: dense, or only each block's heard columns (``BlockStorage``).
    let storage: BlockStorage
    /// The blocks' levels in 16-bit integers, which ``DecibelOffsetMetric`` compares: a map in
    /// ``SignalRepresentation/decibels(floor:)`` has them, a map in relative powers does not.
    let decibelLevels: DecibelLevels?
    private let denseExpansion = DerivedLayout()
    /// Whether each block keeps only the columns its fingerprints hear (a large venue) rather than all.
    public var isBlockSparse: Bool {
        if case .sparse = storage { true } else { false }
    }

    /// What ``compact`` holds where a fingerprint does not see a beacon (every ``SignalRepresentation``
    /// value is at least 0).
    public static let absent: Float = -1

    private let columnOfBeacon: [BeaconID: Int]
    /// Per beacon, the runs of blocks that hold a fingerprint hearing it: column `c`'s are
    /// `columnRuns[columnRunStart[c] ..< columnRunStart[c + 1]]` (``candidateBlocks(for:)``).
    let columnRunStart: [Int]
    let columnRuns: [Range<Int>]
    /// Per beacon, the blocks in which some fingerprint ranks it among its ``rankedBeacons`` strongest,
    /// grouped by the best such rank (0 the strongest), ascending blocks within a group: column `c`'s blocks
    /// of best rank `k` are `strongBlocks[strongStart[c * rankedBeacons + k] ..< strongStart[c * rankedBeacons + k + 1]]`.
    /// A column's groups follow one another, so the blocks that rank it under `r` are one contiguous slice,
    /// read without looking at a rank (``strongestBeaconBlocks(for:queryBeacons:referenceRank:minimumShared:)``).
    let strongStart: [Int]
    let strongBlocks: [Int32]

    /// How many of each fingerprint's strongest beacons the strongest-beacon index keeps.
    public static let rankedBeacons = 8

    /// One row per surveyed spot, its fingerprints' centroid (``SpotCentroids``), along the same columns:
    /// what ``CandidateSearch/spotsFirst(keep:coarse:)`` ranks before reading any fingerprint. Built with
    /// the map when it has at least ``Locator/smallMapBlocks`` blocks and some spot more than one
    /// fingerprint; nil otherwise (the map is read whole in well under a millisecond, or it already is one
    /// row per spot).
    public var spotCentroids: RadioMap? { centroids?.map }
    private let centroids: SpotCentroids?

    /// Lays out `fingerprints` (each attached to an index into `spots`) as dense matrices, ordered by spot
    /// (fingerprints of one spot keep their order), each beacon as `representation` says: build the map
    /// with the representation of the metric that will read it. `zoneAreas` are the venue's drawn zones.
    ///
    /// - Throws: ``RadioMapError`` when a spot index is out of range or a fingerprint is empty.
    public init(
        spots: [Spot], fingerprints unordered: [(spot: Int, fingerprint: Fingerprint)],
        representation: SignalRepresentation = .relativePower, zoneAreas: [ZoneArea] = []
    ) throws(RadioMapError) {
        try self.init(spots: spots, fingerprints: unordered, representation: representation, zoneAreas: zoneAreas, layout: .automatic)
    }

    /// As the public initialiser, with the block layout forced by `layout` (tests compare the two).
    init(
        spots: [Spot], fingerprints unordered: [(spot: Int, fingerprint: Fingerprint)],
        representation: SignalRepresentation, zoneAreas: [ZoneArea], layout: BlockLayout
    ) throws(RadioMapError) {
        var beaconSet = Set<BeaconID>()
        for (index, reference) in unordered.enumerated() {
            guard spots.indices.contains(reference.spot) else { throw .spotOutOfRange(row: index) }
            guard !reference.fingerprint.entries.isEmpty else { throw .emptyFingerprint(row: index) }
            beaconSet.formUnion(reference.fingerprint.entries.keys)
        }
        let fingerprints = unordered.enumerated()
            .sorted { ($0.element.spot, $0.offset) < ($1.element.spot, $1.offset) }
            .map(\.element)
        var spotRanges = [Range<Int>](repeating: 0..<0, count: spots.count)
        var start = 0
        while start < fingerprints.count {
            var end = start
            while end < fingerprints.count, fingerprints[end].spot == fingerprints[start].spot { end += 1 }
            spotRanges[fingerprints[start].spot] = start..<end
            start = end
        }
        let beacons = beaconSet.sorted()
        var columnOfBeacon: [BeaconID: Int] = [:]
        for (column, beacon) in beacons.enumerated() { columnOfBeacon[beacon] = column }

        let width = beacons.count
        let stride = 3 * width
        let lanes = Self.lanes
        let blocks = (fingerprints.count + lanes - 1) / lanes
        var presentCount = [Float](repeating: 0, count: blocks * lanes)
        var valueSum = [Float](repeating: 0, count: blocks * lanes)
        var strongIndex = StrongIndexBuilder(beaconCount: width, ranked: Self.rankedBeacons)
        // Every row's entries, one row after another: row `r`'s are `entries[rowStart[r] ..< rowStart[r + 1]]`.
        var entries: [(column: Int, value: Float)] = []
        entries.reserveCapacity(fingerprints.reduce(0) { $0 + $1.fingerprint.entries.count })
        var rowStart = [0]
        rowStart.reserveCapacity(fingerprints.count + 1)
        var rowLevels: [(column: Int, value: Float)] = []
        for (row, reference) in fingerprints.enumerated() {
            rowLevels.removeAll(keepingCapacity: true)
            for (beacon, entry) in reference.fingerprint.entries {
                let value = representation.value(of: entry)
                presentCount[row] += 1
                valueSum[row] += value
                rowLevels.append((columnOfBeacon[beacon]!, value))
            }
            entries.append(contentsOf: rowLevels)
            rowStart.append(entries.count)
            strongIndex.add(row: row, levels: &rowLevels)
        }
        (strongStart, strongBlocks) = strongIndex.finish()
        let storage = BlockStorage(entries: entries, rowStart: rowStart, beaconCount: width, layout: layout)
        self.representation = representation
        self.blockCount = blocks
        self.storage = storage
        if case .decibels = representation {
            decibelLevels = DecibelLevels(storage: storage, beaconCount: width, blockCount: blocks)
        } else {
            decibelLevels = nil
        }
        self.beacons = beacons
        self.zones = ZoneLayout(spots: spots, areas: zoneAreas)
        self.spots = zones.spots
        self.spotOfRow = fingerprints.map(\.spot)
        self.spotRanges = spotRanges
        self.count = fingerprints.count
        self.beaconCount = width
        self.rowStride = stride
        self.presentCount = presentCount
        self.valueSum = valueSum
        self.columnOfBeacon = columnOfBeacon
        (columnRunStart, columnRuns) = Self.blockRunIndex(storage: storage, blockCount: blocks, beaconCount: width)
        let surveyedSpots = spotRanges.count(where: { !$0.isEmpty })
        centroids = blocks >= Locator.smallMapBlocks && fingerprints.count > surveyedSpots
            ? SpotCentroids(
                spots: spots, fingerprints: fingerprints, spotRanges: spotRanges, beacons: beacons,
                representation: representation, layout: layout)
            : nil
    }

    /// The column of `beacon`, nil when no reference fingerprint sees it.
    public func column(of beacon: BeaconID) -> Int? { columnOfBeacon[beacon] }

    /// Lays a live fingerprint out along the map's columns, in the map's ``representation``.
    public func query(for fingerprint: Fingerprint) -> QueryVector {
        var query = QueryVector(beaconCount: beaconCount)
        for (beacon, entry) in fingerprint.entries {
            guard let column = columnOfBeacon[beacon] else {
                query.unmappedBeacons.append(beacon)
                continue
            }
            let value = representation.value(of: entry)
            query.mask[column] = 1
            query.values[column] = value
            query.squares[column] = value * value
            query.presentCount += 1
            query.valueSum += value
        }
        query.unmappedBeacons.sort()
        query.presentColumns = (0..<beaconCount).filter { query.mask[$0] > 0 }
        return query
    }

    /// Bytes of the BLAS layout a query reads in full.
    public var matrixBytes: Int { count * rowStride * MemoryLayout<Float>.stride }

    /// Bytes of the blocks (dense or sparse) a SIMD query reads in full: what bounds a locate on a large map.
    public var compactBytes: Int { storage.valueBytes }
}

/// A map's spots as one row each, for ranking spots before their fingerprints: a spot's row hears every
/// beacon one of its fingerprints hears, each at its mean level over all of them (relative power, or dB
/// above the representation's floor; a fingerprint that does not hear it counts as 0). The union keeps
/// the map's columns, so a query laid out for the map is laid out for this one too.
final class SpotCentroids: Sendable {
    let map: RadioMap

    /// Nil when the centroids' map would not have the same columns (it always does: every beacon is heard
    /// by some fingerprint, so by its spot's centroid) or could not be built.
    init?(
        spots: [Spot], fingerprints: [(spot: Int, fingerprint: Fingerprint)], spotRanges: [Range<Int>], beacons: [BeaconID],
        representation: SignalRepresentation, layout: RadioMap.BlockLayout
    ) {
        var centroids: [(spot: Int, fingerprint: Fingerprint)] = []
        centroids.reserveCapacity(spotRanges.count)
        for (spot, rows) in spotRanges.enumerated() where !rows.isEmpty {
            var sums: [BeaconID: (entry: FingerprintEntry, level: Double, count: Int)] = [:]
            var samples = 0
            for row in rows {
                let fingerprint = fingerprints[row].fingerprint
                samples += fingerprint.sampleCount
                for (beacon, entry) in fingerprint.entries {
                    var sum = sums[beacon] ?? (FingerprintEntry(relativePower: 0, meanRSSI: 0, dispersion: 0, visibility: 0), 0, 0)
                    sum.entry.relativePower += entry.relativePower
                    sum.entry.meanRSSI += entry.meanRSSI
                    sum.entry.dispersion += entry.dispersion
                    sum.entry.visibility += entry.visibility
                    if case .decibels(let floor) = representation { sum.level += max(0, entry.meanRSSI - Double(floor)) }
                    sum.count += 1
                    sums[beacon] = sum
                }
            }
            // Over all the spot's fingerprints, a silent one counting as nothing heard (level 0, relative
            // power 0): a beacon its fingerprints rarely hear stands in the centroid as weak, which the
            // metric charges little for where the query does not hear it either.
            let fingerprintCount = Double(rows.count)
            let entries = sums.mapValues { sum in
                let heard = Double(sum.count)
                let meanRSSI = if case .decibels(let floor) = representation {
                    Double(floor) + sum.level / fingerprintCount
                } else {
                    sum.entry.meanRSSI / heard
                }
                return FingerprintEntry(
                    relativePower: sum.entry.relativePower / Float(fingerprintCount), meanRSSI: meanRSSI,
                    dispersion: sum.entry.dispersion / heard, visibility: sum.entry.visibility / fingerprintCount)
            }
            centroids.append((spot, Fingerprint(entries: entries, sampleCount: samples)))
        }
        guard let map = try? RadioMap(spots: spots, fingerprints: centroids, representation: representation, zoneAreas: [], layout: layout),
            map.beacons == beacons
        else { return nil }
        self.map = map
    }
}

/// A live fingerprint along a ``RadioMap``'s columns.
public struct QueryVector: Sendable, Hashable {
    /// 1 where the query sees the column's beacon.
    public var mask: [Float]
    /// The beacon's value per column in the map's ``RadioMap/representation``, 0 where absent.
    public var values: [Float]
    /// `values` squared.
    public var squares: [Float]
    /// Beacons of the query that the map has columns for.
    public var presentCount: Float = 0
    /// Sum of `values`.
    public var valueSum: Float = 0
    /// Beacons of the query that no reference fingerprint sees (unknown to the survey); they take no
    /// part in matching.
    public var unmappedBeacons: [BeaconID] = []

    /// The columns the query sees, ascending: the only ones the SIMD kernels visit.
    public var presentColumns: [Int] = []

    public init(beaconCount: Int) {
        mask = [Float](repeating: 0, count: beaconCount)
        values = mask
        squares = mask
    }
}

/// Why a radio map could not be built.
public enum RadioMapError: Error, Hashable, Sendable, CustomStringConvertible {
    case spotOutOfRange(row: Int)
    case emptyFingerprint(row: Int)

    public var description: String {
        switch self {
        case .spotOutOfRange(let row): "reference fingerprint #\(row) points at a spot the map does not have"
        case .emptyFingerprint(let row): "reference fingerprint #\(row) sees no beacon"
        }
    }
}
