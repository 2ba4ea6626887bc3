import Foundation
import Positioning
import PositioningTuning
import Synchronization
import Testing
import TestSupport

/// The beacon-health monitor on the shared walks, faults injected at each walk's midpoint, each walk
/// replayed as a live venue would see it (``Evaluator/adaptiveEvaluation(_:faults:tracking:windowSize:in:setup:)``).
/// Every threshold comes from the survey (``BeaconHealthCalibration``): the walks are read only to report.
@Suite("Beacon health on the shared walks", .enabled(if: SharedDatasets.available, "../shared/datasets is absent"))
struct BeaconHealthDatasetTests {
    /// A shared venue tuned on its survey, as `survey record` leaves it.
    struct Venue: Sendable {
        var survey: SurveyFingerprints
        var configuration: PositioningConfiguration
        var map: RadioMap
        var setup: AdaptiveSetup
        var walk: [LabelledSample]
        /// The survey's beacons, most heard first.
        var mostHeard: [BeaconID]

        var midpoint: Double {
            let times = walk.map(\.sample.time)
            return (times.min()! + times.max()!) / 2
        }

        func replay(_ faults: [BeaconFault], tolerant: Bool = true) -> AdaptiveEvaluation {
            var setup = setup
            setup.tolerant = tolerant
            return Evaluator(builder: configuration.builder, locator: configuration.locator).adaptiveEvaluation(
                walk, faults: faults, tracking: configuration.tracking, windowSize: 1, in: map, setup: setup)
        }

        /// The walk replayed under `faults` without the monitor: today's product.
        func plain(_ faults: [BeaconFault]) -> Double {
            let faulted = walk.map { LabelledSample(sample: faults.apply(to: $0.sample), truth: $0.truth) }
            return Evaluator(builder: configuration.builder, locator: configuration.locator)
                .replay(faulted, tracking: configuration.tracking, in: map).errors!.mean
        }
    }

    private static let venues = Mutex<[String: Venue]>([:])

    /// `dataset` tuned on its survey once per test run (tuning takes seconds).
    static func venue(_ dataset: String) throws -> Venue {
        try venues.withLock { cache in
            if let venue = cache[dataset] { return venue }
            let definition = try SharedDatasets.venue(dataset)
            let base = PositioningConfiguration()
            let survey = SurveyFingerprints(
                survey: try SharedDatasets.labelledSamples(dataset, "survey.jsonl"), windowSize: 1, spots: definition.spots, builder: base.builder)
            let validation = SurveyCrossValidation(spots: survey.spots, survey: survey.surveyed, scale: base.builder.scale)
            let configuration = try #require(try SurveyTuner().tune(validation)).configuration.positioning(base: base)
            let map = try survey.radioMap(configuration: configuration)
            let rules = try BeaconHealthCalibration.rules(spots: survey.spots, survey: survey.surveyed, configuration: configuration)
            let spots = survey.spots, surveyed = survey.surveyed
            let setup = AdaptiveSetup(
                expectations: BeaconExpectations(spots: survey.spots, survey: survey.fingerprints), rules: rules, tolerant: true
            ) { silent in
                let assessed = (try? DegradedVenue.assess(spots: spots, survey: surveyed, configuration: configuration, silent: silent)) ?? .intact
                guard assessed.matching == .ignored else { return (assessed, nil) }
                return (assessed, try? DegradedVenue.map(spots: spots, survey: surveyed, configuration: configuration, without: silent))
            }
            var heard: [BeaconID: Int] = [:]
            for fingerprint in survey.fingerprints { for beacon in fingerprint.fingerprint.entries.keys { heard[beacon, default: 0] += 1 } }
            let venue = Venue(
                survey: survey, configuration: configuration, map: map, setup: setup,
                walk: try SharedDatasets.labelledSamples(dataset, "test.jsonl"),
                mostHeard: heard.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map(\.key))
            cache[dataset] = venue
            return venue
        }
    }

    static let walks = ["uji-geo-p4", "uji-geo-p12", "uji-geo-p20", "kolakowski-flat"]

    @Test("an intact walk: no beacon leaves healthy or insufficient evidence, and the replay is no worse", arguments: walks)
    func intactWalk(dataset: String) throws {
        let venue = try Self.venue(dataset)
        let run = venue.replay([])
        let alarms = run.changes.filter { ![.healthy, .insufficientEvidence].contains($0.to) }
        #expect(alarms.isEmpty, "\(alarms.map { "\($0.beacon) \($0.to)" })")
        #expect(run.proposals.isEmpty)
        let adapted = try #require(run.walk.report.errors).mean, plain = venue.plain([])
        #expect(adapted <= plain * 1.01, "\(adapted) against \(plain)")
    }

    @Test("the most heard beacon dies at the walk's midpoint: silent within 60 located samples, the replay no worse", arguments: walks)
    func mostHeardDies(dataset: String) throws {
        let venue = try Self.venue(dataset)
        let fault = BeaconFault(.kill(venue.mostHeard[0]), from: venue.midpoint)
        let run = venue.replay([fault])
        let detection = try #require(run.faults.first)
        let samples = try #require(detection.samplesToDetect, "not named; \(detection.expectedSamples) samples expected it")
        #expect(samples <= 60, "named after \(samples) located samples")
        let adapted = try #require(run.walk.report.errors).mean, plain = venue.plain([fault])
        #expect(adapted <= plain * 1.01, "\(adapted) against \(plain)")
    }

    @Test("five of the most heard beacons die together: all five named")
    func fiveDie() throws {
        let venue = try Self.venue("uji-geo-p12")
        let faults = venue.mostHeard.prefix(5).map { BeaconFault(.kill($0), from: venue.midpoint) }
        let run = venue.replay(faults)
        let silent = Set(run.changes.filter { $0.to == .silent }.map(\.beacon))
        #expect(silent == Set(venue.mostHeard.prefix(5)), "\(silent)")
        let adapted = try #require(run.walk.report.errors).mean, plain = venue.plain(faults)
        #expect(adapted <= plain * 1.01, "\(adapted) against \(plain)")
    }

    @Test("an anchor 10 dB quieter: shifted, its offset within 2 dB by the walk's end, and the replay better for it")
    func quieterAnchor() throws {
        let venue = try Self.venue("kolakowski-flat")
        let fault = BeaconFault(.shift(venue.mostHeard[0], decibels: -10), from: venue.midpoint)
        let run = venue.replay([fault])
        let detection = try #require(run.faults.first)
        #expect(detection.samplesToDetect != nil)
        #expect(abs(try #require(detection.finalOffset) + 10) <= 2, "\(detection.finalOffset ?? .nan)")
        let adapted = try #require(run.walk.report.errors).mean, plain = venue.plain([fault])
        #expect(adapted < plain, "\(adapted) against \(plain)")
    }

    @Test("a replacement hung in a dead anchor's place, 6 dB louder: the pair proposed")
    func replacementOfAnAnchor() throws {
        let venue = try Self.venue("kolakowski-flat")
        let new = BeaconID(uuid: venue.mostHeard[0].uuid, major: 9, minor: 99)
        let run = venue.replay([BeaconFault(.swapIn(old: venue.mostHeard[0], new: new, decibels: 6), from: venue.midpoint)])
        let proposal = try #require(run.proposals.first { $0.kind == .replace })
        #expect(proposal.old == venue.mostHeard[0] && proposal.new == new)
    }
}
