import Synchronization

/// How a ``RadioMap`` keeps the values of its blocks of 8 fingerprints (``RadioMap/lanes``).
///
/// A small venue's fingerprints hear most of its beacons, and a block is best stored dense: every column,
/// so the kernels visit just the query's columns at a fixed offset. A large venue's fingerprints hear a
/// fraction of its beacons (a floor's, a wing's: a quarter of 400 on the 4-floor synthetic venue), and a
/// dense block is then mostly ``RadioMap/absent``: a query reads one scattered cache line per beacon it hears
/// whether the block hears it or not. Stored sparse, a block lists the columns its fingerprints hear and
/// keeps only those, contiguously, so a locate streams a few kilobytes per block and the map takes a
/// fraction of the memory.
enum BlockStorage: Sendable {
    /// `blockCount * beaconCount * lanes` floats: beacon `c` of row `r` at
    /// `(r / lanes) * beaconCount * lanes + c * lanes + r % lanes`.
    case dense(values: [Float])
    /// Block `b` keeps the columns `columns[columnStart[b] ..< columnStart[b + 1]]` (ascending, each heard by
    /// at least one of its rows), the `k`-th of them at `values[(columnStart[b] + k) * lanes ..<` `+ lanes]`.
    case sparse(columnStart: [Int], columns: [Int32], values: [Float])

    /// Stored blocks are sparse where they keep at most this share of the dense layout's columns; above it
    /// the column lists would cost more than the absent values they save.
    static let sparseBelowShare = 0.5

    /// Lays out rows of `(column, value)` entries (row `r`'s are `entries[rowStart[r] ..< rowStart[r + 1]]`) in
    /// blocks of ``RadioMap/lanes``, sparse when that keeps at most ``sparseBelowShare`` of the dense layout
    /// (or as `layout` forces, for tests).
    init(entries: [(column: Int, value: Float)], rowStart: [Int], beaconCount width: Int, layout: RadioMap.BlockLayout) {
        let lanes = RadioMap.lanes, rowCount = rowStart.count - 1
        let blockCount = (rowCount + lanes - 1) / lanes
        func row(_ index: Int) -> ArraySlice<(column: Int, value: Float)> { entries[rowStart[index]..<rowStart[index + 1]] }
        // The columns each block hears, ascending.
        var columnStart = [Int](repeating: 0, count: blockCount + 1)
        var columns: [Int32] = []
        var heard = [Bool](repeating: false, count: width)
        for block in 0..<blockCount {
            columnStart[block] = columns.count
            let blockEntries = entries[rowStart[block * lanes]..<rowStart[min(rowCount, (block + 1) * lanes)]]
            for entry in blockEntries { heard[entry.column] = true }
            let first = columns.count
            // Each heard column once: the flag is cleared as the column is listed.
            for entry in blockEntries where heard[entry.column] {
                columns.append(Int32(entry.column))
                heard[entry.column] = false
            }
            columns[first...].sort()
        }
        columnStart[blockCount] = columns.count
        let sparse: Bool
        switch layout {
        case .automatic: sparse = Double(columns.count) <= Self.sparseBelowShare * Double(blockCount * width)
        case .dense: sparse = false
        case .sparse: sparse = true
        }
        if sparse {
            var values = [Float](repeating: RadioMap.absent, count: columns.count * lanes)
            // Where each column of the current block sits in `values`, by column.
            var slotOfColumn = [Int](repeating: 0, count: width)
            for block in 0..<blockCount {
                for index in columnStart[block]..<columnStart[block + 1] { slotOfColumn[Int(columns[index])] = index }
                for index in (block * lanes)..<min(rowCount, (block + 1) * lanes) {
                    for entry in row(index) { values[slotOfColumn[entry.column] * lanes + index % lanes] = entry.value }
                }
            }
            self = .sparse(columnStart: columnStart, columns: columns, values: values)
        } else {
            var values = [Float](repeating: RadioMap.absent, count: blockCount * width * lanes)
            for index in 0..<rowCount {
                for entry in row(index) { values[(index / lanes) * width * lanes + entry.column * lanes + index % lanes] = entry.value }
            }
            self = .dense(values: values)
        }
    }

