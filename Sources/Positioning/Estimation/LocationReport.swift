/// Whether a query was given a position; encoded as `located` or `unknown`.
public enum LocationStatus: String, Codable, Sendable {
    case located
    case unknown
}

/// A ``LocationResult`` in the vocabulary of the API and the command line: what `positiond` answers and
/// `survey locate` prints, so the two cannot drift apart.
public struct LocationReport: Codable, Hashable, Sendable {
    public struct Candidate: Codable, Hashable, Sendable {
        public var spot: String
        public var floor: Int
        public var zone: String?
        /// Signal-space distance of the spot to the scan (smaller is nearer).
        public var distance: Double
    }

    public struct Reason: Codable, Hashable, Sendable {
        /// Stable machine-readable code: `no_known_beacon`, `too_few_beacons`, `no_common_beacon`, `too_far`.
        public var code: UnknownReason.Code
        public var message: String
    }

    /// `located`, or `unknown` with a ``reason``.
    public var status: LocationStatus
    public var position: Position?
    /// Why the scan could not be located (status `unknown` only).
    public var reason: Reason?
    /// The best spots, nearest first.
    public var candidates: [Candidate]
    /// Beacons of the scan that the survey knows.
    public var matchedBeacons: Int
    /// Beacons of the scan that the survey does not know (`UUID:major:minor`).
    public var unmappedBeacons: [String]
    /// The venue revision the answer was computed with.
    public var revision: Int?

    /// The report of `result`; its position carries `lat`/`lon` when the venue has an `anchor`.
    public init(_ result: LocationResult, revision: Int?, anchor: GeoAnchor? = nil) {
        switch result.outcome {
        case .located(let position):
            status = .located
            self.position = position.anchored(by: anchor)
            reason = nil
        case .unknown(let why):
            status = .unknown
            position = nil
            reason = Reason(code: why.code, message: why.description)
        }
        candidates = result.candidates.map {
            Candidate(spot: $0.spot.name, floor: $0.spot.floor, zone: $0.spot.zone, distance: Double($0.distance))
        }
        matchedBeacons = result.matchedBeacons
        unmappedBeacons = result.unmappedBeacons.map(\.description)
        self.revision = revision
    }
}
