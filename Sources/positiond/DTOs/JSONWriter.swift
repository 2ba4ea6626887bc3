import Foundation
import Hummingbird
import NIOCore
import Positioning

/// Writes compact JSON straight into a buffer, for the hot response (locate; tracked samples still use JSONEncoder):
/// JSONEncoder with sorted, snake-cased keys took a fifth of the daemon's time under load. Keys are
/// written in sorted order, and numbers as JSONEncoder writes them, so the bytes are the same.
struct JSONWriter {
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

    /// A 200 response of the written JSON.
    func response() -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: buffer))
    }
}

extension JSONWriter {
    mutating func position(_ position: Position) {
        object { json in
            json.key("accuracy_m"); json.number(position.accuracy)
            json.key("floor"); json.number(position.floor)
            json.key("spot"); json.string(position.spot)
            json.key("x"); json.number(position.x)
            json.key("y"); json.number(position.y)
            if let zone = position.zone { json.key("zone"); json.string(zone) }
        }
    }

    /// The members of a ``LocationReport`` in key order, `venue` (when given) between `unmapped_beacons`
    /// and nothing else: both responses sort keys alphabetically.
    mutating func reportMembers(_ report: LocationReport, revision: Int?, venue: String?) {
        key("candidates")
        array(report.candidates) { json, candidate in
            json.object { json in
                json.key("distance"); json.number(candidate.distance)
                json.key("floor"); json.number(candidate.floor)
                json.key("spot"); json.string(candidate.spot)
                if let zone = candidate.zone { json.key("zone"); json.string(zone) }
            }
        }
        key("matched_beacons"); number(report.matchedBeacons)
        if let position = report.position { key("position"); self.position(position) }
        if let reason = report.reason {
            key("reason")
            object { json in
                json.key("code"); json.string(reason.code.rawValue)
                json.key("message"); json.string(reason.message)
            }
        }
        if let revision { key("revision"); number(revision) }
        key("status"); string(report.status.rawValue)
        key("unmapped_beacons")
        array(report.unmappedBeacons) { json, beacon in json.string(beacon) }
        if let venue { key("venue"); string(venue) }
    }
}
