/// What a venue's survey says about hearing each beacon at each place: per spot, the share of single
/// samples in which each beacon was heard and its mean level there; at any place, those of the nearest
/// spots, weighted by closeness. It is the reference live scans are held against to judge a beacon's
/// health (``ScanEvidence``), built once per venue revision and then only read.
///
/// A place between spots gets the inverse-distance mean of its nearest spot's ``neighbourCount`` nearest
/// spots (the spot itself included), each weighing `1 / (d + spacing / 2)`, `spacing` the median distance
/// from a spot to its nearest neighbour: a place at a spot is mostly that spot, one between two spots
/// both. A beacon a spot never heard counts there as heard in no sample.
public struct BeaconExpectations: Sendable {
    /// The beacons the survey heard, sorted: what observations index.
    public let beacons: [BeaconID]
    /// The venue's spots, in the survey's order.
    public let spots: [Spot]
    /// Per beacon, the spread (dB) of one sample's level about its spot's mean, pooled over every spot that
    /// heard it: how far a single live reading of a healthy beacon strays from the map.
    public let levelSpread: [Float]
    /// The median distance from a spot to the nearest other spot of its floor, metres.
    public let spacing: Double

    private let indexOfBeacon: [BeaconID: Int]
    private let grid: SpotGrid
    /// Spot `s`'s entries are `entryStart[s] ..< entryStart[s + 1]`.
    private let entryStart: [Int32]
    private let entryBeacon: [Int32]
    /// Share of the spot's samples that heard the beacon, 0...1.
    private let entryPresence: [Float]
    /// Mean RSSI of the samples that heard it, dBm.
    private let entryLevel: [Float]
    /// Spot `s`'s nearest spots (itself first) are `neighbours[s * neighbourCount ..< ...]`, -1 padded.
    private let neighbours: [Int32]

    /// How many spots a place's expectation is drawn from.
    public static let neighbourCount = 4

    /// The expectations of `survey` (fingerprints pointing into `spots`). A fingerprint of several samples
    /// weighs as many samples; its `visibility` is the share of them that heard each beacon.
    public init(spots: [Spot], survey: [(spot: Int, fingerprint: Fingerprint)]) {
        var beaconSet = Set<BeaconID>()
        for reference in survey { beaconSet.formUnion(reference.fingerprint.entries.keys) }
        let beacons = beaconSet.sorted()
        var indexOfBeacon: [BeaconID: Int] = [:]
        for (index, beacon) in beacons.enumerated() { indexOfBeacon[beacon] = index }

        // Per spot and beacon: samples heard, Σ level and Σ level² over them; per spot: samples.
        struct Sums { var heard = 0.0, level = 0.0, square = 0.0 }
        var samplesAtSpot = [Double](repeating: 0, count: spots.count)
        var sums = [[Int: Sums]](repeating: [:], count: spots.count)
        for reference in survey where spots.indices.contains(reference.spot) {
            let samples = Double(max(1, reference.fingerprint.sampleCount))
            samplesAtSpot[reference.spot] += samples
            for (beacon, entry) in reference.fingerprint.entries {
                let heard = samples * min(1, max(0, entry.visibility > 0 ? entry.visibility : 1 / samples))
                var sum = sums[reference.spot][indexOfBeacon[beacon]!] ?? Sums()
                sum.heard += heard
                sum.level += heard * entry.meanRSSI
                // A sample's level strays from the spot's mean by the fingerprint's own dispersion and by
                // how far the fingerprint's mean lies from the others'.
                sum.square += heard * (entry.meanRSSI * entry.meanRSSI + entry.dispersion * entry.dispersion)
                sums[reference.spot][indexOfBeacon[beacon]!] = sum
            }
        }
        var entryStart: [Int32] = [0]
        var entryBeacon: [Int32] = []
        var entryPresence: [Float] = []
        var entryLevel: [Float] = []
        var spreadSums = [(square: Double, weight: Double)](repeating: (0, 0), count: beacons.count)
        for spot in spots.indices {
            for (beacon, sum) in sums[spot].sorted(by: { $0.key < $1.key }) where sum.heard > 0 && samplesAtSpot[spot] > 0 {
                let mean = sum.level / sum.heard
                entryBeacon.append(Int32(beacon))
                // n samples that all heard a beacon do not make it certain: at most n / (n + 1), the rule of
                // succession, so one live miss is strong evidence but never infinite.
                let samples = samplesAtSpot[spot]
                entryPresence.append(Float(min(sum.heard / samples, samples / (samples + 1))))
                entryLevel.append(Float(mean))
                spreadSums[beacon].square += max(0, sum.square - sum.heard * mean * mean)
                spreadSums[beacon].weight += sum.heard
            }
            entryStart.append(Int32(entryBeacon.count))
        }
        self.beacons = beacons
        self.spots = spots
        self.indexOfBeacon = indexOfBeacon
        self.entryStart = entryStart
        self.entryBeacon = entryBeacon
        self.entryPresence = entryPresence
        self.entryLevel = entryLevel
        // A beacon heard once has no spread of its own: the usual few dB of a reading stand for it.
        levelSpread = spreadSums.map { $0.weight > 1 ? Float(($0.square / $0.weight).squareRoot()) : 4 }
        grid = SpotGrid(spots: spots)
        (neighbours, spacing) = Self.neighbourLists(of: spots)
    }

