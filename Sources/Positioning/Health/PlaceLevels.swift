/// A beacon's level at each place as live traffic hears it: per place (nearest spot), the running mean of
/// its residuals against the survey there, over the ``capacity`` places heard most recently. A change of
/// the beacon's level is measured against it, not against the survey alone.
///
/// The survey can be off at a place from the first reading on: right by a beacon its level climbs faster
/// than any surveyed spot shows, and visitors crowd there (a bar, a stand). Measured against the survey,
/// such a place reads as a shift for as long as the crowd stays; measured against its own level, it reads
/// as one only until the place has a few readings. A change of the beacon's power comes at one time and
/// shows at every place against that place's level, until the places have learned it; once it is named,
/// what they learned of it is taken back (``rollBack()``).
package struct PlaceLevels: Hashable, Sendable, Codable {
    package struct Entry: Hashable, Sendable, Codable {
        package var place: Int32
        var mean: Float
        var count: Int32
        /// The level-observation index of its newest reading: the stalest place is dropped for a new one.
        var last: Int32
        /// Its mean and count when the level statistics were last both at 0 (nil: heard only since).
        var settled: Settled?
    }

    struct Settled: Hashable, Sendable, Codable {
        var mean: Float
        var count: Int32
    }

    /// Places followed per beacon.
    package static let capacity = 64
    /// Readings a place's mean spans at most: beyond, each new reading weighs a `memory`-th.
    static let memory: Int32 = 32

    package private(set) var entries: [Entry] = []

    package init() {}

    /// The median of the places' levels: the beacon's level as the venue hears it (0, the survey's,
    /// before any).
    package func venueLevel() -> Double {
        guard !entries.isEmpty else { return 0 }
        let means = entries.map(\.mean).sorted()
        let middle = means.count / 2
        return Double(means.count % 2 == 1 ? means[middle] : (means[middle - 1] + means[middle]) / 2)
    }

    /// The level a reading at `place` is measured against: the place's mean, each of its readings weighing
    /// one against `prior` readings of the venue's level (a place's first reading alone is as noisy as any
    /// reading); the venue's level at a place not heard yet.
    package func reference(at place: Int32, prior: Double) -> Double {
        let venue = venueLevel()
        guard let entry = entries.first(where: { $0.place == place }) else { return venue }
        let count = Double(entry.count)
        return (count * Double(entry.mean) + prior * venue) / (count + prior)
    }

    /// Learns `residual` (dB, net of any offset matching already corrects by) at `place`.
    package mutating func record(place: Int32, residual: Double, index: Int32) {
        if let slot = entries.firstIndex(where: { $0.place == place }) {
            var entry = entries[slot]
            entry.count = min(entry.count + 1, Self.memory)
            entry.mean += (Float(residual) - entry.mean) / Float(entry.count)
            entry.last = index
            entries[slot] = entry
            return
        }
        let entry = Entry(place: place, mean: Float(residual), count: 1, last: index, settled: nil)
        if entries.count < Self.capacity {
            entries.append(entry)
        } else if let stalest = entries.indices.min(by: { entries[$0].last < entries[$1].last }) {
            entries[stalest] = entry
        }
    }

    /// Marks every place's level as settled: no change is under way (both level statistics at 0).
    package mutating func settle() {
        for slot in entries.indices {
            entries[slot].settled = Settled(mean: entries[slot].mean, count: entries[slot].count)
        }
    }

    /// Takes back what the places learned since they were last settled: a change was named, and what they
    /// took in of it while it was measured would otherwise hide it (places heard only since are dropped).
    package mutating func rollBack() {
        entries = entries.compactMap { entry in
            guard let settled = entry.settled else { return nil }
            var rolled = entry
            rolled.mean = settled.mean
            rolled.count = settled.count
            return rolled
        }
    }
}
