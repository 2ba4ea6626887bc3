public import Positioning
public import PositioningTuning
import ScanFormats
import VenueSimulator

/// A survey of the size the tuning requirement names ("a 300-spot, 24,000-line survey tunes in under
/// 60 s on 2 cores"): one phone standing `samplesPerSpot` seconds at every spot of
/// `SimulatedVenues.grid(beacons:spots:seed:)`, one scan-log line per second. Shared by the `Tuning`
/// benchmark and the `SyntheticSurvey` generator behind scripts/tune-timing.sh, so both time the same
/// survey.
public struct GridSurvey: Sendable {
    public let venue: SimulatedVenue
    /// The survey log, with ground truth: `spots × samplesPerSpot` lines.
    public let lines: [ScanLine]

    public init(beacons: Int = 24, spots: Int = 300, samplesPerSpot: Int = 80, seed: UInt64 = 1) {
        venue = try! SimulatedVenues.grid(beacons: beacons, spots: spots, seed: seed)
        var generator = SeededGenerator(seed: seed &+ 1)
        let stops = venue.definition.spots.map { SimulatedStop(name: $0.name, x: $0.x, y: $0.y, floor: $0.floor) }
        lines = venue.record(
            stops: stops, device: SimulatedVenues.surveyDevices[0], samples: samplesPerSpot, startTime: 1_795_000_000,
            using: &generator)
    }

    /// The survey's fingerprints as `survey record` stores them (window 1: every scan) and `survey tune`
    /// reads them back.
    public func fingerprints() -> SurveyFingerprints {
        let samples = lines.map { LabelledSample(sample: try! $0.sample(), truth: $0.groundTruth!) }
        return SurveyFingerprints(
            survey: samples, windowSize: 1, spots: venue.definition.spots,
            builder: FingerprintBuilder(scale: PositioningConfiguration.defaultScale))
    }
}
