import ScanFormats
import Positioning
import PositioningTuning
import Testing
import VenueSimulator

/// A phone left standing in the simulated demo hall: the zone must not flicker.
@Suite("Tracking: a phone standing still in a simulated venue")
struct StandingStillTests {
    /// demo-hall's venue, the configuration `survey tune` chooses from a survey made as `survey simulate`
    /// makes it (what a recorded venue runs with), and its radio map.
    static let hall: (venue: SimulatedVenue, configuration: PositioningConfiguration, map: RadioMap) = {
        let venue = try! SimulatedVenues.demoHall(seed: 7)
        var generator = SeededGenerator(seed: 8)
        let stops = venue.definition.spots.map { SimulatedStop(name: $0.name, x: $0.x, y: $0.y, floor: $0.floor) }
        var survey: [LabelledSample] = []
        for device in SimulatedVenues.surveyDevices {
            survey += labelled(venue.record(stops: stops, device: device, samples: 6, startTime: 1_795_000_000, using: &generator))
        }
        let base = PositioningConfiguration()
        let fingerprints = SurveyFingerprints(
            survey: survey, windowSize: base.surveyWindow, spots: venue.definition.spots, builder: base.builder)
        let tuning = try! SurveyTuner().tune(
            SurveyCrossValidation(spots: fingerprints.spots, survey: fingerprints.surveyed, scale: base.builder.scale))!
        let configuration = tuning.configuration.positioning(base: base)
        return (venue, configuration, try! fingerprints.radioMap(configuration: configuration))
    }()

    static func labelled(_ lines: [ScanLine]) -> [LabelledSample] {
        lines.map { LabelledSample(sample: try! $0.sample(), truth: $0.groundTruth!) }
    }

    /// One place inside each of the six zones. Where the matcher itself is several metres off for this
    /// phone (parts of the walled Entrance and Bar, the corner where three gallery zones meet), its answers
    /// do cross zones while the phone stands still; that is the matcher's error, measured by
    /// `Evaluator.replay`'s stationary figures, not flicker the tracker adds.
    @Test("60 s standing still, a sample a second, changes zone at most once", arguments: [
        (6.0, 6.0, 0), (22.0, 14.0, 0), (34.0, 6.0, 0), (10.0, 14.0, 1), (22.0, 6.0, 1), (26.0, 18.0, 1),
    ])
    func standingStill(x: Double, y: Double, floor: Int) throws {
        try standStill(x: x, y: y, floor: floor, gain: nil)
    }

    /// The same with every Kalman gain of the search space in place of the tuned one: weighing answers by
    /// their covariance must not make a standing phone's zone flicker either.
    @Test("60 s standing still with a Kalman gain over the answers' covariance changes zone at most once", arguments: [
        (6.0, 6.0, 0), (22.0, 14.0, 0), (34.0, 6.0, 0), (10.0, 14.0, 1), (22.0, 6.0, 1), (26.0, 18.0, 1),
    ])
    func standingStillKalman(x: Double, y: Double, floor: Int) throws {
        for gain in TuningSearchSpace.standard.trackerCovarianceGains {
            try standStill(x: x, y: y, floor: floor, gain: gain)
        }
    }

    func standStill(x: Double, y: Double, floor: Int, gain: SmootherGain?) throws {
        // Given the simulated demo hall and a phone the survey never saw, standing 60 s at one place
        var (venue, configuration, map) = Self.hall
        if let gain { configuration.tracking.smoother.gain = gain }
        var generator = SeededGenerator(seed: UInt64(x * 100 + y + Double(floor) * 10_000))
        let stand = Self.labelled(venue.record(
            stops: [SimulatedStop(name: "here", x: x, y: y, floor: floor)], device: SimulatedVenues.walkDevice,
            samples: 60, startTime: 1_800_000_000, using: &generator))
        // When replayed through the tracker with the venue's tuned configuration
        let report = Evaluator(builder: configuration.builder, locator: configuration.locator)
            .replay(stand, tracking: configuration.tracking, in: map)
        // Then the 59 s of standing bring at most one zone change: the first decision
        let stationary = try #require(report.stationary)
        #expect(stationary.seconds == 59)
        #expect(stationary.zoneChanges <= 1, "\(gain.map { "\($0)" } ?? "tuned gain"): \(stationary)")
        #expect(report.located == 60)
    }
}
