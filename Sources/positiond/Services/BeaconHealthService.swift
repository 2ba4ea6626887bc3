import FingerprintStore
import Foundation
import Logging
import Metrics
import Positioning
import ServiceLifecycle

/// Keeps every venue's beacon health, on a beat of `interval`:
/// 1. turns what the ``BeaconHealthCollector`` gathered into evidence against the venue's survey
///    (``ScanEvidence``) and, on a shared store, stores it for whichever replica writes (alone on a SQLite
///    file, the daemon hands it straight to its own turn);
/// 2. takes a writer's turn on each venue (``FingerprintStore/advanceBeaconHealth(venue:revision:step:)``):
///    the monitor advanced over all the stored evidence in order, state changes and proposals recorded.
///    On PostgreSQL one replica at a time takes a venue's turn (an advisory lock), so the monitor's state,
///    which is order-dependent and not a sum of counts, has one writer, and every replica's evidence reaches
///    it; on SQLite the daemon is alone. The replica whose turn found the silent set changed assesses it
///    (``DegradedVenue``) and stores that too;
/// 3. applies the stored health to matching (``HealthOverlay``) when its version changed, publishes the new
///    state changes on the venue's live feed and sets the `beaconfix_beacons` gauges. Every replica does this
///    from the store, so all serve the same state.
///
/// A failed store write keeps the gathered samples for the next beat (bounded by the collector); a failed
/// turn leaves the evidence stored for the next one.
struct BeaconHealthService: Service {
    let store: any BeaconHealthRepository
    let catalog: VenueCatalog
    let collector: BeaconHealthCollector
    let hub: LiveHub
    let interval: Duration
    let logger: Logger

    /// What this replica last applied of a venue.
    struct Applied {
        var version: Int?
        var lastChange: Int64?
        /// The map without a silent set, for venues that ignore it: by revision and set.
        var ignoredMap: (revision: Int, silent: [BeaconID], pipeline: LocatePipeline)?
        var gauges: [BeaconState: Metrics.Gauge] = [:]
    }

