public import Positioning
import ScanFormats
import VenueSimulator

/// A synthetic venue from the propagation simulator: `fingerprints` reference fingerprints of one sample
/// each (10 per spot) over `floors` floors of `beaconsPerFloor` beacons, and 64 queries sampled between
/// the spots, on every floor, by another phone.
public struct SyntheticVenue: Sendable {
    public let map: RadioMap
    /// The survey ``map`` was laid out from, to lay it out again in another ``SignalRepresentation``.
    public let references: [(spot: Int, fingerprint: Fingerprint)]
    public let queries: [Fingerprint]
    public let samples: [Sample]

    /// - Parameter representation: how ``map`` holds each beacon: the representation of the metric that
    ///   will read it (the default locator's dB-offset metric unless told otherwise).
    public init(
        fingerprints: Int, beaconsPerFloor: Int = 32, floors: Int = 1,
        representation: SignalRepresentation = PositioningConfiguration().locator.metric.representation
    ) {
        let spots = max(1, fingerprints / 10)
        let venue = try! SimulatedVenues.grid(beacons: beaconsPerFloor * floors, spots: spots, floors: floors, seed: 1)
        let builder = PositioningConfiguration().builder
        var generator = SeededGenerator(seed: 2)
        let references = venue.standingFingerprints(samplesPerSpot: 10, builder: builder, using: &generator)
        map = try! RadioMap(spots: venue.definition.spots, fingerprints: references, representation: representation)
        self.references = references
        samples = venue.scansBetweenSpots(count: 64, using: &generator)
        queries = samples.map { try! builder.fingerprint(of: [$0]) }
    }

    /// The same survey laid out in another representation.
    public func map(in representation: SignalRepresentation) -> RadioMap {
        try! RadioMap(spots: map.spots, fingerprints: references, representation: representation)
    }

    /// A one-line description for the benchmark log: size, and bytes a query would read.
    public var summary: String {
        "map of \(map.count) fingerprints x \(map.beaconCount) beacons on \(Set(map.spots.map(\.floor)).count) floor(s): \(map.compactBytes) bytes of compact matrix"
    }
}
