import FingerprintStore
import Logging
import Positioning
import ServiceLifecycle

/// Notices what changed in the store while the daemon runs: new venue revisions (after `survey record`,
/// `survey replace-beacon`, ...) and API keys. A changed venue's radio map is rebuilt here, off the request
/// path, then swapped in whole; subscribers of the venue's live feed get a `revision` message. Idle devices
/// are forgotten on the same beat.
struct RevisionWatcher: Service {
    let store: FingerprintStore
    let catalog: VenueCatalog
    let keys: KeyCache
    let devices: DeviceRegistry
    let hub: LiveHub
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                break  // cancelled or shutting down
            }
            await refresh()
        }
        hub.finishAll()
    }

    /// One pass: revisions, keys, idle devices. Each concern fails on its own and is retried on the next
    /// pass: a venue that cannot be reloaded never delays another venue, nor a revoked key.
    func refresh() async {
        await refreshKeys()
        await refreshVenues()
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
