/// A spot as a candidate for a live fingerprint: its best reference fingerprint's distance.
public struct SpotCandidate: Hashable, Sendable {
    /// Index into the radio map's spots.
    public var spotIndex: Int
    public var spot: Spot
    public var distance: Float

    public init(spotIndex: Int, spot: Spot, distance: Float) {
        self.spotIndex = spotIndex
        self.spot = spot
        self.distance = distance
    }
}

/// Why a fingerprint was not given a position. Answering "unknown" beats always naming some room,
/// even for a phone outside the building.
public enum UnknownReason: Hashable, Sendable, CustomStringConvertible {
    /// None of the fingerprint's beacons appears in the survey.
    case noKnownBeacon
    /// Fewer surveyed beacons were heard than the configuration requires.
    case tooFewBeacons(heard: Int, required: Int)
    /// No reference fingerprint shares a beacon with the query.
    case noCommonBeacon
    /// The best match is too far in signal space to be trusted: the phone is probably elsewhere.
    case tooFar(distance: Float, threshold: Float)

    public var description: String {
        switch self {
        case .noKnownBeacon: "none of the beacons heard is part of the survey"
        case .tooFewBeacons(let heard, let required):
            "\(heard) surveyed beacon\(heard == 1 ? "" : "s") heard; at least \(required) needed"
        case .noCommonBeacon: "no surveyed fingerprint shares a beacon with the scan"
        case .tooFar(let distance, let threshold):
            "the best match is at distance \(distance), beyond the threshold \(threshold)"
        }
    }

    /// The stable machine-readable codes of the reasons: what the API and `survey locate` write, and what
    /// evaluation reports count unknown answers by.
    public enum Code: String, Codable, Sendable, CaseIterable {
        case noKnownBeacon = "no_known_beacon"
        case tooFewBeacons = "too_few_beacons"
        case noCommonBeacon = "no_common_beacon"
        case tooFar = "too_far"
    }

    /// A stable machine-readable code.
    public var code: Code {
        switch self {
        case .noKnownBeacon: .noKnownBeacon
        case .tooFewBeacons: .tooFewBeacons
        case .noCommonBeacon: .noCommonBeacon
        case .tooFar: .tooFar
        }
    }
}

/// The answer to one positioning query.
public struct LocationResult: Hashable, Sendable {
    public enum Outcome: Hashable, Sendable {
        case located(Position)
        case unknown(UnknownReason)
    }

    public var outcome: Outcome
    /// The best spots, nearest first.
    public var candidates: [SpotCandidate]
    /// Beacons of the query that the survey knows.
    public var matchedBeacons: Int
    /// Beacons of the query that the survey does not know.
    public var unmappedBeacons: [BeaconID]

    public init(outcome: Outcome, candidates: [SpotCandidate], matchedBeacons: Int, unmappedBeacons: [BeaconID]) {
        self.outcome = outcome
        self.candidates = candidates
        self.matchedBeacons = matchedBeacons
        self.unmappedBeacons = unmappedBeacons
    }

    /// The position, when located.
    public var position: Position? {
        if case .located(let position) = outcome { position } else { nil }
    }
}
