import FingerprintStore
import Foundation
import Positioning
import Testing

/// The beacon health on both engines: evidence stored by replicas, one writer's turns, the history, ops'
/// resets and holds, and proposals accepted into the survey with the replacements' audit and undo.
@Suite("Beacon health in the store, on both engines")
struct BeaconHealthStoreTests {
    let rules = BeaconHealthRules()

    /// The fixture hall surveyed, and its expectations as positiond builds them.
    func surveyedStore(_ engine: StoreEngine) async throws -> (FingerprintStore, BeaconExpectations, revision: Int) {
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(StoreFixtures.venue)
        _ = try await store.record(StoreFixtures.survey, into: "hall", options: StoreFixtures.options)
        let survey = try await store.survey(of: "hall", scale: PositioningConfiguration.defaultScale)
        return (store, BeaconExpectations(spots: survey.spots, survey: survey.fingerprints), survey.revision)
    }

    /// `visits` visits of 3 samples to the hall's spots in turn, heard at their surveyed levels, beacon 1 silent.
    func evidence(_ expectations: BeaconExpectations, visits: Int, start: Double = 1_900_000_000) -> [LocatedSample] {
        let levels: [[Int: Double]] = [[2: -70, 3: -85], [2: -58, 3: -69], [2: -71, 3: -56]]
        let places: [Double] = [0, 5, 10]
        var builder = ScanEvidence(expectations: expectations, minimumPresence: rules.minimumPresence)
        var samples: [LocatedSample] = []
        for visit in 0..<visits {
            for index in 0..<3 {
                let time = start + Double(visit * 3 + index)
                let sample = Sample(
                    device: "phone", time: time,
                    readings: levels[visit % 3].sorted { $0.key < $1.key }.map { Reading(beacon: StoreFixtures.beacon($0.key), rssi: $0.value) })
                if let located = builder.evidence(of: sample, x: places[visit % 3], y: 0, floor: 0, device: 1) { samples.append(located) }
            }
        }
        return samples
    }

    /// A turn that takes every pending sample through the monitor.
    func turn(_ store: FingerprintStore, _ expectations: BeaconExpectations, revision: Int) async throws -> BeaconHealthTurn {
        let rules = rules
        return try await store.advanceBeaconHealth(venue: "hall", revision: revision) { stored, samples in
            guard !samples.isEmpty else { return nil }
            var monitor = stored?.monitor ?? BeaconHealthMonitor(beacons: expectations.beacons, rules: rules)
            var changes: [BeaconStateChange] = [], proposals: [BeaconProposal] = []
            for sample in samples {
                let update = monitor.observe(sample, expectations: expectations)
                changes += update.changes
                proposals += update.proposals
            }
            return BeaconHealthStep(monitor: monitor, changes: changes, proposals: proposals)
        }
    }

    @Test("replicas' evidence is taken in order by one writer: the state, its history and the report come back", arguments: BackendTests.engines)
    func evidenceToState(engine: StoreEngine) async throws {
        // Given two batches of evidence, as two replicas would store them
        let (store, expectations, revision) = try await surveyedStore(engine)
        let samples = evidence(expectations, visits: 9)
        try await store.recordBeaconEvidence(venue: "hall", revision: revision, samples: Array(samples.prefix(10)))
        try await store.recordBeaconEvidence(venue: "hall", revision: revision, samples: Array(samples.dropFirst(10)))
        #expect(try await store.beaconHealthVersion(of: "hall") == nil)
        // When a writer takes its turn
        guard case .ran(let health?, let changes, _, let taken) = try await turn(store, expectations, revision: revision) else {
            Issue.record("the turn did not run")
            return
        }
        // Then it took every sample in order, and beacon 1 is silent
        #expect(taken == samples.count)
        #expect(health.monitor.samples == samples.count)
        #expect(changes.contains { $0.beacon == StoreFixtures.beacon(1).description && $0.to == .silent })
        // And the state, its history and the report read back on the same engine
        let stored = try #require(try await store.beaconHealth(of: "hall"))
        #expect(stored.monitor == health.monitor)
        #expect(stored.version == 1)
        let history = try await store.beaconHealthHistory(of: "hall")
        #expect(history.first?.to == .silent && history.first?.actor == nil)
        let report = try await store.beaconHealthReport(of: "hall")
        #expect(report.items.first { $0.health.beacon == StoreFixtures.beacon(1) }?.health.state == .silent)
        #expect(report.items.first { $0.health.beacon == StoreFixtures.beacon(1) }?.label == "B1")
        // And the evidence taken is gone: a second turn has nothing to do
        guard case .ran(_, let none, _, 0) = try await turn(store, expectations, revision: revision) else {
            Issue.record("the second turn did not run")
            return
        }
        #expect(none.isEmpty)
    }

