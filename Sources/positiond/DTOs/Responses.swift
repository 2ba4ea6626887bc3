import ScanFormats
import FingerprintStore
import Foundation
import Hummingbird
import Positioning

/// `GET /v1/venues`.
struct VenueListResponse: ResponseEncodable {
    var venues: [VenueSummary]
}

/// `GET /v1/venues/{venue}`: what an app needs to draw the venue.
struct VenueResponse: ResponseEncodable {
    struct Beacon: Codable {
        var id: String
        var uuid: String
        var major: Int
        var minor: Int
        var label: String?
        var x: Double?
        var y: Double?
        var floor: Int?
    }

    var id: String
    var name: String
    var revision: Int
    var floors: [VenueDefinition.Floor]
    var spots: [Spot]
    /// Active beacons only.
    var beacons: [Beacon]
    var fingerprints: Int

    init(_ details: VenueDetails) {
        id = details.id
        name = details.name
        revision = details.revision
        floors = details.floors
        spots = details.spots
        beacons = details.activeBeacons.map {
            Beacon(
                id: $0.id.description, uuid: $0.id.uuid.uuidString, major: Int($0.id.major), minor: Int($0.id.minor),
                label: $0.label, x: $0.x, y: $0.y, floor: $0.floor)
        }
        fingerprints = details.fingerprints
    }
}

/// `POST /v1/venues/{venue}/locate`.
struct LocateResponse: ResponseEncodable, ResponseGenerator {
    var venue: String
    var status: String
    var position: Position?
    var reason: LocationReport.Reason?
    var candidates: [LocationReport.Candidate]
    var matchedBeacons: Int
    var unmappedBeacons: [String]
    var revision: Int

    init(venue: String, report: LocationReport, revision: Int) {
        self.venue = venue
        status = report.status.rawValue
        position = report.position
        reason = report.reason
        candidates = report.candidates
        matchedBeacons = report.matchedBeacons
        unmappedBeacons = report.unmappedBeacons
        self.revision = revision
        self.report = report
    }

    private var report: LocationReport

    private enum CodingKeys: String, CodingKey {
        case venue, status, position, reason, candidates, matchedBeacons, unmappedBeacons, revision
    }

    /// Written by hand: this is the hot route (see ``JSONWriter``); same bytes as the Codable form.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        var json = JSONWriter()
        json.object { json in json.reportMembers(report, revision: revision, venue: venue) }
        return json.response()
    }
}

/// `POST .../devices/{device}/samples` and `GET .../devices/{device}`.
struct DeviceResponse: ResponseEncodable {
    var venue: String
    var device: String
    var revision: Int
    /// Time of the last sample, seconds since the Unix epoch.
    var time: Double
    /// `located` once the device has a smoothed position, `unknown` before.
    var status: String
    /// The smoothed position.
    var position: Position?
    /// The zone the device is in, after hysteresis.
    var zone: String?
    /// Zone enter/exit events the posted samples caused, in order.
    var events: [ZoneEvent]
    /// The unsmoothed answer for the device's recent window.
    var raw: LocationReport
    /// Beacons ignored because their RSSI is frozen (a hung BLE stack).
    var stuckBeacons: [String]
    var windowSamples: Int

    init(venue: String, device: String, revision: Int, update: TrackingUpdate, zone: String?, events: [ZoneEvent]) {
        self.venue = venue
        self.device = device
        self.revision = revision
        time = update.time
        status = update.position == nil ? "unknown" : "located"
        position = update.position
        self.zone = zone
        self.events = events
        raw = LocationReport(update.raw, revision: revision)
        stuckBeacons = update.stuckBeacons.map(\.description)
        windowSamples = update.windowSamples
    }
}

/// `POST /v1/venues/{venue}/proximity`.
struct ProximityResponse: ResponseEncodable {
    struct Candidate: Codable {
        var beacon: String
        var spot: String?
        var meanRssi: Double
        var samples: Int
        var strongestIn: Int
    }

    /// `nearest`, `undecided` or `nothing`.
    var decision: String
    /// The spot (table) of the nearest beacon, when it names one.
    var spot: Spot?
    var beacon: String?
    /// dB by which the nearest beacon beats the runner-up.
    var marginDb: Double?
    var reason: String?
    var candidates: [Candidate]
}

/// `GET /healthz`.
struct HealthResponse: ResponseEncodable {
    var status: String
}

/// `GET /readyz`.
struct ReadinessResponse: ResponseEncodable {
    var status: String
    var venues: [String: Int]
}

/// Live messages (`GET /v1/venues/{venue}/live`).
struct SubscribedMessage: Codable {
    var type = "subscribed"
    var venue: String
    var device: String?
    var revision: Int
}

struct PositionMessage: Codable {
    var type = "position"
    var venue: String
    var device: String
    var time: Double
    var position: Position
    var zone: String?
}

struct ZoneMessage: Codable {
    var type = "zone"
    var venue: String
    var device: String
    /// `enter` or `exit`.
    var event: String
    var zone: String
    var time: Double
}

struct RevisionMessage: Codable {
    var type = "revision"
    var venue: String
    var revision: Int
}
