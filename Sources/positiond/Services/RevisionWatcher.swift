package import FingerprintStore
package import Logging
import Positioning
import ServiceLifecycle
import Synchronization

/// Notices what changed in the store while the daemon runs: new venue revisions (after `survey record`,
/// `survey replace-beacon`, ...) and API keys. A changed venue's radio map is rebuilt here, off the request
/// path, then swapped in whole; subscribers of the venue's live feed get a `revision` message. Idle devices
/// are forgotten on a beat of `interval`.
///
/// How it notices: a SQLite file is polled on the beat (SQLite cannot tell another process). A store shared
/// on PostgreSQL is never polled: its listener's notifications say which venue changed and when the keys
/// did, and each time the listener (re)connects everything is read once, since notifications sent while
/// it was away are lost. The same session carries the live relay's batches both ways.
package struct RevisionWatcher: Service {
    let store: FingerprintStore
    let catalog: VenueCatalog
    let keys: KeyCache
    let devices: DeviceRegistry
    let hub: LiveHub
    let interval: Duration
    /// How often the relay's outbox leaves as batches (shared stores only).
    let flushInterval: Duration
    let logger: Logger

    package init(
        store: FingerprintStore, catalog: VenueCatalog, keys: KeyCache, devices: DeviceRegistry, hub: LiveHub,
        interval: Duration, flushInterval: Duration = .milliseconds(50), logger: Logger
    ) {
        (self.store, self.catalog, self.keys, self.devices, self.hub) = (store, catalog, keys, devices, hub)
        (self.interval, self.flushInterval, self.logger) = (interval, flushInterval, logger)
    }

    package func run() async throws {
        if let listener = store.listener() {
            await cancelWhenGracefulShutdown { await listen(listener) }
        } else {
            while !Task.isCancelled {
                do {
                    try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
                } catch {
                    break  // cancelled or shutting down
                }
                await refresh()
            }
        }
        hub.finishAll()
    }

    /// What to read again, gathered from notifications while a reload runs: ten notifications for one
    /// venue during a reload cause one more read, not ten.
    private struct Stale: Sendable {
        var keys = false
        var venues = false
    }

    /// ``Stale`` shared by the task that sorts notifications and the one that reloads.
    private final class StaleBox: Sendable {
        let state = Mutex(Stale())
    }

    /// The shared store's way: the listener's session, a task that sorts what it delivers, one that
    /// reloads what is stale, the beat that forgets idle devices, and the relay's flushes; until cancelled.
    package func listen(_ listener: StoreListener) async {
        let stale = StaleBox()
        // Wakes the reloader; one pending wake-up is enough, since it reads everything stale at once.
        let (wakeups, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await listener.run() }
            group.addTask {
                // Only sorts: anything slow here would hold the relay's batches back behind a reload.
                for await change in listener.changes {
                    switch change {
                    case .listening:
                        logger.info("listening to the store's notifications; reading revisions and keys once", metadata: ["store.location": "\(store.path)"])
                        stale.state.withLock { $0 = Stale(keys: true, venues: true) }
                        wake.yield()
                    case .revision:
                        stale.state.withLock { $0.venues = true }
                        wake.yield()
                    case .keys:
                        stale.state.withLock { $0.keys = true }
                        wake.yield()
                    case .broadcast(let payload):
                        if let relay = hub.relay { hub.deliverRelayed(relay.receive(payload)) }
                    case .disconnected(let reason, let retryAfter):
                        logger.warning(
                            "the store's notification session is lost; reconnecting (revisions, keys and other replicas' live events wait until then)",
                            metadata: ["store.location": "\(store.path)", "error": "\(reason)", "retry.after": "\(retryAfter)"])
                    }
                }
                wake.finish()
            }
            group.addTask {
                for await _ in wakeups {
                    let now = stale.state.withLock { state in
                        defer { state = Stale() }
                        return state
                    }
                    if now.keys { await refreshKeys() }
                    if now.venues { await refreshVenues() }
                }
            }
            group.addTask {
                while (try? await Task.sleep(for: interval)) != nil {
                    forgetIdle()
                    hub.relay?.forgetIdle()
                }
            }
            if let relay = hub.relay {
                group.addTask {
                    while (try? await Task.sleep(for: flushInterval)) != nil {
                        await relay.flush { try await listener.broadcast($0) }
                    }
                }
            }
            // The first task to end means cancellation (or a finished listener): end them all.
            await group.next()
            group.cancelAll()
        }
    }

    /// One pass: revisions, keys, idle devices. Each concern fails on its own and is retried on the next
    /// pass: a venue that cannot be reloaded never delays another venue, nor a revoked key.
    func refresh() async {
        await refreshKeys()
        await refreshVenues()
        forgetIdle()
    }

    private func forgetIdle() {
        let forgotten = devices.forgetIdle()
        if forgotten > 0 { logger.debug("idle devices forgotten", metadata: ["devices": "\(forgotten)"]) }
    }

    /// Picks up created and revoked API keys.
    func refreshKeys() async {
        do {
            try await keys.refresh(from: store)
        } catch {
            logger.error("refreshing API keys failed; retrying next time", metadata: ["error": "\(error)"])
        }
    }

    /// Reloads each venue whose revision changed, one at a time, each on its own.
    func refreshVenues() async {
        let stored: [String: Int]
        do {
            stored = try await store.revisions()
        } catch {
            logger.error("reading venue revisions failed; retrying next time", metadata: ["error": "\(error)"])
            return
        }
        let served = catalog.revisions
        for (venue, revision) in stored.sorted(by: { $0.key < $1.key }) where served[venue] != revision {
            do {
                let snapshot = try await catalog.reload(venue, from: store)
                logger.info(
                    "radio map reloaded",
                    metadata: [
                        "venue.id": "\(venue)", "venue.revision": "\(snapshot.revision)",
                        "previous.revision": "\(served[venue].map(String.init) ?? "none")", "fingerprints": "\(snapshot.map.count)",
                    ])
                hub.publish(venue: venue, device: nil, message: .revision(.init(_type: .revision, venue: venue, revision: snapshot.revision)))
            } catch {
                logger.error(
                    "reloading a venue's radio map failed; the previous revision is served and the reload retried next time",
                    metadata: ["venue.id": "\(venue)", "venue.revision": "\(revision)", "error": "\(error)"])
            }
        }
        for venue in served.keys where stored[venue] == nil { catalog.remove(venue) }
    }
}
