import FingerprintStore
import Foundation
import Metrics
import Positioning
import Synchronization

/// Collects the visitor history of tracked devices on the request path, into memory only: each device's
/// ``DeviceHistory`` (open visit, last sighting, thinning) and what is waiting for the next write. The
/// ``HistoryWriter`` takes the waiting part once a second and writes it in one transaction; a request
/// never waits for the store.
///
/// Split into shards with a lock each, like ``DeviceRegistry``: one device's updates are applied in order
/// under its shard's lock, and phones of different shards never wait for each other.
final class HistoryRecorder: Sendable {
    private struct DeviceState: Sendable {
        var history: DeviceHistory
        var touched: ContinuousClock.Instant
    }

    /// What waits for the next write, per venue.
    private struct Pending: Sendable {
        var batches: [String: VenueHistoryBatch] = [:]
        var sightings: [DeviceRegistry.Key: DeviceSighting] = [:]
        var tracePoints = 0
    }

    private final class Shard: Sendable {
        let devices = Mutex<[DeviceRegistry.Key: DeviceState]>([:])
        let pending = Mutex(Pending())
    }

    private let shards: [Shard]
    let traceInterval: Double
    /// Devices without an update for longer have their open visit closed and are forgotten, as the
    /// registry forgets their tracks.
    let idleTimeout: Duration
    /// Trace points waiting at most, per shard: when the store cannot keep up (a long `survey record` holds
    /// its write lock), newer points are dropped and counted rather than memory growing without bound.
    /// Visits and sightings are never dropped.
    let maximumPendingTracePoints: Int
    private let droppedTracePoints: Metrics.Counter

    init(traceInterval: Double, idleTimeout: Duration, maximumPendingTracePoints: Int = 200_000, shards: Int = 16) {
        self.shards = (0..<max(1, shards)).map { _ in Shard() }
        self.traceInterval = traceInterval
        self.idleTimeout = idleTimeout
        self.maximumPendingTracePoints = max(1, maximumPendingTracePoints / max(1, shards))
        droppedTracePoints = Metrics.Counter(label: "beaconfix_history_dropped_trace_points_total")
    }

    private func shard(for key: DeviceRegistry.Key) -> Shard {
        var hasher = Hasher()
        hasher.combine(key)
        return shards[Int(UInt(bitPattern: hasher.finalize()) % UInt(shards.count))]
    }

    /// Records a device's tracked update: its zone events and, thinned, its position.
    func record(_ key: DeviceRegistry.Key, update: TrackingUpdate, zone: String?, events: [ZoneEvent], now: ContinuousClock.Instant = .now) {
        let shard = shard(for: key)
        let changes = shard.devices.withLock { devices -> HistoryChanges in
            var state = devices[key] ?? DeviceState(history: DeviceHistory(traceInterval: traceInterval), touched: now)
            let changes = state.history.record(time: update.time, position: update.position, zone: zone, events: events)
            state.touched = now
            devices[key] = state
            return changes
        }
        let sighting: DeviceSighting? =
            changes.trace.map { DeviceSighting(device: key.device, time: $0.time, floor: $0.floor, zone: $0.zone) }
            ?? (changes.visits.isEmpty ? nil : DeviceSighting(device: key.device, time: update.time, floor: update.position?.floor, zone: zone))
        guard !changes.isEmpty || sighting != nil else { return }
        var dropped = false
        shard.pending.withLock { pending in
            var batch = pending.batches[key.venue] ?? VenueHistoryBatch()
            for visit in changes.visits { batch.visits.append(DeviceVisit(device: key.device, visit: visit)) }
            if let point = changes.trace {
                if pending.tracePoints < maximumPendingTracePoints {
                    batch.trace.append(DeviceTracePoint(device: key.device, point: point))
                    pending.tracePoints += 1
                } else {
                    dropped = true
                }
            }
            pending.batches[key.venue] = batch
            if let sighting { pending.sightings[key] = sighting }
        }
        if dropped { droppedTracePoints.increment() }
    }

    /// Closes the open visits of devices idle for longer than ``idleTimeout`` (an exit at their last
    /// sighting) and forgets them; returns how many devices were forgotten.
    @discardableResult
    func closeIdle(now: ContinuousClock.Instant = .now) -> Int {
        close { now - $0.touched > idleTimeout }
    }

    /// Closes every open visit (the daemon is stopping): each ends at its device's last sighting.
    @discardableResult
    func closeAll() -> Int {
        close { _ in true }
    }

    private func close(where shouldClose: (DeviceState) -> Bool) -> Int {
        var forgotten = 0
        for shard in shards {
            let closed = shard.devices.withLock { devices -> [(DeviceRegistry.Key, ZoneVisit)] in
                var closed: [(DeviceRegistry.Key, ZoneVisit)] = []
                for (key, state) in devices where shouldClose(state) {
                    var history = state.history
                    if let visit = history.close() { closed.append((key, visit)) }
                    devices.removeValue(forKey: key)
                    forgotten += 1
                }
                return closed
            }
            guard !closed.isEmpty else { continue }
            shard.pending.withLock { pending in
                for (key, visit) in closed {
                    pending.batches[key.venue, default: VenueHistoryBatch()].visits.append(DeviceVisit(device: key.device, visit: visit))
                }
            }
        }
        return forgotten
    }

    /// Takes everything waiting, per venue, leaving the buffers empty.
    func drain() -> [String: VenueHistoryBatch] {
        var merged: [String: VenueHistoryBatch] = [:]
        for shard in shards {
            let pending = shard.pending.withLock { pending in
                defer { pending = Pending() }
                return pending
            }
            for (venue, batch) in pending.batches { merged[venue, default: VenueHistoryBatch()].append(batch) }
            for (key, sighting) in pending.sightings {
                merged[key.venue, default: VenueHistoryBatch()].sightings.append(sighting)
            }
        }
        return merged
    }

    /// Devices whose history is followed.
    var deviceCount: Int { shards.reduce(0) { total, shard in total + shard.devices.withLock { $0.count } } }
}
