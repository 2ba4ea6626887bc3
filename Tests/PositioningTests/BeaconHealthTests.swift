import Foundation
import Positioning
import PositioningTuning
import Testing
import TestSupport

/// A small venue simulated from physics: a 4 × 4 grid of spots 3 m apart, four beacons in its corners and
/// one in the middle, each heard at `-45 - 20 log10(d + 1)` dBm with 4 dB of noise, and missed below -95 dBm
/// or in 10% of samples. The survey is 20 samples a spot; a "walk" visits every spot in turn.
enum HealthVenue {
    static let beacons: [(minor: UInt16, x: Double, y: Double)] = [(1, 0, 0), (2, 9, 0), (3, 0, 9), (4, 9, 9), (5, 4.5, 4.5)]
    static let spots: [Spot] = (0..<16).map { Spot(name: "s\($0)", x: Double($0 % 4) * 3, y: Double($0 / 4) * 3, floor: 0) }

    /// One sample at (`x`, `y`), with `change` applied to each beacon's level (nil: silent).
    static func sample(
        x: Double, y: Double, time: Double, device: String = "phone", generator: inout SeededGenerator,
        change: (UInt16, Double) -> Double? = { $1 }
    ) -> Sample {
        var readings: [Reading] = []
        for beacon in beacons {
            let distance = ((beacon.x - x) * (beacon.x - x) + (beacon.y - y) * (beacon.y - y)).squareRoot()
            let level = -45 - 20 * log10(distance + 1) + generator.gaussian(deviation: 4)
            guard let heard = change(beacon.minor, level), heard > -95, generator.unit() > 0.1 else { continue }
            readings.append(Reading(beacon: Fixtures.beacon(beacon.minor), rssi: heard.rounded()))
        }
        return Sample(device: device, time: time, readings: readings)
    }

    static func survey(seed: UInt64 = 1) -> [SurveyedFingerprint] {
        var generator = SeededGenerator(seed: seed)
        let builder = FingerprintBuilder()
        var survey: [SurveyedFingerprint] = []
        var time = 1_800_000_000.0
        for (index, spot) in spots.enumerated() {
            for _ in 0..<20 {
                let scan = sample(x: spot.x, y: spot.y, time: time, device: "surveyor", generator: &generator)
                time += 1
                guard let fingerprint = try? builder.fingerprint(of: [scan]) else { continue }
                survey.append(SurveyedFingerprint(spot: index, run: index, device: "surveyor", time: time, fingerprint: fingerprint))
            }
        }
        return survey
    }

    static var expectations: BeaconExpectations {
        BeaconExpectations(spots: spots, survey: survey().map { ($0.spot, $0.fingerprint) })
    }

    /// `count` located samples of a walk through every spot in turn (`perSpot` at each), taken as evidence
    /// at the spot they were taken at, each from `change` on.
    static func evidence(
        count: Int, perSpot: Int = 4, seed: UInt64 = 7, expectations: BeaconExpectations, rules: BeaconHealthRules,
        change: @escaping (UInt16, Double) -> Double? = { $1 }
    ) -> [LocatedSample] {
        var generator = SeededGenerator(seed: seed)
        var builder = ScanEvidence(expectations: expectations, minimumPresence: rules.minimumPresence)
        return (0..<count).compactMap { index in
            let spot = spots[(index / perSpot) % spots.count]
            let scan = sample(x: spot.x, y: spot.y, time: 1_900_000_000 + Double(index), generator: &generator, change: change)
            return builder.evidence(of: scan, x: spot.x, y: spot.y, floor: 0, device: LocatedSample.deviceMark("walker"))
        }
    }
}

@Suite("Beacon health: expectations, evidence, states, proposals")
struct BeaconHealthTests {
    let rules = BeaconHealthRules()

