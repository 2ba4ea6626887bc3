import Metrics
package import Positioning
import Synchronization

/// Gathers, on the request path, what located scans say about a venue's beacons: samples that heard
/// something with the position they were given, for the ``BeaconHealthService`` to turn into evidence off
/// the request path.
///
/// The evidence a venue needs does not grow with its traffic: a state rests on tens of samples from a few
/// places, and thousands a second from one busy venue would only cost the daemon a core. So each venue
/// keeps, per beat, a uniform random subset of at most `perBeat` of its samples (reservoir sampling,
/// Algorithm R), in arrival order. Adding is a count and at most one store under a lock; memory is bounded
/// per venue (what a failed store write leaves is kept up to `limit`, the oldest dropped and counted).
package final class BeaconHealthCollector: Sendable {
    package struct Pending: Sendable {
        let revision: Int
        package let sample: Sample
        let x: Double
        let y: Double
        let floor: Int
        /// One bit of 64 drawn from the device id (``LocatedSample/deviceMark(_:)``): the id itself is not kept.
        let device: UInt64
        /// Its arrival within the beat, to put a subset back in order.
        var arrival: Int = 0
    }

    /// One venue's samples of the beat so far.
    private struct Reservoir {
        /// What a failed store write left, oldest first: kept whole (up to `limit`), never sampled again.
        var carried: [Pending] = []
        var kept: [Pending] = []
        var offered = 0
        var random: UInt64

        init(venue: String) {
            random = 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: venue.hashValue) | 1
        }

        /// Algorithm R: the first `capacity` offered are kept, then the n-th replaces a kept one with
        /// probability capacity / n.
        mutating func offer(_ item: Pending, keeping capacity: Int) {
            var offered = item
            offered.arrival = self.offered
            self.offered += 1
            if kept.count < capacity {
                kept.append(offered)
            } else {
                let slot = next(below: self.offered)
                if slot < capacity { kept[slot] = offered }
            }
        }

        /// A uniform integer in 0..<bound (xorshift64*: the lock is held, and the system's generator would
        /// cost a system call a sample).
        mutating func next(below bound: Int) -> Int {
            random ^= random >> 12
            random ^= random << 25
            random ^= random >> 27
            return Int((random &* 0x2545_F491_4F6C_DD1D) % UInt64(bound))
        }
    }

    private let reservoirs = Mutex<[String: Reservoir]>([:])
    /// Samples kept per venue and beat.
    let perBeat: Int
    /// Samples kept per venue while the store is away.
    let limit: Int
    private let dropped: Metrics.Counter

    package init(perBeat: Int, limit: Int) {
        self.perBeat = max(1, perBeat)
        self.limit = max(self.perBeat, limit)
        dropped = Metrics.Counter(label: "beaconfix_beacon_evidence_dropped_total")
    }

    /// Offers `sample` of `device`, located at `position` in `venue` at `revision`; a sample that heard
    /// nothing says nothing of the beacons.
    package func add(_ sample: Sample, at position: Position, venue: String, revision: Int, device: String) {
        guard !sample.readings.isEmpty else { return }
        let item = Pending(revision: revision, sample: sample, x: position.x, y: position.y, floor: position.floor, device: LocatedSample.deviceMark(device))
        reservoirs.withLock { reservoirs in
            if reservoirs[venue] == nil { reservoirs[venue] = Reservoir(venue: venue) }
            // In place: a copy out of the dictionary and back would copy the kept samples on every request.
            reservoirs[venue]!.offer(item, keeping: perBeat)
        }
    }

    /// The samples kept since the last call, by venue: what a failed write left, then the beat's in arrival order.
    package func drain() -> [String: [Pending]] {
        let taken = reservoirs.withLock { reservoirs in
            defer {
                for venue in reservoirs.keys {
                    reservoirs[venue]!.carried = []
                    reservoirs[venue]!.kept.removeAll(keepingCapacity: true)
                    reservoirs[venue]!.offered = 0
                }
            }
            return reservoirs.compactMapValues { $0.kept.isEmpty && $0.carried.isEmpty ? nil : ($0.carried, $0.kept) }
        }
        return taken.mapValues { carried, kept in carried + kept.sorted { $0.arrival < $1.arrival } }
    }

    /// Puts back what could not be taken, before anything gathered meanwhile; at most `limit` are carried
    /// per venue, the oldest dropped and counted.
    package func restore(_ batches: [String: [Pending]]) {
        var overflow = 0
        reservoirs.withLock { reservoirs in
            for (venue, batch) in batches {
                if reservoirs[venue] == nil { reservoirs[venue] = Reservoir(venue: venue) }
                var carried = batch + reservoirs[venue]!.carried
                let excess = carried.count - limit
                if excess > 0 {
                    carried.removeFirst(excess)
                    overflow += excess
                }
                reservoirs[venue]!.carried = carried
            }
        }
        if overflow > 0 { dropped.increment(by: Int64(overflow)) }
    }
}
