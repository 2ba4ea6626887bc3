/// Why a window of samples was refused before matching: nothing in it can be matched against the venue.
///
/// A refusal is not an `unknown` answer: it says the query itself was empty for this venue (the API
/// answers it with 422), where `unknown` (``UnknownReason``) says a usable query could not be placed.
public enum LocateRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// No reading survived cleaning and frozen-beacon removal (every sample empty, RSSI 0 or out of
    /// range), or the window held no sample at all.
    case noUsableReading
    /// Beacons were heard, but none of them is part of the radio map; `heard` lists every one of them,
    /// sorted.
    case noKnownBeacon(heard: [BeaconID])

    /// The refusal as positiond's 422 answers it for `venue`: a few of the beacons heard are named, so a
    /// scan of the wrong venue or of unregistered beacons can be recognised.
    public func message(venue: String) -> String {
        message(surveyedIn: "venue '\(venue)'")
    }

    /// As ``message(venue:)``, for a caller that does not name the venue.
    public var description: String { message(surveyedIn: "this venue") }

    private func message(surveyedIn place: String) -> String {
        switch self {
        case .noUsableReading:
            "no known beacon: no usable beacon reading in the samples (all empty, 0 or out of range)"
        case .noKnownBeacon(let heard):
            // Five are enough to recognise the wrong venue's beacons; a scan can hold dozens.
            "no known beacon: none of the \(heard.count) beacons heard (\(heard.prefix(5).map(\.description).joined(separator: ", "))) is surveyed in \(place)"
        }
    }
}

/// The stateless locate of one window of samples, the same for positiond and `survey locate`: clean the
/// readings, drop those of frozen beacons, summarise the window into one fingerprint, lay it along the
/// radio map, and match it; a window with nothing of the venue in it is refused (``LocateRefusal``).
///
/// Within one window a frozen beacon can only show as a long burst of equal readings
/// (``StuckBeaconDetector``); tracking a device over time (``DeviceTracker``) keeps longer history.
public struct LocatePipeline: Sendable {
    /// Cleaning and fingerprinting.
    public var builder: FingerprintBuilder
    /// Matching and the position estimate.
    public var locator: Locator
    /// Equal consecutive readings after which a beacon counts as frozen and its readings are dropped.
    public var stuckRepeats: Int
    /// The venue's survey, in the representation of `locator`'s metric.
    public var map: RadioMap

    /// The pipeline of `configuration` (its builder, locator and ``TrackerConfiguration/stuckRepeats``)
    /// over `map`, which must have been built for that configuration.
    public init(configuration: PositioningConfiguration, map: RadioMap) {
        builder = configuration.builder
        locator = configuration.locator
        stuckRepeats = configuration.tracking.stuckRepeats
        self.map = map
    }

    /// Locates `window` (consecutive samples of one device, in time order).
    ///
    /// - Returns: the position, or `unknown` with its reason when the query matches nothing well enough.
    /// - Throws: ``LocateRefusal`` when the window holds no usable reading or no beacon of the map.
    public func locate(_ window: [Sample]) throws(LocateRefusal) -> LocationResult {
        locator.locate(try query(for: window), in: map)
    }

    /// The first half of ``locate(_:)``: `window` cleaned, rid of frozen beacons, summarised and laid
    /// along the map's columns, holding at least one beacon of the map.
    ///
    /// - Throws: ``LocateRefusal`` when the window holds no usable reading or no beacon of the map.
    public func query(for window: [Sample]) throws(LocateRefusal) -> QueryVector {
        let cleaned = window.map(builder.cleaner.clean)
        let live = StuckBeaconDetector.removingStuckReadings(from: cleaned, minimumRepeats: stuckRepeats).samples
        let fingerprint: Fingerprint
        do {
            fingerprint = try builder.fingerprint(ofCleaned: live)
        } catch {
            throw .noUsableReading
        }
        let query = map.query(for: fingerprint)
        guard query.presentCount > 0 else { throw .noKnownBeacon(heard: fingerprint.beacons) }
        return query
    }
}

extension LocationResult {
    /// A refused window as an `unknown` answer (reason ``UnknownReason/noKnownBeacon``, every beacon heard
    /// listed as unmapped): for callers that answer every window rather than refuse, as `survey locate`.
    public init(refused refusal: LocateRefusal) {
        let heard: [BeaconID] = switch refusal {
        case .noUsableReading: []
        case .noKnownBeacon(let heard): heard
        }
        self.init(outcome: .unknown(.noKnownBeacon), candidates: [], matchedBeacons: 0, unmappedBeacons: heard)
    }
}
