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
            refresh()
        }
        hub.finishAll()
    }

    /// One pass: revisions, keys, idle devices. Failures are logged and retried on the next pass.
    func refresh() {
        do {
            let stored = try store.revisions()
            let served = catalog.revisions
            for (venue, revision) in stored where served[venue] != revision {
                let snapshot = try catalog.reload(venue, from: store)
                logger.info(
                    "radio map reloaded",
                    metadata: [
                        "venue.id": "\(venue)", "venue.revision": "\(snapshot.revision)",
                        "previous.revision": "\(served[venue].map(String.init) ?? "none")", "fingerprints": "\(snapshot.map.count)",
                    ])
                hub.publish(venue: venue, device: nil, payload: RevisionMessage(venue: venue, revision: snapshot.revision))
            }
            for venue in served.keys where stored[venue] == nil { catalog.remove(venue) }
            try keys.refresh(from: store)
        } catch {
            logger.error("refreshing from the store failed; retrying next time", metadata: ["error": "\(error)"])
        }
        let forgotten = devices.forgetIdle()
        if forgotten > 0 { logger.debug("idle devices forgotten", metadata: ["devices": "\(forgotten)"]) }
    }
}