    /// Bytes of values a query would read if it read every block.
    var valueBytes: Int {
        switch self {
        case .dense(let values): values.count * MemoryLayout<Float>.stride
        case .sparse(_, let columns, let values):
            values.count * MemoryLayout<Float>.stride + columns.count * MemoryLayout<Int32>.stride
        }
    }

    /// Calls `body(column, offset)` for every column `block` stores, ascending, with `offset` the index in the
    /// storage's values of its first lane.
    func forEachColumn(ofBlock block: Int, beaconCount width: Int, _ body: (_ column: Int, _ offset: Int) -> Void) {
        let lanes = RadioMap.lanes
        switch self {
        case .dense:
            for column in 0..<width { body(column, block * width * lanes + column * lanes) }
        case .sparse(let columnStart, let columns, _):
            for index in columnStart[block]..<columnStart[block + 1] { body(Int(columns[index]), index * lanes) }
        }
    }

    /// The stored values, dense or sparse.
    var values: [Float] {
        switch self {
        case .dense(let values), .sparse(_, _, let values): values
        }
    }
}

extension RadioMap {
    /// How a map stores its blocks: chosen from the survey unless a test forces it.
    @_spi(Profiling) public enum BlockLayout: Sendable {
        case automatic, dense, sparse
    }

    /// Whether a sparse decibel map keeps its levels rounded to 1/2 dB too (``DecibelLevels/coarse``), for a
    /// locate that bounds every candidate's distance reading half the bytes and reads the exact levels only
    /// of the blocks that can hold an answer.
    @_spi(Profiling) public enum CoarsePass: Sendable {
        /// Where the map outgrows the cache (``DecibelLevels/outgrowsCache``) and the CPU runs a loop in C
        /// (AVX2, or AVX-512 VNNI): the pass saves reads from memory, not arithmetic. On an AMD EPYC without
        /// AVX-512 it took a locate among 1,000,000 fingerprints from 946 to 841 µs (`PROFILE_COARSE=compare
        /// Profile locate 1000000 5000 large spots1536-1`, means of 4 turns).
        case automatic
        /// Always (tests, and `Profile`'s comparisons); on a CPU without AVX2 the portable coarse loop reads them.
        case always
        /// Never: the spot centroids, whose selection is not a ranking the exact pass could finish.
        case never
    }
}

/// A layout derived from a map's blocks, laid out the first time someone asks and kept for the map's life:
/// the BLAS matrix (``RadioMap/matrix``) and, for a sparse map, the dense ``RadioMap/compact``.
final class DerivedLayout: Sendable {
    private let built = Mutex<[Float]?>(nil)

    func value(_ build: () -> [Float]) -> [Float] {
        built.withLock { built in
            if let built { return built }
            let layout = build()
            built = layout
            return layout
        }
    }
}

extension RadioMap {
    /// The dense matrix of ``compact``, expanded from the blocks (tests and tools; the kernels read the blocks).
    package func expandedCompact() -> [Float] {
        let width = beaconCount, lanes = Self.lanes
        var compact = [Float](repeating: Self.absent, count: blockCount * width * lanes)
        let values = storage.values
        for block in 0..<blockCount {
            storage.forEachColumn(ofBlock: block, beaconCount: width) { column, offset in
                for lane in 0..<lanes { compact[block * width * lanes + column * lanes + lane] = values[offset + lane] }
            }
        }
        return compact
    }

    /// The BLAS matrix of ``matrix``, laid out from the blocks.
    func blasMatrix() -> [Float] {
        let width = beaconCount, lanes = Self.lanes
        var matrix = [Float](repeating: 0, count: count * rowStride)
        let values = storage.values
        for block in 0..<blockCount {
            storage.forEachColumn(ofBlock: block, beaconCount: width) { column, offset in
                for row in CompactKernels.rows(of: block, in: self) {
                    let value = values[offset + row % lanes]
                    guard value != Self.absent else { continue }
                    let base = row * rowStride
                    matrix[base + column] = 1
                    matrix[base + width + column] = value
                    matrix[base + 2 * width + column] = value * value
                }
            }
        }
        return matrix
    }
}
