import Foundation
import Hummingbird
package import NIOCore
import Positioning

/// Writes compact JSON straight into a buffer, for the hot answers (locate, tracked samples): JSONEncoder
/// took a fifth of the daemon's time under load. Keys are written in sorted order, and numbers as
/// JSONEncoder writes them, so the bytes are the same.
package struct JSONWriter {
    private(set) var buffer: ByteBuffer
    private var needsComma = false

    init(capacity: Int = 1024) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    mutating func object(_ body: (inout JSONWriter) -> Void) {
        separate()
        buffer.writeStaticString("{")
        needsComma = false
        body(&self)
        buffer.writeStaticString("}")
        needsComma = true
    }

    mutating func array<C: Collection>(_ elements: C, _ body: (inout JSONWriter, C.Element) -> Void) {
        separate()
        buffer.writeStaticString("[")
        needsComma = false
        for element in elements { body(&self, element) }
        buffer.writeStaticString("]")
        needsComma = true
    }

    mutating func key(_ name: StaticString) {
        separate()
        buffer.writeStaticString("\"")
        buffer.writeStaticString(name)
        buffer.writeStaticString("\":")
        needsComma = false
    }

    mutating func string(_ value: String) {
        separate()
        buffer.writeStaticString("\"")
        var plain = true
        for byte in value.utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            plain = false
            break
        }
        if plain {
            buffer.writeString(value)
        } else {
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": buffer.writeStaticString("\\\"")
                case "\\": buffer.writeStaticString("\\\\")
                case "\n": buffer.writeStaticString("\\n")
                case "\r": buffer.writeStaticString("\\r")
                case "\t": buffer.writeStaticString("\\t")
                case _ where scalar.value < 0x20: buffer.writeString(String(format: "\\u%04x", scalar.value))
                default: buffer.writeString(String(scalar))
                }
            }
        }
        buffer.writeStaticString("\"")
        needsComma = true
    }

    mutating func number(_ value: Double) {
        separate()
        // JSONEncoder writes integral values without a fraction, the others in their shortest exact form.
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            buffer.writeString(String(Int64(value)))
        } else {
            buffer.writeString(value.description)
        }
        needsComma = true
    }

    mutating func number(_ value: Int) {
        separate()
        buffer.writeString(String(value))
        needsComma = true
    }

    mutating func null() {
        separate()
        buffer.writeStaticString("null")
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { buffer.writeStaticString(",") }
    }
}

// The generated types of the two hot answers, written member by member in the order JSONEncoder's sorted
// keys give (tests compare the bytes with JSONEncoder's for the same values).
extension JSONWriter {
    /// A 200 response of `locate`.
    static func response(_ locate: Components.Schemas.Locate) -> Response { response(bytes(of: locate)) }

    /// A 200 response of `device`.
    static func response(_ device: Components.Schemas.Device) -> Response { response(bytes(of: device)) }

    private static func response(_ buffer: ByteBuffer) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: buffer))
    }

    /// The JSON of `locate`.
    package static func bytes(of locate: Components.Schemas.Locate) -> ByteBuffer {
        var json = JSONWriter()
        json.object { json in
            json.locationMembers(
                candidates: locate.candidates, matchedBeacons: locate.matchedBeacons, position: locate.position,
                reason: locate.reason, revision: locate.revision, status: locate.status, unmappedBeacons: locate.unmappedBeacons)
            json.key("venue"); json.string(locate.venue)
        }
        return json.buffer
    }

    /// The JSON of `device`.
    package static func bytes(of device: Components.Schemas.Device) -> ByteBuffer {
        var json = JSONWriter(capacity: 2048)
        json.object { json in
            json.key("device"); json.string(device.device)
            json.key("events")
            json.array(device.events) { json, event in
                json.object { json in
                    json.key("kind"); json.string(event.kind.rawValue)
                    json.key("time"); json.number(event.time)
                    json.key("zone"); json.string(event.zone)
                }
            }
            if let position = device.position { json.key("position"); json.position(position) }
            json.key("raw")
            json.object { json in
                let raw = device.raw
                json.locationMembers(
                    candidates: raw.candidates, matchedBeacons: raw.matchedBeacons, position: raw.position, reason: raw.reason,
                    revision: raw.revision, status: raw.status, unmappedBeacons: raw.unmappedBeacons)
            }
            json.key("revision"); json.number(device.revision)
            json.key("status"); json.string(device.status.rawValue)
            json.key("stuck_beacons")
            json.array(device.stuckBeacons) { json, beacon in json.string(beacon) }
            json.key("time"); json.number(device.time)
            if let track = device.track { json.key("track"); json.string(track.rawValue) }
            json.key("venue"); json.string(device.venue)
            json.key("window_samples"); json.number(device.windowSamples)
            if let zone = device.zone { json.key("zone"); json.string(zone) }
        }
        return json.buffer
    }

    mutating func position(_ position: Components.Schemas.Position) {
        object { json in
            json.key("accuracy_m"); json.number(position.accuracyM)
            if let covariance = position.covarianceM2 {
                json.key("covariance_m2")
                json.object { json in
                    json.key("xx"); json.number(covariance.xx)
                    json.key("xy"); json.number(covariance.xy)
                    json.key("yy"); json.number(covariance.yy)
                }
            }
            json.key("floor"); json.number(position.floor)
            if let lat = position.lat { json.key("lat"); json.number(lat) }
            if let lon = position.lon { json.key("lon"); json.number(lon) }
            json.key("spot"); json.string(position.spot)
            json.key("x"); json.number(position.x)
            json.key("y"); json.number(position.y)
            if let zone = position.zone { json.key("zone"); json.string(zone) }
        }
    }

    /// The members that `Locate` and `LocationReport` share, in key order; both put nothing else before
    /// `unmapped_beacons`.
    mutating func locationMembers(
        candidates: [Components.Schemas.Candidate], matchedBeacons: Int, position: Components.Schemas.Position?,
        reason: Components.Schemas.Reason?, revision: Int?, status: Components.Schemas.LocationStatus, unmappedBeacons: [String]
    ) {
        key("candidates")
        array(candidates) { json, candidate in
            json.object { json in
                json.key("distance"); json.number(candidate.distance)
                json.key("floor"); json.number(candidate.floor)
                json.key("spot"); json.string(candidate.spot)
                if let zone = candidate.zone { json.key("zone"); json.string(zone) }
            }
        }
        key("matched_beacons"); number(matchedBeacons)
        if let position { key("position"); self.position(position) }
        if let reason {
            key("reason")
            object { json in
                json.key("code"); json.string(reason.code.rawValue)
                json.key("message"); json.string(reason.message)
            }
        }
        if let revision { key("revision"); number(revision) }
        key("status"); string(status.rawValue)
        key("unmapped_beacons")
        array(unmappedBeacons) { json, beacon in json.string(beacon) }
    }
}
