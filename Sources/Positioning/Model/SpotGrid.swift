/// A venue's spots bucketed per floor into square cells, built once with a radio map: which spot is nearest
/// to a point, and each floor's bounding box, without reading every spot.
///
/// Every answer names a position's spot (the estimator, the tracker, the zone of a point outside the drawn
/// ones), so a scan over all spots made each locate linear in the survey: 100,000 spots at 1,000,000
/// fingerprints. The grid reads the cells around the point, ring after ring, until no unread cell can hold
/// a nearer spot. Its answers are those of ``Swift/Collection/nearestIndex(toX:y:floor:)`` over ``spots``,
/// ties included (the spot met first wins): the same squared distances are compared, and a ring is read
/// whenever it could hold a spot at the same distance.
public struct SpotGrid: Hashable, Sendable {
    /// The spots, in the order answers index.
    public let spots: [Spot]
    private let floors: [Int: FloorCells]

    /// One floor's spots, cell by cell.
    private struct FloorCells: Hashable, Sendable {
        let extent: PlanarExtent?
        let originX: Double
        let originY: Double
        let cellSize: Double
        let columns: Int
        let rows: Int
        /// Cell `c`'s entries are `cellStart[c] ..< cellStart[c + 1]`; cells are row after row.
        let cellStart: [Int32]
        /// Per entry, its spot (an index into ``SpotGrid/spots``) and place, read together. A spot with a
        /// coordinate that is not finite is in no cell: its distance is never finite, so it is never nearest.
        let entrySpot: [Int32]
        let entryX: [Double]
        let entryY: [Double]

        /// The cell along one axis holding `coordinate` (finite), clamped to the grid: a point outside it
        /// starts from the nearest edge cell.
        @inline(__always)
        func cell(_ coordinate: Double, origin: Double, count: Int) -> Int {
            let offset = ((coordinate - origin) / cellSize).rounded(.down)
            guard offset > 0 else { return 0 }
            return offset >= Double(count - 1) ? count - 1 : Int(offset)
        }
    }

    /// About this many spots per cell on a floor evenly surveyed: few to compare, few cells to visit.
    private static let spotsPerCell = 2.0
    /// A floor's cells are capped at this many per spot, so a floor whose spots cluster in two far corners
    /// does not lay out an empty plane.
    private static let maximumCellsPerSpot = 4

    public init(spots: [Spot]) {
        self.spots = spots
        var indicesByFloor: [Int: [Int]] = [:]
        for (index, spot) in spots.enumerated() { indicesByFloor[spot.floor, default: []].append(index) }
        floors = indicesByFloor.mapValues { Self.cells(of: $0, in: spots) }
    }

    /// The index in ``spots`` of the spot of `floor` nearest to (`x`, `y`), nil when the floor has none;
    /// of spots at the same distance, the first in ``spots``.
    public func nearest(toX x: Double, y: Double, floor: Int) -> Int? {
        guard let cells = floors[floor] else { return nil }
        guard x.isFinite, y.isFinite, cells.columns > 0 else { return spots.nearestIndex(toX: x, y: y, floor: floor) }
        var best = Int.max, bestDistance = Double.infinity

        @inline(__always) func visit(_ cell: Int) {
            for entry in Int(cells.cellStart[cell])..<Int(cells.cellStart[cell + 1]) {
                // The same expression as the scan over all spots, so the same rounding decides; that scan
                // takes only distances under infinity, the first of equal ones.
                let spotX = cells.entryX[entry], spotY = cells.entryY[entry], spot = Int(cells.entrySpot[entry])
                let distance = (spotX - x) * (spotX - x) + (spotY - y) * (spotY - y)
                if distance < bestDistance || (distance == bestDistance && distance < .infinity && spot < best) {
                    best = spot
                    bestDistance = distance
                }
            }
        }

        let column = cells.cell(x, origin: cells.originX, count: cells.columns)
        let row = cells.cell(y, origin: cells.originY, count: cells.rows)
        var ring = 0
        while true {
            let left = column - ring, right = column + ring, bottom = row - ring, top = row + ring
            for cellRow in Swift.max(0, bottom)...min(cells.rows - 1, top) {
                let rowStart = cellRow * cells.columns
                if cellRow == bottom || cellRow == top {
                    for cellColumn in Swift.max(0, left)...min(cells.columns - 1, right) { visit(rowStart + cellColumn) }
                } else {
                    // Between the ring's edge rows, only its two edge columns are new.
                    if left >= 0 { visit(rowStart + left) }
                    if right < cells.columns, right != left { visit(rowStart + right) }
                }
            }
            let readsEverything = left <= 0 && bottom <= 0 && right >= cells.columns - 1 && top >= cells.rows - 1
            if readsEverything { break }
            // The nearest any unread cell can be: the distance to the read square's nearest open side.
            var reach = Double.infinity
            if left > 0 { reach = Swift.min(reach, x - (cells.originX + Double(left) * cells.cellSize)) }
            if right < cells.columns - 1 { reach = Swift.min(reach, cells.originX + Double(right + 1) * cells.cellSize - x) }
            if bottom > 0 { reach = Swift.min(reach, y - (cells.originY + Double(bottom) * cells.cellSize)) }
            if top < cells.rows - 1 { reach = Swift.min(reach, cells.originY + Double(top + 1) * cells.cellSize - y) }
            // Shrunk by a hair so that rounding (in placing spots, and in the bound) never stops the search
            // before a tie.
            let guarded = Swift.max(0, reach * (1 - 1e-9) - 1e-9 * (cells.cellSize + abs(x) + abs(y)))
            if best != Int.max, guarded * guarded > bestDistance { break }
            ring += 1
        }
        return best == Int.max ? nil : best
    }