    @Test("expectations: a spot's share of samples and mean level, never certainty, between spots a blend")
    func expectations() throws {
        // Given two spots 4 m apart: A hears beacon 1 in all 3 samples at -60, B in 1 of 2 at -80
        let spots = [Spot(name: "A", x: 0, y: 0, floor: 0), Spot(name: "B", x: 4, y: 0, floor: 0)]
        let entry = { (rssi: Double) in FingerprintEntry(relativePower: 1, meanRSSI: rssi, dispersion: 0, visibility: 1) }
        let heard = Fingerprint(entries: [Fixtures.beacon(1): entry(-60), Fixtures.beacon(2): entry(-70)], sampleCount: 1)
        let survey: [(spot: Int, fingerprint: Fingerprint)] = [
            (0, heard), (0, heard), (0, heard),
            (1, Fingerprint(entries: [Fixtures.beacon(1): entry(-80), Fixtures.beacon(2): entry(-70)], sampleCount: 1)),
            (1, Fingerprint(entries: [Fixtures.beacon(2): entry(-70)], sampleCount: 1)),
        ]
        let expectations = BeaconExpectations(spots: spots, survey: survey)
        var expectation = BeaconExpectations.Expectation(beaconCount: expectations.beacons.count)
        let one = try #require(expectations.index(of: Fixtures.beacon(1)))
        // When the expectation is read at A
        expectations.expect(atX: 0, y: 0, floor: 0, into: &expectation)
        // Then A dominates, and 3 samples of 3 make 3/4 (rule of succession), not certainty
        let atA = expectation.presence(of: one)
        #expect(atA > 0.6 && atA < 0.75, "\(atA)")
        // And halfway, the presence and level are a blend of the two spots (the level weighted by presence)
        expectations.expect(atX: 2, y: 0, floor: 0, into: &expectation)
        #expect(abs(expectation.presence(of: one) - (0.75 + 0.5) / 2) < 1e-6)
        let blended: Double = (0.75 * -60 + 0.5 * -80) / 1.25
        let level = try #require(expectation.level(of: one))
        #expect(abs(level - blended) < 1e-6)
        // And a floor without spots expects nothing
        #expect(!expectations.expect(atX: 0, y: 0, floor: 3, into: &expectation))
    }

    @Test("evidence: each beacon's residual against the median of the others' differences; unknown ids kept apart")
    func evidenceResiduals() throws {
        let expectations = HealthVenue.expectations
        var builder = ScanEvidence(expectations: expectations, minimumPresence: rules.minimumPresence)
        var expectation = BeaconExpectations.Expectation(beaconCount: expectations.beacons.count)
        expectations.expect(atX: 3, y: 3, floor: 0, into: &expectation)
        // Given a phone 5 dB louder than the survey's on every beacon, and beacon 5 another 10 dB louder
        var readings: [Reading] = []
        for (index, beacon) in expectations.beacons.enumerated() {
            let level = try #require(expectation.level(of: index)) + 5 + (beacon == Fixtures.beacon(5) ? 10 : 0)
            readings.append(Reading(beacon: beacon, rssi: level))
        }
        readings.append(Reading(beacon: Fixtures.beacon(99), rssi: -70))
        // When the sample is taken as evidence where it was located
        let evidence = builder.evidence(
            of: Sample(device: "phone", time: 0, readings: readings), x: 3, y: 3, floor: 0, device: LocatedSample.deviceMark("phone"))
        let located = try #require(evidence)
        // Then the phone's gain is found, the others' residuals are nil and beacon 5's is its own 10 dB
        #expect(abs(Double(located.gain) - 5) < 1e-3)
        let five = try #require(located.observations.first { expectations.beacons[Int($0.beacon)] == Fixtures.beacon(5) })
        #expect(abs(Double(five.residual) - 10) < 1e-3)
        for observation in located.observations where expectations.beacons[Int(observation.beacon)] != Fixtures.beacon(5) {
            #expect(abs(Double(observation.residual)) < 1e-3)
        }
        // And the unknown id is kept apart, its level corrected by the gain
        #expect(located.unknown.map(\.beacon) == [Fixtures.beacon(99)])
        #expect(located.unknown[0].corrected && abs(Double(located.unknown[0].level) - -75) < 1e-3)
        // And the evidence survives JSON, the way replicas store it
        let decoded = try JSONDecoder().decode(LocatedSample.self, from: JSONEncoder().encode(located))
        #expect(decoded.observations.count == located.observations.count && decoded.gain == located.gain)
    }

    @Test("a healthy venue: every beacon healthy, none silent or shifted")
    func intactStaysHealthy() {
        let expectations = HealthVenue.expectations
        var monitor = BeaconHealthMonitor(beacons: expectations.beacons, rules: rules)
        var changes: [BeaconStateChange] = []
        for sample in HealthVenue.evidence(count: 600, expectations: expectations, rules: rules) {
            changes += monitor.observe(sample, expectations: expectations).changes
        }
        #expect(monitor.health.allSatisfy { $0.state == .healthy }, "\(monitor.health.map(\.state))")
        #expect(changes.allSatisfy { $0.to == .healthy })
        #expect(monitor.tolerance.isEmpty)
    }

