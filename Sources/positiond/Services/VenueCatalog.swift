import FingerprintStore
import Hummingbird
import Logging
import Positioning
import Synchronization

/// Everything positiond needs of one venue at one revision, built off the request path and then only read.
struct VenueSnapshot: Sendable {
    let details: VenueDetails
    let map: RadioMap
    /// The venue's positioning configuration: its tuning (`survey tune`), or the untuned one.
    let configuration: PositioningConfiguration
    /// The stateless locate of a window of samples in `map`: the one `survey locate` uses too.
    let pipeline: LocatePipeline
    /// The revision the venue was tuned at; nil when it was never tuned.
    let tunedRevision: Int?
    /// The spot a beacon names for proximity: the nearest spot on its floor within 3 m, or the spot whose
    /// name is the beacon's label.
    let spotOfBeacon: [BeaconID: Spot]
    /// The venue's active beacons: what proximity listens to.
    let activeBeacons: Set<BeaconID>
    /// Fingerprints per spot and every beacon's state: what the map colours by.
    let coverage: Components.Schemas.Coverage
    /// What the survey expects of each beacon where: what located scans are held against for the beacons'
    /// health.
    let expectations: BeaconExpectations
    /// The beacon-health thresholds this revision's survey calls for (``BeaconHealthCalibration``).
    let healthRules: BeaconHealthRules
    /// What matching makes of the beacons' health now: nothing until the health service says otherwise.
    private(set) var health: HealthOverlay

    var revision: Int { details.revision }

    init(survey: VenueSurvey, coverage: VenueCoverage) throws {
        details = survey.venue
        configuration = survey.configuration
        tunedRevision = survey.tuning?.revision
        map = try survey.radioMap(configuration: configuration)
        pipeline = LocatePipeline(configuration: configuration, map: map)
        var spots: [BeaconID: Spot] = [:]
        for beacon in survey.venue.activeBeacons {
            if let label = beacon.label, let named = survey.spots.first(where: { $0.name == label }) {
                spots[beacon.id] = named
            } else if let x = beacon.x, let y = beacon.y,
                let nearest = survey.spots.nearest(toX: x, y: y, floor: beacon.floor ?? 0),
                nearest.planarDistance(toX: x, y: y) <= 3
            {
                spots[beacon.id] = nearest
            }
        }
        spotOfBeacon = spots
        activeBeacons = Set(survey.venue.activeBeacons.map(\.id))
        self.coverage = Components.Schemas.Coverage(coverage)
        expectations = BeaconExpectations(spots: survey.spots, survey: survey.fingerprints)
        healthRules = try BeaconHealthCalibration.rules(spots: survey.spots, survey: survey.surveyed, configuration: configuration)
        health = HealthOverlay(pipeline: pipeline)
    }

    /// The snapshot matching under `overlay` instead.
    func with(_ overlay: HealthOverlay) -> VenueSnapshot {
        var copy = self
        copy.health = overlay
        return copy
    }
}

/// What matching makes of a venue's beacon health: shifted beacons' readings corrected, silent ones charged
/// or ignored as the survey's cross-validation chose (a map of its own when ignored), and the radius widened
/// by as much as they cost. Built by the health service off the request path; the requests only read it.
struct HealthOverlay: Sendable {
    let tolerance: HealthTolerance
    let degraded: DegradedVenue
    /// The pipeline to locate in: the snapshot's own, or over the map without the silent beacons.
    let pipeline: LocatePipeline
    /// The stored health's version it was built from; nil for none.
    let version: Int?

    init(pipeline: LocatePipeline, tolerance: HealthTolerance = HealthTolerance(), degraded: DegradedVenue = .intact, version: Int? = nil) {
        self.pipeline = pipeline
        self.tolerance = tolerance
        self.degraded = degraded
        self.version = version
    }

    var map: RadioMap { pipeline.map }

    /// `samples` as matching takes them.
    func matched(_ samples: [Sample]) -> [Sample] {
        tolerance.offsets.isEmpty && tolerance.remaps.isEmpty ? samples : samples.map(tolerance.corrected)
    }

    /// `position` with the radius the venue's degraded state calls for.
    func widened(_ position: Position) -> Position {
        position.widened(by: degraded.radiusFactor)
    }
}

/// The current snapshot of every venue. Readers get a whole snapshot; a new revision replaces it in one
/// assignment, so no request ever sees a half-built radio map.
package final class VenueCatalog: Sendable {
    private let snapshots = Mutex<[String: VenueSnapshot]>([:])
    private let loaded = Mutex(false)

    package init() {}

    func snapshot(of venue: String) -> VenueSnapshot? {
        snapshots.withLock { $0[venue] }
    }

    /// The snapshot of the request's `{venue}`, or 404.
    func snapshot(for request: Request, _ context: AppRequestContext) throws -> VenueSnapshot {
        try snapshot(named: try request.parameter("venue", context))
    }

    /// The snapshot of venue `id`, or 404.
    func snapshot(named id: String) throws -> VenueSnapshot {
        guard let venue = snapshot(of: id) else { throw HTTPError(.notFound, message: "there is no venue '\(id)'") }
        return venue
    }

    var revisions: [String: Int] {
        snapshots.withLock { $0.mapValues(\.revision) }
    }

    var isLoaded: Bool { loaded.withLock { $0 } }

    func replace(_ snapshot: VenueSnapshot) {
        snapshots.withLock { $0[snapshot.details.id] = snapshot }
        Observability.radioMapRevision(venue: snapshot.details.id).record(snapshot.revision)
        Observability.radioMapFingerprints(venue: snapshot.details.id).record(snapshot.map.count)
    }

    /// Matching in `venue` goes on under `overlay`, when the venue is still served at `revision`; returns
    /// whether it does.
    @discardableResult
    func applyHealth(_ overlay: HealthOverlay, venue: String, revision: Int) -> Bool {
        snapshots.withLock { snapshots in
            guard let current = snapshots[venue], current.revision == revision else { return false }
            snapshots[venue] = current.with(overlay)
            return true
        }
    }

    func remove(_ venue: String) {
        _ = snapshots.withLock { $0.removeValue(forKey: venue) }
    }

    /// Builds the snapshot of `venue` from the store (one read transaction, off the concurrency pool's
    /// threads) and swaps it in.
    @discardableResult
    func reload(_ venue: String, from store: FingerprintStore) async throws -> VenueSnapshot {
        // One transaction: a survey and a coverage of two different revisions would disagree on the map page.
        let (survey, coverage) = try await store.surveyAndCoverage(of: venue, scale: PositioningConfiguration.defaultScale)
        let snapshot = try VenueSnapshot(survey: survey, coverage: coverage)
        replace(snapshot)
        return snapshot
    }

    /// Loads every venue of the store. A venue that fails to load is logged and left out (the revision
    /// watcher retries it on every beat); the others are served.
    func loadAll(from store: FingerprintStore, logger: Logger) async throws {
        for (venue, _) in try await store.revisions().sorted(by: { $0.key < $1.key }) {
            do {
                let snapshot = try await reload(venue, from: store)
                logger.info(
                    "radio map loaded",
                    metadata: [
                        "venue.id": "\(venue)", "venue.revision": "\(snapshot.revision)", "fingerprints": "\(snapshot.map.count)",
                        "venue.tuned_revision": "\(snapshot.tunedRevision.map(String.init) ?? "untuned: default configuration")",
                    ])
            } catch {
                logger.error("radio map of a venue failed to load; it is not served until a reload succeeds", metadata: ["venue.id": "\(venue)", "error": "\(error)"])
            }
        }
        loaded.withLock { $0 = true }
    }
}