    /// Each spot's ``neighbourCount`` nearest spots of its floor (itself first), and the median distance
    /// from a spot to its nearest neighbour (1 m when no floor has two spots). Spots are bucketed into
    /// square cells of about two spots each, and each spot reads the rings of cells around its own until
    /// no unread cell can hold a nearer spot: linear in the survey, where comparing every pair would take
    /// seconds at 100,000 spots.
    private static func neighbourLists(of spots: [Spot]) -> ([Int32], Double) {
        let count = neighbourCount
        var lists = [Int32](repeating: -1, count: spots.count * count)
        var nearestDistances: [Double] = []
        var byFloor: [Int: [Int]] = [:]
        for (index, spot) in spots.enumerated() where spot.x.isFinite && spot.y.isFinite {
            byFloor[spot.floor, default: []].append(index)
        }
        for indices in byFloor.values {
            let xs = indices.map { spots[$0].x }, ys = indices.map { spots[$0].y }
            let minX = xs.min()!, minY = ys.min()!
            let width = max(xs.max()! - minX, 1e-6), height = max(ys.max()! - minY, 1e-6)
            let cell = max((width * height / Double(indices.count) * 2).squareRoot(), 1e-3)
            let columns = min(Int(width / cell) + 1, 4 * indices.count), rows = min(Int(height / cell) + 1, 4 * indices.count)
            var cells: [Int: [Int]] = [:]
            func cellOf(_ spot: Int) -> (Int, Int) {
                (min(columns - 1, Int((spots[spot].x - minX) / cell)), min(rows - 1, Int((spots[spot].y - minY) / cell)))
            }
            for spot in indices {
                let (column, row) = cellOf(spot)
                cells[row * columns + column, default: []].append(spot)
            }
            var found: [(spot: Int, distance: Double)] = []
            for spot in indices {
                let here = spots[spot]
                let (column, row) = cellOf(spot)
                found.removeAll(keepingCapacity: true)
                var ring = 0
                while true {
                    for cellRow in max(0, row - ring)...min(rows - 1, row + ring) {
                        for cellColumn in max(0, column - ring)...min(columns - 1, column + ring)
                        where max(abs(cellRow - row), abs(cellColumn - column)) == ring {
                            for other in cells[cellRow * columns + cellColumn] ?? [] {
                                found.append((other, spots[other].planarDistance(toX: here.x, y: here.y)))
                            }
                        }
                    }
                    // Every unread cell lies at least `ring` cells away.
                    let covered = ring >= max(columns, rows)
                    found.sort { ($0.distance, $0.spot != spot ? 1 : 0, $0.spot) < ($1.distance, $1.spot != spot ? 1 : 0, $1.spot) }
                    if covered || (found.count >= count && found[count - 1].distance <= Double(ring) * cell) { break }
                    ring += 1
                }
                for (slot, neighbour) in found.prefix(count).enumerated() { lists[spot * count + slot] = Int32(neighbour.spot) }
                if found.count > 1 { nearestDistances.append(found[1].distance) }
            }
        }
        nearestDistances.sort()
        let spacing = nearestDistances.isEmpty ? 1 : max(0.1, nearestDistances[nearestDistances.count / 2])
        return (lists, spacing)
    }

