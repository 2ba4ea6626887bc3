import Metrics
import Positioning
import Synchronization

/// Gathers, on the request path, what located scans say about a venue's beacons: each sample that heard
/// something with the position it was given, for the ``BeaconHealthService`` to turn into evidence off the
/// request path. Adding is one append under a lock; memory is bounded per venue (the oldest dropped and
/// counted while the store is away).
final class BeaconHealthCollector: Sendable {
    struct Pending: Sendable {
        let revision: Int
        let sample: Sample
        let x: Double
        let y: Double
        let floor: Int
        /// One bit of 64 drawn from the device id (``LocatedSample/deviceMark(_:)``): the id itself is not kept.
        let device: UInt64
    }

    private let pending = Mutex<[String: [Pending]]>([:])
    let limit: Int
    private let dropped: Metrics.Counter

    init(limit: Int) {
        self.limit = max(1, limit)
        dropped = Metrics.Counter(label: "beaconfix_beacon_evidence_dropped_total")
    }

    /// Takes `samples` of `device`, located at `position` in `venue` at `revision`; samples that heard
    /// nothing say nothing of the beacons.
    func add(_ samples: some Sequence<Sample>, at position: Position, venue: String, revision: Int, device: String) {
        let mark = LocatedSample.deviceMark(device)
        let taken = samples.filter { !$0.readings.isEmpty }.map {
            Pending(revision: revision, sample: $0, x: position.x, y: position.y, floor: position.floor, device: mark)
        }
        guard !taken.isEmpty else { return }
        let overflow = pending.withLock { pending -> Int in
            pending[venue, default: []] += taken
            let excess = pending[venue]!.count - limit
            if excess > 0 { pending[venue]!.removeFirst(excess) }
            return max(0, excess)
        }
        if overflow > 0 { dropped.increment(by: Int64(overflow)) }
    }

    /// Everything gathered since the last call, by venue.
    func drain() -> [String: [Pending]] {
        pending.withLock { pending in
            defer { pending = [:] }
            return pending
        }
    }

    /// Puts back what could not be stored, before anything gathered meanwhile, within the limit.
    func restore(_ batches: [String: [Pending]]) {
        var overflow = 0
        pending.withLock { pending in
            for (venue, batch) in batches {
                var merged = batch + (pending[venue] ?? [])
                let excess = merged.count - limit
                if excess > 0 {
                    merged.removeFirst(excess)
                    overflow += excess
                }
                pending[venue] = merged
            }
        }
        if overflow > 0 { dropped.increment(by: Int64(overflow)) }
    }
}