    @Test("a dead beacon is named silent from misses at several places, and healthy again once heard")
    func deadBeaconGoesSilent() throws {
        let expectations = HealthVenue.expectations
        var monitor = BeaconHealthMonitor(beacons: expectations.beacons, rules: rules)
        // Given a venue seen healthy for a while
        for sample in HealthVenue.evidence(count: 200, expectations: expectations, rules: rules) {
            _ = monitor.observe(sample, expectations: expectations)
        }
        // When beacon 5 dies
        var named: BeaconStateChange?
        for sample in HealthVenue.evidence(count: 200, seed: 8, expectations: expectations, rules: rules, change: { $0 == 5 ? nil : $1 }) {
            named = named ?? monitor.observe(sample, expectations: expectations).changes.first { $0.to == .silent }
        }
        // Then it is named silent, with its evidence, and only it
        let change = try #require(named)
        #expect(change.beacon == Fixtures.beacon(5))
        #expect(change.evidence.places >= rules.minimumPlaces)
        #expect(monitor.health.filter { $0.state == .silent }.map(\.beacon) == [Fixtures.beacon(5)])
        #expect(monitor.tolerance.silent == [Fixtures.beacon(5)])
        // And when it is heard again it is healthy
        var back = false
        for sample in HealthVenue.evidence(count: 200, seed: 9, expectations: expectations, rules: rules) {
            back = back || monitor.observe(sample, expectations: expectations).changes.contains { $0.beacon == Fixtures.beacon(5) && $0.to == .healthy }
        }
        #expect(back)
    }

    @Test("misses at one place alone never make a beacon silent, however many")
    func onePlaceIsNotEnough() {
        let expectations = HealthVenue.expectations
        var monitor = BeaconHealthMonitor(beacons: expectations.beacons, rules: rules)
        // Given a visitor standing still at one spot with beacon 2 blocked by their body, for 1,000 samples
        var generator = SeededGenerator(seed: 3)
        var builder = ScanEvidence(expectations: expectations, minimumPresence: rules.minimumPresence)
        let spot = HealthVenue.spots[3]
        var changes: [BeaconStateChange] = []
        for index in 0..<1000 {
            let scan = HealthVenue.sample(x: spot.x, y: spot.y, time: Double(index), generator: &generator) { $0 == 2 ? nil : $1 }
            if let sample = builder.evidence(of: scan, x: spot.x, y: spot.y, floor: 0, device: 1) {
                changes += monitor.observe(sample, expectations: expectations).changes
            }
        }
        // Then beacon 2 is not called silent: the evidence of one place is capped below the threshold
        #expect(!changes.contains { $0.to == .silent })
    }

    @Test("a beacon 10 dB quieter is named shifted with its offset, matching corrects it, and ops can hold and reset it")
    func quieterBeaconShifted() throws {
        let expectations = HealthVenue.expectations
        var monitor = BeaconHealthMonitor(beacons: expectations.beacons, rules: rules)
        for sample in HealthVenue.evidence(count: 200, expectations: expectations, rules: rules) {
            _ = monitor.observe(sample, expectations: expectations)
        }
        // When beacon 1 is heard 10 dB quieter from now on
        for sample in HealthVenue.evidence(count: 800, seed: 11, expectations: expectations, rules: rules, change: { $0 == 1 ? $1 - 10 : $1 }) {
            _ = monitor.observe(sample, expectations: expectations)
        }
        // Then it is shifted by about -10 dB
        let one = try #require(monitor.health.first { $0.beacon == Fixtures.beacon(1) })
        #expect(one.state == .shifted)
        #expect(abs(try #require(one.offset) + 10) <= 2, "\(one.offset ?? .nan)")
        // And matching takes its readings back up by as much
        let offset = try #require(monitor.tolerance.offsets[Fixtures.beacon(1)])
        let corrected = monitor.tolerance.corrected(Fixtures.sample([1: -80, 2: -70]))
        #expect(corrected.readings.first { $0.beacon == Fixtures.beacon(1) }?.rssi == -80 - offset)
        #expect(corrected.readings.first { $0.beacon == Fixtures.beacon(2) }?.rssi == -70)
        // And ops holding it leaves it as surveyed, though still shown shifted
        let held = monitor.hold(Fixtures.beacon(1), true)
        #expect(held)
        #expect(monitor.tolerance.offsets[Fixtures.beacon(1)] == nil)
        #expect(monitor.health.first { $0.beacon == Fixtures.beacon(1) }?.state == .shifted)
        // And a reset forgets what was concluded
        let reset = monitor.reset(Fixtures.beacon(1))
        #expect(reset)
        #expect(monitor.health.first { $0.beacon == Fixtures.beacon(1) }?.state == .insufficientEvidence)
        // And the whole monitor survives JSON, the way the store keeps it
        let decoded = try JSONDecoder().decode(BeaconHealthMonitor.self, from: JSONEncoder().encode(monitor))
        #expect(decoded == monitor)
    }