    @Test("evidence of an older revision is dropped, a newer one's waits for a writer that serves it", arguments: BackendTests.engines)
    func revisions(engine: StoreEngine) async throws {
        let (store, expectations, revision) = try await surveyedStore(engine)
        let samples = evidence(expectations, visits: 3)
        try await store.recordBeaconEvidence(venue: "hall", revision: revision - 1, samples: samples)
        try await store.recordBeaconEvidence(venue: "hall", revision: revision + 1, samples: samples)
        guard case .ran(_, _, _, 0) = try await turn(store, expectations, revision: revision) else {
            Issue.record("the turn took evidence of other revisions")
            return
        }
        guard case .ran(_, _, _, let later) = try await turn(store, expectations, revision: revision + 1) else {
            Issue.record("the turn did not run")
            return
        }
        #expect(later == samples.count)
    }

    @Test("ops' hold and reset change what matching does, and the history says who", arguments: BackendTests.engines)
    func holdAndReset(engine: StoreEngine) async throws {
        let (store, expectations, revision) = try await surveyedStore(engine)
        try await store.recordBeaconEvidence(venue: "hall", revision: revision, samples: evidence(expectations, visits: 9))
        _ = try await turn(store, expectations, revision: revision)
        #expect(try await store.beaconHealth(of: "hall")?.monitor.tolerance.silent == [StoreFixtures.beacon(1)])
        // When ops hold beacon 1, matching leaves it as surveyed
        let held = try await store.holdBeacon(venue: "hall", beacon: StoreFixtures.beacon(1), held: true, operator: "ana")
        #expect(held.actor == "ana" && held.to == .silent)
        #expect(try await store.beaconHealth(of: "hall")?.monitor.tolerance.isEmpty == true)
        // And a reset forgets its state
        let reset = try await store.resetBeaconHealth(venue: "hall", beacon: StoreFixtures.beacon(1), operator: nil)
        #expect(reset.from == .silent && reset.to == .insufficientEvidence && reset.actor == "ops")
        let report = try await store.beaconHealthReport(of: "hall")
        #expect(report.items.first { $0.health.beacon == StoreFixtures.beacon(1) }?.health.state == .insufficientEvidence)
        #expect(try await store.beaconHealthHistory(of: "hall").map(\.actor).prefix(2) == ["ops", "ana"])
        // And a beacon the monitor does not know is refused with a sentence
        await #expect(throws: StoreError.self) {
            try await store.resetBeaconHealth(venue: "hall", beacon: StoreFixtures.beacon(9), operator: nil)
        }
    }

    @Test("a silent set's assessment is stored only while it is still the monitor's", arguments: BackendTests.engines)
    func degradedAssessment(engine: StoreEngine) async throws {
        let (store, expectations, revision) = try await surveyedStore(engine)
        try await store.recordBeaconEvidence(venue: "hall", revision: revision, samples: evidence(expectations, visits: 9))
        _ = try await turn(store, expectations, revision: revision)
        var assessed = DegradedVenue.intact
        assessed.silent = [StoreFixtures.beacon(2)]
        #expect(try await !store.storeDegradedVenue(assessed, venue: "hall"))
        assessed.silent = [StoreFixtures.beacon(1)]
        assessed.radiusFactor = 1.3
        #expect(try await store.storeDegradedVenue(assessed, venue: "hall"))
        #expect(try await store.beaconHealth(of: "hall")?.degraded.radiusFactor == 1.3)
    }

    @Test("a proposed replacement accepted: the survey remapped with its offset, audited, undone exactly", arguments: BackendTests.engines)
    func acceptReplacement(engine: StoreEngine) async throws {
        let (store, expectations, revision) = try await surveyedStore(engine)
        let before = try await StoreFixtures.snapshot(store)
        let new = try BeaconID(parsing: "B9407F30-F5F8-466E-AFF9-25556B57FE6D:7:77")
        let proposal = BeaconProposal(
            kind: .replace, old: StoreFixtures.beacon(1), new: new, offset: 6, spread: 1, reverseOffset: nil, places: 3, readings: 12,
            time: 1_900_000_000, reason: "test")
        let stored = try await store.advanceBeaconHealth(venue: "hall", revision: revision) { _, _ in
            var monitor = BeaconHealthMonitor(beacons: expectations.beacons, rules: BeaconHealthRules())
            monitor.proposals = [proposal]
            return BeaconHealthStep(monitor: monitor, changes: [], proposals: [proposal])
        }
        guard case .ran(_, _, let proposals, _) = stored, let id = proposals.first?.id else {
            Issue.record("no proposal stored")
            return
        }
        // A dry run writes nothing
        _ = try await store.acceptBeaconProposal(venue: "hall", id: id, operator: "ana", scale: PositioningConfiguration.defaultScale, dryRun: true)
        #expect(try await store.beaconProposals(of: "hall", status: .open).map(\.id) == [id])
        // When ops accept it
        let (accepted, replacement) = try await store.acceptBeaconProposal(
            venue: "hall", id: id, operator: "ana", scale: PositioningConfiguration.defaultScale)
        // Then the new beacon inherits the old one's entries 6 dB up, audited with the proposal
        #expect(accepted.status == .accepted && accepted.replacement == replacement.id)
        #expect(replacement.kind == .replace && replacement.offset == 6 && replacement.proposal?.places == 3)
        #expect(replacement.entriesInherited > 0)
        let survey = try await store.survey(of: "hall", scale: PositioningConfiguration.defaultScale)
        let inherited = survey.fingerprints.compactMap { $0.fingerprint.entries[new]?.meanRSSI }
        // Spot a heard beacon 1 at -55 and -56 dBm in turn, windows of 3: -55.3 and -55.7, 6 dB up
        #expect(!inherited.isEmpty && inherited.contains { abs($0 - (-55.5 + 6)) < 0.5 }, "\(inherited)")
        #expect(try await store.replacements(of: "hall").first?.proposal?.offset == 6)
        // And accepting it again is refused
        await #expect(throws: StoreError.self) {
            try await store.acceptBeaconProposal(venue: "hall", id: id, operator: nil, scale: PositioningConfiguration.defaultScale)
        }
        // And undo restores the survey exactly
        _ = try await store.undoReplacement(try #require(replacement.id), venue: "hall")
        let after = try await StoreFixtures.snapshot(store)
        let kept = { (row: String) in
            !["venue:", "beacon:", "beaconReplacement:", "replacementEntry:", "beaconProposal:", "beaconHealthMonitor:"].contains { row.hasPrefix($0) }
        }
        #expect(after.filter(kept) == before.filter(kept))
    }

    @Test("a swap accepted exchanges the two ids in the survey, and undo exchanges them back", arguments: BackendTests.engines)
    func swapAndUndo(engine: StoreEngine) async throws {
        let (store, _, _) = try await surveyedStore(engine)
        let before = try await store.survey(of: "hall", scale: PositioningConfiguration.defaultScale)
        let swap = try await store.swapBeacons(venue: "hall", StoreFixtures.beacon(1), StoreFixtures.beacon(3), operator: "ana")
        #expect(swap.kind == .swap && swap.old == StoreFixtures.beacon(1).description && swap.new == StoreFixtures.beacon(3).description)
        let swapped = try await store.survey(of: "hall", scale: PositioningConfiguration.defaultScale)
        // Beacon 3's surveyed levels are beacon 1's of before, and the labels stay with the places
        for (old, new) in zip(before.fingerprints, swapped.fingerprints) {
            #expect(new.fingerprint.entries[StoreFixtures.beacon(3)]?.meanRSSI == old.fingerprint.entries[StoreFixtures.beacon(1)]?.meanRSSI)
        }
        #expect(swapped.venue.beacons.first { $0.label == "B1" }?.id == StoreFixtures.beacon(3))
        _ = try await store.undoReplacement(try #require(swap.id), venue: "hall")
        let restored = try await store.survey(of: "hall", scale: PositioningConfiguration.defaultScale)
        #expect(restored.fingerprints.map(\.fingerprint) == before.fingerprints.map(\.fingerprint))
        #expect(restored.venue.beacons.first { $0.label == "B1" }?.id == StoreFixtures.beacon(1))
    }

    @Test("on PostgreSQL one replica takes a venue's turn at a time; the others are told at once")
    func oneWriter() async throws {
        guard BackendTests.engines.contains(.postgresql) else { return }
        let (store, expectations, revision) = try await surveyedStore(.postgresql)
        try await store.recordBeaconEvidence(venue: "hall", revision: revision, samples: evidence(expectations, visits: 3))
        // Given another replica's transaction holding the venue's turn
        let turn = try await store.backend.write { transaction in
            try await transaction.execute("SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':beacon-health'), hashtext('hall'))")
            // When this replica asks for the turn meanwhile (another connection of the pool)
            return try await self.turn(store, expectations, revision: revision)
        }
        // Then it is told the turn is taken, and the evidence waits for the next turn
        guard case .busy = turn else {
            Issue.record("the second writer took a turn already taken")
            return
        }
        guard case .ran(_, _, _, 9) = try await self.turn(store, expectations, revision: revision) else {
            Issue.record("the evidence did not wait for the next turn")
            return
        }
    }
}