    /// The index of `beacon` in ``beacons``, nil when the survey never heard it.
    public func index(of beacon: BeaconID) -> Int? { indexOfBeacon[beacon] }

    /// The spot nearest to a place: where its evidence is counted.
    public func place(x: Double, y: Double, floor: Int) -> Int? { grid.nearest(toX: x, y: y, floor: floor) }

    /// Fills `expectation` with what the survey expects at (`x`, `y`) on `floor`, leaving spot `excluded`
    /// out (the cross-validation of a survey against itself); false when the floor has no spot.
    @discardableResult
    public func expect(atX x: Double, y: Double, floor: Int, excluding excluded: Int? = nil, into expectation: inout Expectation) -> Bool {
        expectation.clear()
        guard let nearest = grid.nearest(toX: x, y: y, floor: floor) else { return false }
        let count = Self.neighbourCount
        var totalWeight = 0.0
        for slot in 0..<count {
            let spot = Int(neighbours[nearest * count + slot])
            guard spot >= 0, spot != excluded else { continue }
            let weight = 1 / (spots[spot].planarDistance(toX: x, y: y) + spacing / 2)
            totalWeight += weight
            for entry in Int(entryStart[spot])..<Int(entryStart[spot + 1]) {
                expectation.add(
                    beacon: Int(entryBeacon[entry]), weight: weight, presence: Double(entryPresence[entry]), level: Double(entryLevel[entry]))
            }
        }
        guard totalWeight > 0 else { return false }
        expectation.finish(totalWeight: totalWeight, place: nearest)
        return true
    }

    /// What the survey expects at one place: per beacon, the share of samples that hear it and its mean
    /// level where heard. Reused from scan to scan: nothing is allocated once it has grown to the venue.
    public struct Expectation: Sendable {
        /// The beacons with any chance of being heard here (indices into ``BeaconExpectations/beacons``).
        public private(set) var beacons: [Int] = []
        private var presenceSum: [Double]
        private var levelSum: [Double]
        private var totalWeight = 1.0
        /// The spot nearest to the place.
        public private(set) var place = -1

        public init(beaconCount: Int) {
            presenceSum = [Double](repeating: 0, count: beaconCount)
            levelSum = presenceSum
        }

        mutating func clear() {
            for beacon in beacons {
                presenceSum[beacon] = 0
                levelSum[beacon] = 0
            }
            beacons.removeAll(keepingCapacity: true)
            place = -1
        }

        mutating func add(beacon: Int, weight: Double, presence: Double, level: Double) {
            if presenceSum[beacon] == 0 { beacons.append(beacon) }
            presenceSum[beacon] += weight * presence
            levelSum[beacon] += weight * presence * level
        }

        mutating func finish(totalWeight: Double, place: Int) {
            self.totalWeight = totalWeight
            self.place = place
        }

        /// The share of samples expected to hear `beacon` here, 0...1.
        public func presence(of beacon: Int) -> Double {
            presenceSum[beacon] / totalWeight
        }

        /// `beacon`'s expected level here (dBm), nil where it is never heard.
        public func level(of beacon: Int) -> Double? {
            presenceSum[beacon] > 0 ? levelSum[beacon] / presenceSum[beacon] : nil
        }
    }
}