    @Test("a replacement in a dead beacon's place is proposed with its offset, and matched as the dead one until ops decide")
    func replacementProposed() throws {
        let expectations = HealthVenue.expectations
        var monitor = BeaconHealthMonitor(beacons: expectations.beacons, rules: rules)
        for sample in HealthVenue.evidence(count: 200, expectations: expectations, rules: rules) {
            _ = monitor.observe(sample, expectations: expectations)
        }
        // When beacon 4 dies and a new id is heard where it hung, 6 dB louder
        let replacement = Fixtures.beacon(40, major: 9)
        var generator = SeededGenerator(seed: 21)
        var builder = ScanEvidence(expectations: expectations, minimumPresence: rules.minimumPresence)
        var proposed: [BeaconProposal] = []
        for index in 0..<600 {
            let spot = HealthVenue.spots[(index / 4) % HealthVenue.spots.count]
            var scan = HealthVenue.sample(x: spot.x, y: spot.y, time: Double(index), generator: &generator) { $0 == 4 ? $1 + 6 : $1 }
            for reading in scan.readings.indices where scan.readings[reading].beacon == Fixtures.beacon(4) {
                scan.readings[reading].beacon = replacement
            }
            if let sample = builder.evidence(of: scan, x: spot.x, y: spot.y, floor: 0, device: 1) {
                proposed += monitor.observe(sample, expectations: expectations).proposals
            }
        }
        // Then the pair is proposed, the offset within 2 dB
        let proposal = try #require(proposed.first { $0.kind == .replace })
        #expect(proposal.old == Fixtures.beacon(4) && proposal.new == replacement)
        let open = try #require(monitor.proposals.first { $0.isSame(as: proposal) })
        #expect(abs(open.offset - 6) <= 2, "\(open.offset)")
        // And until ops accept, the new id is read as the old one, its offset taken off
        #expect(monitor.tolerance.remaps[replacement]?.beacon == Fixtures.beacon(4))
        #expect(!monitor.tolerance.silent.contains(Fixtures.beacon(4)))
        // And dismissing it stops the remap and the proposal for good
        let dismissed = monitor.dismiss(proposal)
        #expect(dismissed)
        #expect(monitor.tolerance.remaps.isEmpty && monitor.proposals.isEmpty)
    }

    @Test("a fault injected into a walk applies from its time on")
    func faults() {
        let sample = Fixtures.sample([1: -60, 2: -70], time: 10)
        let early = Fixtures.sample([1: -60, 2: -70], time: 5)
        #expect(BeaconFault(.kill(Fixtures.beacon(1)), from: 10).apply(to: sample).readings.map(\.beacon) == [Fixtures.beacon(2)])
        #expect(BeaconFault(.kill(Fixtures.beacon(1)), from: 10).apply(to: early) == early)
        #expect(BeaconFault(.shift(Fixtures.beacon(2), decibels: -10), from: 0).apply(to: sample).readings[1].rssi == -80)
        let swapped = BeaconFault(.swap(Fixtures.beacon(1), Fixtures.beacon(2)), from: 0).apply(to: sample)
        #expect(swapped.readings.map(\.beacon) == [Fixtures.beacon(2), Fixtures.beacon(1)])
        let swappedIn = BeaconFault(.swapIn(old: Fixtures.beacon(1), new: Fixtures.beacon(9), decibels: 6), from: 0).apply(to: sample)
        #expect(swappedIn.readings[0].beacon == Fixtures.beacon(9) && swappedIn.readings[0].rssi == -54)
    }
}
