public import Foundation

/// Where a floor's plan image lies, in venue.json: `{"image": "plans/ground.svg", "top_left": {"x": 0,
/// "y": 30}, "bottom_right": {"x": 40, "y": 0}}`.
///
/// The image is laid axis-aligned on the venue's frame seen from above with +x to the right and +y up:
/// its top-left corner at `top_left` and its bottom-right corner at `bottom_right`, venue metres, so it
/// is stretched to that rectangle (what Leaflet's `imageOverlay(url, bounds)` draws). `top_left` is left
/// of and above `bottom_right`: a smaller x and a larger y. `image` is a path relative to venue.json.
public struct FloorPlanPlacement: Codable, Hashable, Sendable {
    /// A point in venue metres.
    public struct Point: Codable, Hashable, Sendable {
        public var x: Double
        public var y: Double

        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// The image file, relative to venue.json (`plans/ground.svg`): a PNG, a JPEG or an SVG.
    public var image: String
    public var topLeft: Point
    public var bottomRight: Point

    public init(image: String, topLeft: Point, bottomRight: Point) {
        self.image = image
        self.topLeft = topLeft
        self.bottomRight = bottomRight
    }

    enum CodingKeys: String, CodingKey {
        case image
        case topLeft = "top_left"
        case bottomRight = "bottom_right"
    }

    /// The placement's problems as sentences, each naming floor `level`; empty when it is valid.
    public func problems(level: Int) -> [String] {
        var problems: [String] = []
        let name = "floor \(level)'s plan"
        if let reason = Self.pathProblem(image) { problems.append("\(name): image '\(image)' \(reason)") }
        let values = [topLeft.x, topLeft.y, bottomRight.x, bottomRight.y]
        if !values.allSatisfy(\.isFinite) {
            problems.append("\(name) has a corner that is not a finite number")
        } else {
            if topLeft.x >= bottomRight.x {
                problems.append("\(name): top_left.x (\(topLeft.x)) must be less than bottom_right.x (\(bottomRight.x)); the image's left edge is its smaller x")
            }
            if topLeft.y <= bottomRight.y {
                problems.append("\(name): top_left.y (\(topLeft.y)) must be greater than bottom_right.y (\(bottomRight.y)); venue y grows up the image")
            }
        }
        return problems
    }

    /// Why `path` cannot name a plan next to venue.json, or nil.
    static func pathProblem(_ path: String) -> String? {
        if path.isEmpty { return "is empty" }
        if path.hasPrefix("/") { return "must be relative to venue.json" }
        if path.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) { return "must not contain '.' or '..'" }
        if PlanMediaType(pathExtension: path) == nil { return "must end in .png, .jpg, .jpeg or .svg" }
        return nil
    }
}

/// The image formats a floor plan may be in.
public enum PlanMediaType: String, Codable, Hashable, Sendable, CaseIterable {
    case png = "image/png"
    case jpeg = "image/jpeg"
    case svg = "image/svg+xml"

    /// The type a file name's extension says, case-insensitively; nil for any other.
    public init?(pathExtension path: String) {
        switch path.split(separator: ".").last.map({ $0.lowercased() }) {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        case "svg": self = .svg
        default: return nil
        }
    }

    /// The type the first bytes show: PNG's and JPEG's signatures, or an XML or `<svg` opening.
    public init?(magic data: Data) {
        let head = data.prefix(1024)
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if head.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if let text = String(data: head.starts(with: [0xEF, 0xBB, 0xBF]) ? head.dropFirst(3) : head, encoding: .utf8),
            text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<"), text.contains("<svg")
        {
            self = .svg
        } else {
            return nil
        }
    }
}

/// A floor plan's image, checked: at most ``maximumBytes``, and a PNG, JPEG or SVG whose content agrees
/// with its file name.
public struct FloorPlanImage: Hashable, Sendable {
    /// 10 MiB: a detailed plan is a few hundred kilobytes; the daemon serves the image whole.
    public static let maximumBytes = 10 * 1024 * 1024

    public var data: Data
    public var mediaType: PlanMediaType

    /// Checks `data`, read from `path` (whose extension must say the same type as the bytes).
    ///
    /// - Throws: ``FloorPlanError`` with a sentence naming the file.
    public init(data: Data, path: String) throws(FloorPlanError) {
        guard data.count <= Self.maximumBytes else {
            throw FloorPlanError("\(path) is \(data.count) bytes; a floor plan may be at most \(Self.maximumBytes) bytes (10 MiB): shrink or compress the image")
        }
        guard let named = PlanMediaType(pathExtension: path) else {
            throw FloorPlanError("\(path): a floor plan must be a .png, .jpg, .jpeg or .svg file")
        }
        guard let found = PlanMediaType(magic: data) else {
            throw FloorPlanError("\(path) is not a PNG, JPEG or SVG image (its first bytes are none of theirs)")
        }
        guard found == named else {
            throw FloorPlanError("\(path) is named as \(named.rawValue) but its content is \(found.rawValue): rename it or give the right file")
        }
        self.init(data: data, mediaType: found)
    }

    /// An image already checked (read back from the store).
    public init(data: Data, mediaType: PlanMediaType) {
        self.data = data
        self.mediaType = mediaType
    }
}

/// Why a floor plan's image was refused.
public struct FloorPlanError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
