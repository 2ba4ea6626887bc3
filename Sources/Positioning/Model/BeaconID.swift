public import Foundation

/// The identity of an iBeacon: proximity UUID, major and minor.
///
/// UUIDs compare case-insensitively (they are parsed, not compared as text). The text form is
/// `UUID:major:minor`, for example `E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:23`.
public struct BeaconID: Hashable, Sendable, Comparable {
    public var uuid: UUID
    public var major: UInt16
    public var minor: UInt16

    public init(uuid: UUID, major: UInt16, minor: UInt16) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    /// Creates an identity from its parts as they appear in JSON, validating each one.
    public init(uuidString: String, major: Int, minor: Int) throws(BeaconIDError) {
        var cache = UUIDParsingCache()
        try self.init(uuidString: uuidString, major: major, minor: minor, cache: &cache)
    }

    /// Parses the canonical 8-4-4-4-12 hexadecimal form, either case. Foundation's parser goes through
    /// `sscanf` on Linux, which dominated `survey record`; this reads the bytes directly.
    static func parseUUID(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { bytes -> UUID? in
            guard bytes.count == 36 else { return nil }
            var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let parsed = withUnsafeMutableBytes(of: &raw) { output -> Bool in
                var position = 0
                for index in 0..<16 {
                    if position == 8 || position == 13 || position == 18 || position == 23 {
                        guard bytes[position] == UInt8(ascii: "-") else { return false }
                        position += 1
                    }
                    guard let high = hexValue(bytes[position]), let low = hexValue(bytes[position + 1]) else { return false }
                    output[index] = high << 4 | low
                    position += 2
                }
                return true
            }
            return parsed ? UUID(uuid: raw) : nil
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Creates an identity from its parts as they appear in JSON, reusing `cache`'s last parse when the
    /// UUID text repeats: a log's readings mostly share one or two UUIDs.
    public init(uuidString: String, major: Int, minor: Int, cache: inout UUIDParsingCache) throws(BeaconIDError) {
        guard let uuid = cache.parse(uuidString) else { throw .invalidUUID(uuidString) }
        guard let major = UInt16(exactly: major) else { throw .outOfRange(field: "major", value: major) }
        guard let minor = UInt16(exactly: minor) else { throw .outOfRange(field: "minor", value: minor) }
        self.init(uuid: uuid, major: major, minor: minor)
    }

    /// Parses the text form `UUID:major:minor`.
    public init(parsing text: String) throws(BeaconIDError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let major = Int(parts[1]), let minor = Int(parts[2]) else {
            throw .malformed(text)
        }
        try self.init(uuidString: String(parts[0]), major: major, minor: minor)
    }

    /// Two 64-bit halves and one 32-bit word: hashing is on the hot path of recording and matching, and
    /// hashing the UUID's 16 bytes one by one cost several times more.
    public func hash(into hasher: inout Hasher) {
        let halves = withUnsafeBytes(of: uuid.uuid) { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
        hasher.combine(halves.0)
        hasher.combine(halves.1)
        hasher.combine(UInt32(major) << 16 | UInt32(minor))
    }

    /// Orders by UUID bytes (the same order as the upper-case text), then major, then minor.
    public static func < (lhs: BeaconID, rhs: BeaconID) -> Bool {
        if lhs.uuid != rhs.uuid {
            return withUnsafeBytes(of: lhs.uuid.uuid) { l in
                withUnsafeBytes(of: rhs.uuid.uuid) { r in l.lexicographicallyPrecedes(r) }
            }
        }
        if lhs.major != rhs.major { return lhs.major < rhs.major }
        return lhs.minor < rhs.minor
    }
}

extension BeaconID: CustomStringConvertible {
    /// `UUID:major:minor` with the UUID upper-cased.
    public var description: String { "\(uuid.uuidString):\(major):\(minor)" }
}

extension BeaconID: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Why a beacon identity could not be built.
public enum BeaconIDError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformed(String)
    case invalidUUID(String)
    case outOfRange(field: String, value: Int)

    public var description: String {
        switch self {
        case .malformed(let text):
            "'\(text)' is not a beacon identity; expected UUID:major:minor"
        case .invalidUUID(let text):
            "'\(text)' is not a UUID"
        case .outOfRange(let field, let value):
            "\(field) \(value) is outside 0...65535"
        }
    }
}

/// The last UUID text parsed and its value. Decoded logs intern repeated strings, so a repeat is
/// usually the very same string and the comparison costs one pointer check.
public struct UUIDParsingCache: Sendable {
    private var text: String?
    private var uuid: UUID?

    public init() {}

    /// The UUID `text` spells (either case), nil when it spells none.
    public mutating func parse(_ text: String) -> UUID? {
        if let uuid, text == self.text { return uuid }
        let parsed = BeaconID.parseUUID(text)
        if parsed != nil {
            self.text = text
            uuid = parsed
        }
        return parsed
    }
}

