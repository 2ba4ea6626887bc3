public import Positioning
import ScanFormats

/// A synthetic venue from the propagation simulator: `fingerprints` reference fingerprints of one sample
/// each over 32 beacons (10 per spot), and queries sampled between the spots.
public struct SyntheticVenue: Sendable {
    public let map: RadioMap
    /// The survey ``map`` was laid out from, to lay it out again in another ``SignalRepresentation``.
    public let references: [(spot: Int, fingerprint: Fingerprint)]
    public let queries: [Fingerprint]
    public let samples: [Sample]

    public init(fingerprints: Int) {
        let spots = max(1, fingerprints / 10)
        let venue = try! SimulatedVenues.grid(beacons: 32, spots: spots, seed: 1)
        let builder = PositioningConfiguration().builder
        var generator = SeededGenerator(seed: 2)
        var references: [(spot: Int, fingerprint: Fingerprint)] = []
        references.reserveCapacity(fingerprints)
        for (index, spot) in venue.definition.spots.enumerated() {
            for second in 0..<10 {
                let sample = venue.sample(
                    x: spot.x, y: spot.y, floor: 0, heading: Double(second), device: SimulatedVenues.surveyDevices[0],
                    time: Double(second), using: &generator)
                if let fingerprint = try? builder.fingerprint(of: [sample]) { references.append((index, fingerprint)) }
            }
        }
        map = try! RadioMap(spots: venue.definition.spots, fingerprints: references)
        self.references = references
        var samples: [Sample] = []
        for index in 0..<64 {
            let spot = venue.definition.spots[(index * 7919) % venue.definition.spots.count]
            samples.append(venue.sample(
                x: spot.x + 0.7, y: spot.y + 0.4, floor: 0, heading: Double(index), device: SimulatedVenues.walkDevice,
                time: Double(index), using: &generator))
        }
        self.samples = samples
        queries = samples.map { try! builder.fingerprint(of: [$0]) }
    }
}

