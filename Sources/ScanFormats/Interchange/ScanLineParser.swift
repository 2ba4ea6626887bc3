public import Positioning
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A single-pass parser for scan-log lines, the hot path of `survey record` (tens of thousands of lines
/// a second; Foundation's `JSONDecoder` manages a few thousand).
///
/// It reads the documented shape only: an object whose values are numbers, plain strings, `null`, or the
/// `beacons` array of `{uuid, major, minor, rssi}` objects; other keys are skipped whatever their value.
/// Anything it does not handle by itself (escaped strings, a missing or mistyped field, broken JSON)
/// returns nil, and ``ScanLogDecoder`` decodes that line with `JSONDecoder`, which produces the exact
/// error message. So the fast path changes speed, never results: tests hold it to `JSONDecoder`.
public struct ScanLineParser {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var strings: StringCache

    /// Strings that repeat from line to line (beacon UUIDs, device names, spots), kept so each is
    /// allocated once per log rather than once per reading.
    package struct StringCache {
        private var recent: [String] = []

        package init() {}

        /// The cached string equal to `bytes`, or a new one (remembered).
        mutating func string(_ bytes: UnsafeRawBufferPointer) -> String {
            for (position, candidate) in recent.enumerated() {
                var candidate = candidate
                let equal = candidate.withUTF8 { $0.count == bytes.count && memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
                if equal {
                    if position > 0 { recent.swapAt(position, position - 1) }
                    return candidate
                }
            }
            let string = String(decoding: bytes, as: UTF8.self)
            if recent.count >= 8 { recent.removeLast() }
            recent.insert(string, at: 0)
            return string
        }
    }

    init(_ bytes: UnsafeRawBufferPointer, strings: StringCache) {
        self.bytes = bytes
        self.strings = strings
    }

    /// Parses one line, or nil when the line needs `JSONDecoder`. `strings` carries interned strings from
    /// line to line.
    package static func parse(_ bytes: UnsafeRawBufferPointer, strings: inout StringCache) -> ScanLine? {
        var parser = ScanLineParser(bytes, strings: strings)
        defer { strings = parser.strings }
        return parser.line()
    }

    /// Parses `{"samples": [sample, ...]}`, the body of positiond's sample routes, where a sample is a
    /// scan-log line whose `t` and `device` may be missing; nil when the body needs `JSONDecoder`.
    public static func parseSamplesDocument(_ bytes: UnsafeRawBufferPointer) -> [(t: Double?, device: String?, beacons: [ScanLine.BeaconReading])]? {
        var parser = ScanLineParser(bytes, strings: StringCache())
        return parser.samplesDocument()
    }

    private mutating func samplesDocument() -> [(t: Double?, device: String?, beacons: [ScanLine.BeaconReading])]? {
        var samples: [(t: Double?, device: String?, beacons: [ScanLine.BeaconReading])]?
        guard consume(UInt8(ascii: "{")), !consume(UInt8(ascii: "}")) else { return nil }
        repeat {
            guard let raw = plainStringBytes(), consume(UInt8(ascii: ":")) else { return nil }
            if raw.count == 7, memcmp(raw.baseAddress!, "samples", 7) == 0 {
                guard samples == nil, consume(UInt8(ascii: "[")) else { return nil }
                var list: [(t: Double?, device: String?, beacons: [ScanLine.BeaconReading])] = []
                if !consume(UInt8(ascii: "]")) {
                    repeat {
                        guard let sample = object() else { return nil }
                        list.append((sample.t, sample.device, sample.beacons ?? []))
                        if sample.beacons == nil { return nil }
                    } while consume(UInt8(ascii: ","))
                    guard consume(UInt8(ascii: "]")) else { return nil }
                }
                samples = list
            } else {
                guard skipValue() else { return nil }
            }
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "}")), atEnd() else { return nil }
        return samples
    }

    private mutating func line() -> ScanLine? {
        guard let fields = object(), atEnd(), let t = fields.t, let device = fields.device, let beacons = fields.beacons else {
            return nil
        }
        return ScanLine(
            t: t, device: device, spot: fields.spot ?? nil, x: fields.x ?? nil, y: fields.y ?? nil, floor: fields.floor ?? nil,
            beacons: beacons)
    }

    /// The fields of one sample object, each nil when absent (`.some(nil)` when `null`).
    private struct Fields {
        var t: Double?, device: String?, spot: String??, x: Double??, y: Double??, floor: Int??
        var beacons: [ScanLine.BeaconReading]?
    }

    private mutating func object() -> Fields? {
        var t: Double?, device: String?, spot: String??, x: Double??, y: Double??, floor: Int??
        var beacons: [ScanLine.BeaconReading]?
        guard consume(UInt8(ascii: "{")) else { return nil }
        if consume(UInt8(ascii: "}")) { return nil }
        repeat {
            guard let key = keyBytes() else { return nil }
            switch key {
            case .t: guard t == nil, let value = fastNumber() else { return nil }; t = value
            case .device: guard device == nil, let value = internedString() else { return nil }; device = value
            case .spot: guard spot == nil, let value = nullable({ $0.internedString() }) else { return nil }; spot = value
            case .x: guard x == nil, let value = nullable({ $0.fastNumber() }) else { return nil }; x = value
            case .y: guard y == nil, let value = nullable({ $0.fastNumber() }) else { return nil }; y = value
            case .floor: guard floor == nil, let value = nullable({ $0.integer() }) else { return nil }; floor = value
            case .beacons: guard beacons == nil, let value = readings() else { return nil }; beacons = value
            default: guard skipValue() else { return nil }
            }
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "}")) else { return nil }
        return Fields(t: t, device: device, spot: spot, x: x, y: y, floor: floor, beacons: beacons)
    }

    private mutating func readings() -> [ScanLine.BeaconReading]? {
        guard consume(UInt8(ascii: "[")) else { return nil }
        var readings: [ScanLine.BeaconReading] = []
        if consume(UInt8(ascii: "]")) { return readings }
        repeat {
            guard consume(UInt8(ascii: "{")) else { return nil }
            var uuid: String?, major: Int?, minor: Int?, rssi: Double?
            repeat {
                guard let key = keyBytes() else { return nil }
                switch key {
                case .uuid: guard uuid == nil, let value = internedString() else { return nil }; uuid = value
                case .major: guard major == nil, let value = integer() else { return nil }; major = value
                case .minor: guard minor == nil, let value = integer() else { return nil }; minor = value
                case .rssi: guard rssi == nil, let value = fastNumber() else { return nil }; rssi = value
                default: guard skipValue() else { return nil }
                }
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "}")), let uuid, let major, let minor, let rssi else { return nil }
            readings.append(ScanLine.BeaconReading(uuid: uuid, major: major, minor: minor, rssi: rssi))
        } while consume(UInt8(ascii: ","))
        guard consume(UInt8(ascii: "]")) else { return nil }
        return readings
    }

    // MARK: Tokens

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"): index += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func atEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    /// `null` gives `.some(nil)`; a value gives `.some(value)`; anything else nil.
    private mutating func nullable<T>(_ value: (inout ScanLineParser) -> T?) -> T?? {
        if literal("null") { return .some(nil) }
        return value(&self).map { .some($0) }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        skipWhitespace()
        let length = word.utf8CodeUnitCount
        guard index + length <= bytes.count else { return false }
        for offset in 0..<length where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += length
        return true
    }

    /// The bytes of a string without escapes or control characters (those go to `JSONDecoder`).
    private mutating func plainStringBytes() -> UnsafeRawBufferPointer? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return UnsafeRawBufferPointer(rebasing: bytes[start..<(index - 1)])
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    private mutating func internedString() -> String? {
        guard let raw = plainStringBytes() else { return nil }
        return strings.string(raw)
    }

    /// The keys of the format.
    private enum Key {
        case t, device, spot, x, y, floor, beacons, uuid, major, minor, rssi, other

        var name: StaticString {
            switch self {
            case .t: "t"
            case .device: "device"
            case .spot: "spot"
            case .x: "x"
            case .y: "y"
            case .floor: "floor"
            case .beacons: "beacons"
            case .uuid: "uuid"
            case .major: "major"
            case .minor: "minor"
            case .rssi: "rssi"
            case .other: ""
            }
        }
    }

    /// A key and its colon, without allocating a string: dispatched on length and first byte, then checked.
    private mutating func keyBytes() -> Key? {
        guard let raw = plainStringBytes(), consume(UInt8(ascii: ":")) else { return nil }
        guard let first = raw.first else { return .other }
        let candidate: Key = switch (raw.count, first) {
        case (1, UInt8(ascii: "t")): .t
        case (1, UInt8(ascii: "x")): .x
        case (1, UInt8(ascii: "y")): .y
        case (4, UInt8(ascii: "u")): .uuid
        case (4, UInt8(ascii: "r")): .rssi
        case (4, UInt8(ascii: "s")): .spot
        case (5, UInt8(ascii: "m")): raw[1] == UInt8(ascii: "a") ? .major : .minor
        case (5, UInt8(ascii: "f")): .floor
        case (6, UInt8(ascii: "d")): .device
        case (7, UInt8(ascii: "b")): .beacons
        default: .other
        }
        guard candidate != .other, memcmp(candidate.name.utf8Start, raw.baseAddress!, raw.count) == 0 else { return .other }
        return candidate
    }

    /// A JSON number, converted by `strtod` (correctly rounded, like Foundation).
    private mutating func number() -> Double? {
        skipWhitespace()
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digits = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        guard index > digits else { return nil }
        // JSON forbids leading zeros ("01").
        if index - digits > 1, bytes[digits] == UInt8(ascii: "0") { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fraction = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > fraction else { return nil }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            // Foundation's JSON parser refuses some exponents of a bare 0 (`0e5`, though it takes `0e10`): the
            // fast path leaves every `0e…` and `-0e…` to it rather than guess.
            if index - digits == 1, bytes[digits] == UInt8(ascii: "0") { return nil }
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let exponent = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > exponent else { return nil }
        }
        let length = index - start
        guard length < 64 else { return nil }
        let value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            for offset in 0..<length { buffer[offset] = CChar(bitPattern: bytes[start + offset]) }
            buffer[length] = 0
            return strtod(buffer.baseAddress!, nil)
        }
        // strtod overflows `1e999` to infinity and underflows `1e-400` to zero, where JSONDecoder refuses
        // the number: leave both to JSONDecoder.
        guard value.isFinite else { return nil }
        if value == 0 {
            var mantissa = start
            while mantissa < index, bytes[mantissa] != UInt8(ascii: "e"), bytes[mantissa] != UInt8(ascii: "E") {
                if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[mantissa]) { return nil }
                mantissa += 1
            }
        }
        return value
    }

    /// An integer (a number with no fraction that fits an Int); JSONDecoder accepts `5.0` for Int too,
    /// so anything else goes to it.
    private mutating func integer() -> Int? {
        let start = index
        if let plain = plainInteger() { return plain }
        index = start
        guard let value = number() else { return nil }
        // Beyond 2^53 a Double no longer holds every integer: JSONDecoder reads such integers exactly.
        guard abs(value) < 9_007_199_254_740_992, let integer = Int(exactly: value) else {
            index = start
            return nil
        }
        return integer
    }

    /// `-?[0-9]{1,9}` not followed by a fraction or exponent: read without `strtod` (RSSI, major, minor).
    private mutating func plainInteger() -> Int? {
        skipWhitespace()
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        let digits = index
        var value = 0
        while index < bytes.count, index - digits < 10, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        let length = index - digits
        guard length > 0, length < 10, !(length > 1 && bytes[digits] == UInt8(ascii: "0")) else { return nil }
        if index < bytes.count {
            let next = bytes[index]
            if next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") || next.isDigit { return nil }
        }
        return negative ? -value : value
    }

    /// A number, integers read directly and everything else by `strtod`.
    private mutating func fastNumber() -> Double? {
        let start = index
        if let plain = plainInteger() { return Double(plain) }
        index = start
        return number()
    }

    /// How deeply unknown values may nest before the parser hands the body to `JSONDecoder` (which has
    /// its own limit): a hostile body of a million `[` must not exhaust the stack.
    static let maximumSkippedDepth = 32

    /// Skips any JSON value (for keys the format does not define), nested at most
    /// ``maximumSkippedDepth`` deep.
    private mutating func skipValue(depth: Int = 0) -> Bool {
        skipWhitespace()
        guard index < bytes.count, depth < Self.maximumSkippedDepth else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""): return plainStringBytes() != nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let close = bytes[index] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            let isObject = close == UInt8(ascii: "}")
            index += 1
            if consume(close) { return true }
            repeat {
                if isObject { guard plainStringBytes() != nil, consume(UInt8(ascii: ":")) else { return false } }
                guard skipValue(depth: depth + 1) else { return false }
            } while consume(UInt8(ascii: ","))
            return consume(close)
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number() != nil
        }
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
}