    /// The bounding box of `floor`'s spots (``PlanarExtent/init(spots:floor:)``), nil when it has none.
    public func extent(ofFloor floor: Int) -> PlanarExtent? { floors[floor]?.extent ?? nil }

    private static func cells(of indices: [Int], in spots: [Spot]) -> FloorCells {
        let floorSpots = indices.map { spots[$0] }
        let extent = PlanarExtent(spots: floorSpots, floor: floorSpots[0].floor)
        let placed = indices.filter { spots[$0].x.isFinite && spots[$0].y.isFinite }
        guard let first = placed.first else {
            return FloorCells(
                extent: extent, originX: 0, originY: 0, cellSize: 1, columns: 0, rows: 0, cellStart: [0],
                entrySpot: [], entryX: [], entryY: [])
        }
        var minX = spots[first].x, maxX = minX, minY = spots[first].y, maxY = minY
        for index in placed {
            minX = Swift.min(minX, spots[index].x)
            maxX = Swift.max(maxX, spots[index].x)
            minY = Swift.min(minY, spots[index].y)
            maxY = Swift.max(maxY, spots[index].y)
        }
        let width = maxX - minX, height = maxY - minY
        let count = Double(placed.count)
        // Cells of about `spotsPerCell` spots if the floor were evenly covered, a side at least a
        // millionth of the floor's (every spot in one place makes one cell).
        var cellSize = Swift.max((width * height * spotsPerCell / count).squareRoot(), Swift.max(width, height) * 1e-6, 1e-9)
        var columns = 0, rows = 0
        while true {
            columns = Swift.min(Int((width / cellSize).rounded(.down)) + 1, 1 << 20)
            rows = Swift.min(Int((height / cellSize).rounded(.down)) + 1, 1 << 20)
            if columns * rows <= Swift.max(16, maximumCellsPerSpot * placed.count) { break }
            cellSize *= 2
        }
        var cellOf = [Int](repeating: 0, count: placed.count)
        var cellStart = [Int32](repeating: 0, count: columns * rows + 1)
        let layout = FloorCells(
            extent: extent, originX: minX, originY: minY, cellSize: cellSize, columns: columns, rows: rows,
            cellStart: [], entrySpot: [], entryX: [], entryY: [])
        for (entry, index) in placed.enumerated() {
            let cell = layout.cell(spots[index].y, origin: minY, count: rows) * columns
                + layout.cell(spots[index].x, origin: minX, count: columns)
            cellOf[entry] = cell
            cellStart[cell + 1] += 1
        }
        for cell in 0..<(columns * rows) { cellStart[cell + 1] += cellStart[cell] }
        var next = cellStart.dropLast().map { Int($0) }
        var entrySpot = [Int32](repeating: 0, count: placed.count)
        var entryX = [Double](repeating: 0, count: placed.count)
        var entryY = [Double](repeating: 0, count: placed.count)
        for (entry, index) in placed.enumerated() {
            let slot = next[cellOf[entry]]
            next[cellOf[entry]] += 1
            entrySpot[slot] = Int32(index)
            entryX[slot] = spots[index].x
            entryY[slot] = spots[index].y
        }
        return FloorCells(
            extent: extent, originX: minX, originY: minY, cellSize: cellSize, columns: columns, rows: rows,
            cellStart: cellStart, entrySpot: entrySpot, entryX: entryX, entryY: entryY)
    }
}