    func run() async throws {
        var applied: [String: Applied] = [:]
        // The history before this daemon started is not news; a venue that appears later has none before it.
        for venue in catalog.revisions.keys {
            applied[venue] = Applied(lastChange: (try? await store.beaconHealthHistory(of: venue, limit: 1).first?.id) ?? 0)
        }
        let stored = Metrics.Counter(label: "beaconfix_beacon_evidence_samples_total")
        let failures = Metrics.Counter(label: "beaconfix_beacon_health_failures_total")
        while true {
            let stopping = (try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }) == nil
            var local = await gatherEvidence(counter: stored, failures: failures)
            for venue in catalog.revisions.keys.sorted() {
                guard let snapshot = catalog.snapshot(of: venue) else { continue }
                let evidence = local.removeValue(forKey: venue)
                do {
                    // Alone on a SQLite file, a venue only needs a turn when this daemon gathered something for it
                    // or its survey changed; a shared store may hold other replicas' evidence at any time.
                    if store.isShared || evidence != nil || applied[venue]?.version != snapshot.health.version {
                        do {
                            try await advance(snapshot, local: evidence?.samples ?? [])
                        } catch {
                            // Not taken: its samples are gathered again for the next beat.
                            if let evidence { collector.restore([venue: evidence.pending]) }
                            throw error
                        }
                    }
                    try await apply(venue, into: &applied[venue, default: Applied()])
                } catch {
                    failures.increment()
                    logger.error("beacon health of a venue could not be kept up to date; retrying on the next beat",
                        metadata: ["venue.id": "\(venue)", "error": "\(error)"])
                }
            }
            if stopping { return }
        }
    }

    /// What was gathered, turned into evidence per venue. On a shared store it is stored at once, for
    /// whichever replica writes (and nothing is returned for it); a daemon alone on a SQLite file hands it to
    /// its own turn instead.
    private func gatherEvidence(
        counter: Metrics.Counter, failures: Metrics.Counter
    ) async -> [String: (samples: [LocatedSample], pending: [BeaconHealthCollector.Pending])] {
        var gathered: [String: (samples: [LocatedSample], pending: [BeaconHealthCollector.Pending])] = [:]
        for (venue, pending) in collector.drain() {
            guard let snapshot = catalog.snapshot(of: venue) else { continue }
            // Positions are in venue metres whatever revision located them: all are laid against the survey served now.
            var evidence = ScanEvidence(expectations: snapshot.expectations, minimumPresence: snapshot.healthRules.minimumPresence)
            let cleaner = snapshot.configuration.builder.cleaner
            let samples = pending.compactMap { item -> LocatedSample? in
                let cleaned = cleaner.clean(item.sample)
                guard !cleaned.readings.isEmpty else { return nil }
                return evidence.evidence(of: cleaned, x: item.x, y: item.y, floor: item.floor, device: item.device)
            }
            counter.increment(by: Int64(samples.count))
            guard store.isShared else {
                gathered[venue] = (samples, pending)
                continue
            }
            do {
                try await store.recordBeaconEvidence(venue: venue, revision: snapshot.revision, samples: samples)
            } catch {
                failures.increment()
                collector.restore([venue: pending])
                logger.error("storing beacon evidence failed; kept for the next beat", metadata: ["venue.id": "\(venue)", "error": "\(error)"])
            }
        }
        return gathered
    }

    /// One writer's turn on the venue of `snapshot`, and the assessment of a new silent set when the turn
    /// leaves one unassessed.
    private func advance(_ snapshot: VenueSnapshot, local: [LocatedSample]) async throws {
        let venue = snapshot.details.id, revision = snapshot.revision
        let expectations = snapshot.expectations, rules = snapshot.healthRules
        let turn = try await store.advanceBeaconHealth(venue: venue, revision: revision, local: local) { stored, samples in
            var monitor: BeaconHealthMonitor
            if let stored {
                let current = stored.revision == revision && stored.monitor.rules == rules
                monitor = current ? stored.monitor : stored.monitor.rebased(onto: expectations.beacons, rules: rules)
                if current, samples.isEmpty { return nil }
            } else {
                guard !samples.isEmpty else { return nil }
                monitor = BeaconHealthMonitor(beacons: expectations.beacons, rules: rules)
            }
            var changes: [BeaconStateChange] = []
            var proposals: [BeaconProposal] = []
            for sample in samples {
                let update = monitor.observe(sample, expectations: expectations)
                changes += update.changes
                proposals += update.proposals
            }
            return BeaconHealthStep(monitor: monitor, changes: changes, proposals: proposals)
        }
        guard case .ran(let health?, let changes, _, let samples) = turn else { return }
        if !changes.isEmpty {
            logger.info("beacon states changed", metadata: [
                "venue.id": "\(venue)", "samples": "\(samples)",
                "changes": "\(changes.map { "\($0.beacon) \($0.from.rawValue)->\($0.to.rawValue)" }.joined(separator: ", "))",
            ])
        }
        let silent = health.monitor.tolerance.silent
        guard health.degraded.silent != silent.sorted() || (health.degraded.queries == 0 && !silent.isEmpty) else { return }
        // The silent set changed: assess it on the survey served (seconds at most), off the request path.
        let survey = try await store.survey(of: venue, scale: PositioningConfiguration.defaultScale)
        guard survey.revision == revision else { return }
        let degraded = try DegradedVenue.assess(spots: survey.spots, survey: survey.surveyed, configuration: snapshot.configuration, silent: silent)
        if try await store.storeDegradedVenue(degraded, venue: venue) {
            logger.info("silent beacons assessed", metadata: [
                "venue.id": "\(venue)", "silent": "\(degraded.silent.count)", "matching": "\(degraded.matching.rawValue)",
                "radius.factor": "\(degraded.radiusFactor)",
            ])
        }
    }

    /// Applies the venue's stored health to matching when its version changed, publishes its new state
    /// changes, and sets the gauges.
    private func apply(_ venue: String, into applied: inout Applied) async throws {
        guard let snapshot = catalog.snapshot(of: venue) else { return }
        let version = try await store.beaconHealthVersion(of: venue)
        guard version != snapshot.health.version || version != applied.version, version != nil,
            let health = try await store.beaconHealth(of: venue)
        else { return }
        // A monitor of another revision has other columns: until a turn rebases it, matching acts on nothing.
        let current = health.revision == snapshot.revision
        let tolerance = current ? health.monitor.tolerance : HealthTolerance()
        let assessed = health.degraded.silent == tolerance.silent.sorted()
        let degraded = assessed ? health.degraded : DegradedVenue.intact
        var pipeline = snapshot.pipeline
        var matched = degraded
        if degraded.matching == .ignored, !tolerance.silent.isEmpty {
            if let cached = applied.ignoredMap, cached.revision == snapshot.revision, cached.silent == degraded.silent {
                pipeline = cached.pipeline
            } else {
                let survey = try await store.survey(of: venue, scale: PositioningConfiguration.defaultScale)
                if survey.revision == snapshot.revision {
                    let map = try DegradedVenue.map(
                        spots: survey.spots, survey: survey.surveyed, configuration: snapshot.configuration, without: tolerance.silent,
                        zoneAreas: survey.venue.zoneAreas)
                    pipeline = LocatePipeline(configuration: snapshot.configuration, map: map)
                    applied.ignoredMap = (snapshot.revision, degraded.silent, pipeline)
                } else {
                    // The survey moved on under this snapshot: the next reload and turn will assess it again.
                    matched = .intact
                }
            }
        }
        catalog.applyHealth(
            HealthOverlay(pipeline: pipeline, tolerance: tolerance, degraded: matched, version: version), venue: venue, revision: snapshot.revision)
        applied.version = version
        try await publishChanges(of: venue, labels: snapshot.details.beaconLabels, into: &applied)
        var counts: [BeaconState: Int] = [:]
        for beacon in health.monitor.health { counts[beacon.state, default: 0] += 1 }
        for state in BeaconState.allCases {
            let gauge = applied.gauges[state] ?? Metrics.Gauge(label: "beaconfix_beacons", dimensions: [("venue", venue), ("state", state.rawValue)])
            applied.gauges[state] = gauge
            gauge.record(counts[state] ?? 0)
        }
    }

    /// Sends the venue's state changes recorded since the last ones sent to its live feed, oldest first.
    private func publishChanges(of venue: String, labels: [BeaconID: String], into applied: inout Applied) async throws {
        let recent = try await store.beaconHealthHistory(of: venue, limit: 200)
        guard let newest = recent.first?.id else { return }
        let last = applied.lastChange ?? 0
        applied.lastChange = max(newest, last)
        for change in recent.reversed() where change.id > last {
            let label = (try? BeaconID(parsing: change.beacon)).flatMap { labels[$0] }
            hub.publish(venue: venue, device: nil, message: .beacon(.init(
                _type: .beacon, venue: venue, beacon: change.beacon, label: label, from: .init(change.from), to: .init(change.to),
                time: change.at.timeIntervalSince1970, offsetDb: change.offset, reason: change.reason)))
        }
    }
}
