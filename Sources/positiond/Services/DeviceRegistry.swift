import Foundation
import Metrics
package import Positioning
import Synchronization

/// The tracked devices of every venue: a ``DeviceTracker`` per phone.
///
/// Memory stays bounded under any load: devices idle for longer than `idleTimeout` are forgotten, and at
/// most `capacity` are kept (the least recently seen are evicted first). The registry is split into
/// shards with a lock each, so concurrent phones rarely wait for each other; one phone's samples are
/// applied in order under its shard's lock.
package final class DeviceRegistry: Sendable {
    package struct Key: Hashable, Sendable {
        let venue: String
        let device: String

        package init(venue: String, device: String) {
            self.venue = venue
            self.device = device
        }
    }

    private struct Entry: Sendable {
        var tracker: DeviceTracker
        var lastSeen: ContinuousClock.Instant
    }

    /// One lock and its share of the devices.
    private final class Shard: Sendable {
        let entries = Mutex<[Key: Entry]>([:])
    }

    private let shards: [Shard]
    private let shardCapacity: Int
    let idleTimeout: Duration
    private let trackedGauge: Metrics.Gauge
    /// Devices tracked, changed where devices come and go: reading it takes no shard lock.
    private let tracked = Atomic<Int>(0)

    package init(capacity: Int, idleTimeout: Duration, shards: Int = 16) {
        let count = max(1, min(shards, capacity))
        self.shards = (0..<count).map { _ in Shard() }
        shardCapacity = max(1, capacity / count)
        self.idleTimeout = idleTimeout
        trackedGauge = Observability.devicesTracked()
        // Dashboards and alerts see 0 from the start rather than nothing.
        trackedGauge.record(0)
    }

    private func shard(for key: Key) -> Shard {
        var hasher = Hasher()
        hasher.combine(key)
        return shards[Int(UInt(bitPattern: hasher.finalize()) % UInt(shards.count))]
    }

    /// Applies `update` to the device's tracker (created with `configuration`, its venue's, if new) under its
    /// shard's lock.
    package func withTracker<T: Sendable>(
        _ key: Key, configuration: TrackerConfiguration, now: ContinuousClock.Instant = .now, _ update: (inout DeviceTracker) throws -> T
    ) throws -> T {
        try withTracker(key, configuration: configuration, now: now) { tracker, _ in try update(&tracker) }
    }

    /// ``withTracker(_:configuration:now:_:)-(_,_,_,(inout DeviceTracker) throws -> T)``, telling `update`
    /// whether the tracker was created for this call (the device was not tracked here).
    func withTracker<T: Sendable>(
        _ key: Key, configuration: TrackerConfiguration, now: ContinuousClock.Instant = .now,
        _ update: (inout DeviceTracker, _ isNew: Bool) throws -> T
    ) throws -> T {
        var change = 0
        let result = try shard(for: key).entries.withLock { entries -> T in
            var entry: Entry
            let isNew: Bool
            if let known = entries.removeValue(forKey: key) {
                entry = known
                isNew = false
            } else {
                isNew = true
                entry = Entry(tracker: DeviceTracker(device: key.device, configuration: configuration), lastSeen: now)
                change += 1
            }
            defer {
                entry.lastSeen = now
                entries[key] = entry
                if entries.count > shardCapacity, let oldest = entries.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key {
                    entries.removeValue(forKey: oldest)
                    change -= 1
                }
            }
            return try update(&entry.tracker, isNew)
        }
        if change != 0 { trackedGauge.record(tracked.add(change, ordering: .relaxed).newValue) }
        return result
    }

    /// The device's last update and zone, nil when it is not tracked (never seen, forgotten or evicted).
    package func current(of key: Key) -> (update: TrackingUpdate, zone: String?)? {
        shard(for: key).entries.withLock { entries in
            guard let tracker = entries[key]?.tracker, let update = tracker.lastUpdate else { return nil }
            return (update, tracker.currentZone)
        }
    }

    /// Forgets devices idle for longer than `idleTimeout`; returns how many.
    @discardableResult
    package func forgetIdle(now: ContinuousClock.Instant = .now) -> Int {
        var forgotten = 0
        for shard in shards {
            forgotten += shard.entries.withLock { entries in
                let before = entries.count
                entries = entries.filter { now - $0.value.lastSeen <= idleTimeout }
                return before - entries.count
            }
        }
        trackedGauge.record(tracked.subtract(forgotten, ordering: .relaxed).newValue)
        return forgotten
    }

    package var count: Int { tracked.load(ordering: .relaxed) }
}
