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
    /// The most blocks one spot's rows reach into: a selection of `n` spots holds at most `n` times as many.
    package let widestSpotBlocks: Int
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
    @_spi(Profiling) public let decibelLevels: DecibelLevels?
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

    /// The most beacons a map in decibels holds (65,535): its levels number their columns in 16 bits, which
    /// the coarse pass over a large map reads with every pair of columns (``RadioMapError/tooManyBeacons(count:limit:)``).
    public static let mostBeaconsInDecibels = DecibelLevels.widest

    /// Lays out `fingerprints` (each attached to an index into `spots`) as dense matrices, ordered by spot
    /// (fingerprints of one spot keep their order), each beacon as `representation` says: build the map
    /// with the representation of the metric that will read it. `zoneAreas` are the venue's drawn zones.
    ///
    /// - Throws: ``RadioMapError`` when a spot index is out of range, a fingerprint is empty, or a map in
    ///   decibels would hold more than ``mostBeaconsInDecibels`` beacons.
    public init(
        spots: [Spot], fingerprints unordered: [(spot: Int, fingerprint: Fingerprint)],
        representation: SignalRepresentation = .relativePower, zoneAreas: [ZoneArea] = []
    ) throws(RadioMapError) {
        try self.init(spots: spots, fingerprints: unordered, representation: representation, zoneAreas: zoneAreas, layout: .automatic)
    }

    /// As the public initialiser, with the block layout forced by `layout` (tests compare the two), and
    /// without spot centroids where `buildsCentroids` is false (to time them apart).
    @_spi(Profiling) public init(
        spots: [Spot], fingerprints unordered: [(spot: Int, fingerprint: Fingerprint)],
        representation: SignalRepresentation, zoneAreas: [ZoneArea], layout: BlockLayout, buildsCentroids: Bool = true,
        coarsePass: CoarsePass = .automatic
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
        if case .decibels = representation, beaconSet.count > Self.mostBeaconsInDecibels {
            throw .tooManyBeacons(count: beaconSet.count, limit: Self.mostBeaconsInDecibels)
        }
        let beacons = beaconSet.sorted()
        var columnOfBeacon: [BeaconID: Int] = [:]
        for (column, beacon) in beacons.enumerated() { columnOfBeacon[beacon] = column }

        let blocks = (fingerprints.count + Self.lanes - 1) / Self.lanes
        let surveyedSpots = zip(fingerprints, fingerprints.dropFirst()).count(where: { $0.spot != $1.spot }) + (fingerprints.isEmpty ? 0 : 1)
        var centroids = buildsCentroids && blocks >= Locator.smallMapBlocks && fingerprints.count > surveyedSpots
            ? CentroidRows(beaconCount: beacons.count, representation: representation) : nil
        var rows = LaidOutRows()
        rows.entries.reserveCapacity(fingerprints.reduce(0) { $0 + $1.fingerprint.entries.count })
        rows.rowStart.reserveCapacity(fingerprints.count + 1)
        rows.spotOfRow.reserveCapacity(fingerprints.count)
        for (row, reference) in fingerprints.enumerated() {
            // Rows come in spot order: a spot's centroid is complete when the next spot's first row comes.
            if row > 0, fingerprints[row - 1].spot != reference.spot { centroids?.finishSpot(fingerprints[row - 1].spot) }
            for (beacon, entry) in reference.fingerprint.entries {
                let column = columnOfBeacon[beacon]!
                rows.entries.append((column, representation.value(of: entry)))
                centroids?.add(entry, column: column)
            }
            rows.rowStart.append(rows.entries.count)
            rows.spotOfRow.append(reference.spot)
            centroids?.finishFingerprint()
        }
        if let last = fingerprints.last { centroids?.finishSpot(last.spot) }
        let centroidMap = centroids.map {
            SpotCentroids(map: RadioMap(
                rows: $0.rows, spots: spots, beacons: beacons, columnOfBeacon: columnOfBeacon, representation: representation,
                zoneAreas: [], layout: layout, centroids: nil, coarsePass: .never))
        }
        self.init(
            rows: rows, spots: spots, beacons: beacons, columnOfBeacon: columnOfBeacon, representation: representation,
            zoneAreas: zoneAreas, layout: layout, centroids: centroidMap, coarsePass: coarsePass)
    }

    /// Lays out `rows` (in spot order, along the columns of `beacons`) as blocks with their indexes.
    private init(
        rows: LaidOutRows, spots: [Spot], beacons: [BeaconID], columnOfBeacon: [BeaconID: Int],
        representation: SignalRepresentation, zoneAreas: [ZoneArea], layout: BlockLayout, centroids: SpotCentroids?,
        coarsePass: CoarsePass
    ) {
        let rowCount = rows.spotOfRow.count
        var spotRanges = [Range<Int>](repeating: 0..<0, count: spots.count)
        var start = 0
        while start < rowCount {
            var end = start
            while end < rowCount, rows.spotOfRow[end] == rows.spotOfRow[start] { end += 1 }
            spotRanges[rows.spotOfRow[start]] = start..<end
            start = end
        }
        let width = beacons.count
        let lanes = Self.lanes
        let blocks = (rowCount + lanes - 1) / lanes
        var presentCount = [Float](repeating: 0, count: blocks * lanes)
        var valueSum = [Float](repeating: 0, count: blocks * lanes)
        var strongIndex = StrongIndexBuilder(beaconCount: width, ranked: Self.rankedBeacons)
        var rowLevels: [(column: Int, value: Float)] = []
        for row in 0..<rowCount {
            rowLevels.removeAll(keepingCapacity: true)
            for entry in rows.entries[rows.rowStart[row]..<rows.rowStart[row + 1]] {
                presentCount[row] += 1
                valueSum[row] += entry.value
                rowLevels.append(entry)
            }
            strongIndex.add(row: row, levels: &rowLevels)
        }
        (strongStart, strongBlocks) = strongIndex.finish()
        let storage = BlockStorage(entries: rows.entries, rowStart: rows.rowStart, beaconCount: width, layout: layout)
        self.representation = representation
        self.blockCount = blocks
        self.storage = storage
        if case .decibels = representation {
            decibelLevels = DecibelLevels(storage: storage, beaconCount: width, blockCount: blocks, coarsePass: coarsePass)
        } else {
            decibelLevels = nil
        }
        self.beacons = beacons
        self.zones = ZoneLayout(spots: spots, areas: zoneAreas)
        self.spots = zones.spots
        self.spotOfRow = rows.spotOfRow
        self.spotRanges = spotRanges
        self.widestSpotBlocks = spotRanges.lazy.filter { !$0.isEmpty }
            .map { ($0.upperBound + lanes - 1) / lanes - $0.lowerBound / lanes }.max() ?? 0
        self.count = rowCount
        self.beaconCount = width
        self.rowStride = 3 * width
        self.presentCount = presentCount
        self.valueSum = valueSum
        self.columnOfBeacon = columnOfBeacon
        (columnRunStart, columnRuns) = Self.blockRunIndex(storage: storage, blockCount: blocks, beaconCount: width)
        self.centroids = centroids
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
/// the map's columns, so a query laid out for the map is laid out for this one too. A class: a map holds
/// its centroids' map, which a struct cannot hold inline.
final class SpotCentroids: Sendable {
    let map: RadioMap

    init(map: RadioMap) {
        self.map = map
    }
}

/// Rows laid out along a map's columns, in spot order: row `r`'s entries are
/// `entries[rowStart[r] ..< rowStart[r + 1]]`, its spot `spotOfRow[r]`.
struct LaidOutRows {
    var entries: [(column: Int, value: Float)] = []
    var rowStart = [0]
    var spotOfRow: [Int] = []
}

/// Each spot's centroid row (``SpotCentroids``), summed along the map's columns while the map's own rows are
/// laid out in spot order: a dense sum per column and the columns touched, so no beacon is hashed again
/// and nothing is allocated per spot. The sums are added in row order, as a spot's fingerprints come.
struct CentroidRows {
    private let representation: SignalRepresentation
    /// Per column: Σ level above the floor (decibels) or Σ relative power, over the spot's fingerprints so far.
    private var levelSums: [Double]
    private var powerSums: [Float]
    private var heard: [Bool]
    private var touched: [Int] = []
    private var fingerprints = 0
    private(set) var rows = LaidOutRows()

    init(beaconCount: Int, representation: SignalRepresentation) {
        self.representation = representation
        levelSums = [Double](repeating: 0, count: beaconCount)
        powerSums = [Float](repeating: 0, count: beaconCount)
        heard = [Bool](repeating: false, count: beaconCount)
    }

    mutating func add(_ entry: FingerprintEntry, column: Int) {
        if !heard[column] {
            heard[column] = true
            touched.append(column)
        }
        switch representation {
        case .relativePower: powerSums[column] += entry.relativePower
        case .decibels(let floor): levelSums[column] += max(0, entry.meanRSSI - Double(floor))
        }
    }

    mutating func finishFingerprint() { fingerprints += 1 }

    /// Appends `spot`'s row: over all its fingerprints, a silent one counting as nothing heard (level 0,
    /// relative power 0), so a beacon its fingerprints rarely hear stands in the centroid as weak, which
    /// the metric charges little for where the query does not hear it either.
    mutating func finishSpot(_ spot: Int) {
        touched.sort()
        let count = Double(fingerprints)
        for column in touched {
            let value: Float = switch representation {
            case .relativePower: powerSums[column] / Float(count)
            case .decibels(let floor):
                // Through the representation, as a fingerprint's level is rounded.
                representation.value(
                    of: FingerprintEntry(relativePower: 0, meanRSSI: Double(floor) + levelSums[column] / count, dispersion: 0, visibility: 0))
            }
            rows.entries.append((column, value))
            levelSums[column] = 0
            powerSums[column] = 0
            heard[column] = false
        }
        rows.rowStart.append(rows.entries.count)
        rows.spotOfRow.append(spot)
        touched.removeAll(keepingCapacity: true)
        fingerprints = 0
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
    /// A map in decibels holds at most `limit` beacons (``RadioMap/mostBeaconsInDecibels``); the survey
    /// heard `count`.
    case tooManyBeacons(count: Int, limit: Int)

    public var description: String {
        switch self {
        case .spotOutOfRange(let row): "reference fingerprint #\(row) points at a spot the map does not have"
        case .emptyFingerprint(let row): "reference fingerprint #\(row) sees no beacon"
        case .tooManyBeacons(let count, let limit):
            "the survey hears \(count) beacons; a radio map in decibels holds at most \(limit) (remove beacons that are not the venue's)"
        }
    }
}
