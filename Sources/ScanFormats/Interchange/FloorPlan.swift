public import Foundation

/// Where a floor's plan image lies, in venue.json, in one of two ways.
///
/// **By two corners**, axis-aligned: `{"image": "plans/ground.svg", "top_left": {"x": 0, "y": 30},
/// "bottom_right": {"x": 40, "y": 0}}`. The image is laid on the venue's frame seen from above with +x to
/// the right and +y up: its top-left corner at `top_left` and its bottom-right corner at `bottom_right`,
/// venue metres, so it is stretched to that rectangle (what Leaflet's `imageOverlay(url, bounds)` draws).
/// `top_left` is left of and above `bottom_right`: a smaller x and a larger y.
///
/// **By two reference points**, for a plan drawn at an angle or at an unknown scale: `{"image":
/// "plans/ground.png", "reference_points": [{"pixel": {"x": 112, "y": 40}, "venue": {"x": 0, "y": 24}},
/// {"pixel": {"x": 1630, "y": 910}, "venue": {"x": 40, "y": 0}}]}`. Each marks a point of the image, in
/// its pixels from its top-left corner (x to the right, y down; for an SVG, units of its viewBox), and
/// where that point lies in venue metres. Rotation and a uniform scale follow, so the image keeps its
/// shape; its corners are found once its pixel size is known (``corners(pixelSize:)``).
///
/// `image` is a path relative to venue.json.
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

    /// A point marked on the image and where it lies in the venue.
    public struct ReferencePoint: Codable, Hashable, Sendable {
        /// Pixels from the image's top-left corner, y down.
        public var pixel: Point
        /// Venue metres.
        public var venue: Point

        public init(pixel: Point, venue: Point) {
            self.pixel = pixel
            self.venue = venue
        }
    }

    /// How the image is tied to the venue.
    public enum Anchoring: Hashable, Sendable {
        /// Axis-aligned, stretched between its top-left and bottom-right corners.
        case corners(topLeft: Point, bottomRight: Point)
        /// Rotated and scaled so that two marked pixels land on two venue points.
        case referencePoints(ReferencePoint, ReferencePoint)
    }

    /// The image file, relative to venue.json (`plans/ground.svg`): a PNG, a JPEG or an SVG.
    public var image: String
    public var anchoring: Anchoring

    public init(image: String, anchoring: Anchoring) {
        self.image = image
        self.anchoring = anchoring
    }

    /// An axis-aligned placement between two corners.
    public init(image: String, topLeft: Point, bottomRight: Point) {
        self.init(image: image, anchoring: .corners(topLeft: topLeft, bottomRight: bottomRight))
    }

    enum CodingKeys: String, CodingKey {
        case image
        case topLeft = "top_left"
        case bottomRight = "bottom_right"
        case referencePoints = "reference_points"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        image = try container.decode(String.self, forKey: .image)
        if container.contains(.referencePoints) {
            guard !container.contains(.topLeft), !container.contains(.bottomRight) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .referencePoints, in: container,
                    debugDescription: "a plan is placed by top_left and bottom_right or by reference_points, not both")
            }
            let points = try container.decode([ReferencePoint].self, forKey: .referencePoints)
            guard points.count == 2 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .referencePoints, in: container, debugDescription: "give exactly 2 reference points (got \(points.count))")
            }
            anchoring = .referencePoints(points[0], points[1])
        } else {
            anchoring = .corners(
                topLeft: try container.decode(Point.self, forKey: .topLeft), bottomRight: try container.decode(Point.self, forKey: .bottomRight))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(image, forKey: .image)
        switch anchoring {
        case .corners(let topLeft, let bottomRight):
            try container.encode(topLeft, forKey: .topLeft)
            try container.encode(bottomRight, forKey: .bottomRight)
        case .referencePoints(let first, let second):
            try container.encode([first, second], forKey: .referencePoints)
        }
    }

    /// Where the image's corners lie in venue metres. An axis-aligned placement needs no `pixelSize`; one
    /// by reference points needs the image's size in pixels, and is nil without it.
    public func corners(pixelSize: PixelSize?) -> FloorPlanCorners? {
        switch anchoring {
        case .corners(let topLeft, let bottomRight):
            return FloorPlanCorners(topLeft: topLeft, topRight: Point(x: bottomRight.x, y: topLeft.y), bottomRight: bottomRight)
        case .referencePoints(let first, let second):
            guard let pixelSize else { return nil }
            // A similarity (rotation, uniform scale, translation) as complex numbers: venue = a · p + b,
            // with p = (pixel x, -pixel y), since pixel y runs down the image and venue y up the plan.
            let (p1x, p1y, p2x, p2y) = (first.pixel.x, -first.pixel.y, second.pixel.x, -second.pixel.y)
            let (dpx, dpy) = (p2x - p1x, p2y - p1y)
            let (dvx, dvy) = (second.venue.x - first.venue.x, second.venue.y - first.venue.y)
            let norm = dpx * dpx + dpy * dpy
            let (ar, ai) = ((dvx * dpx + dvy * dpy) / norm, (dvy * dpx - dvx * dpy) / norm)
            let (br, bi) = (first.venue.x - (ar * p1x - ai * p1y), first.venue.y - (ar * p1y + ai * p1x))
            func venue(_ px: Double, _ py: Double) -> Point {
                let (x, y) = (px, -py)
                return Point(x: ar * x - ai * y + br, y: ar * y + ai * x + bi)
            }
            return FloorPlanCorners(
                topLeft: venue(0, 0), topRight: venue(pixelSize.width, 0), bottomRight: venue(pixelSize.width, pixelSize.height))
        }
    }

    /// The placement's problems as sentences, each naming floor `level`; empty when it is valid.
    public func problems(level: Int) -> [String] {
        var problems: [String] = []
        let name = "floor \(level)'s plan"
        if let reason = Self.pathProblem(image) { problems.append("\(name): image '\(image)' \(reason)") }
        switch anchoring {
        case .corners(let topLeft, let bottomRight):
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
        case .referencePoints(let first, let second):
            let values = [first.pixel.x, first.pixel.y, first.venue.x, first.venue.y, second.pixel.x, second.pixel.y, second.venue.x, second.venue.y]
            if !values.allSatisfy(\.isFinite) {
                problems.append("\(name) has a reference point that is not a finite number")
            } else {
                if first.pixel == second.pixel { problems.append("\(name): its two reference points mark the same pixel; mark two points far apart") }
                if first.venue == second.venue { problems.append("\(name): its two reference points lie at the same venue point; mark two points far apart") }
                if min(first.pixel.x, first.pixel.y, second.pixel.x, second.pixel.y) < 0 {
                    problems.append("\(name): a reference point's pixel is negative; pixels count from the image's top-left corner")
                }
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

    /// Checks `data`, read from `path` (whose extension must say the same type as the bytes); an SVG is
    /// made safe by ``SVGSanitizer`` (``importing(_:path:)`` also says what it took out).
    ///
    /// - Throws: ``FloorPlanError`` with a sentence naming the file.
    public init(data: Data, path: String) throws(FloorPlanError) {
        self = try Self.importing(data, path: path).image
    }

    /// An image imported from `path`: checked, an SVG made safe, and what was taken out of it said.
    public struct Import: Sendable, Hashable {
        public var image: FloorPlanImage
        /// What ``SVGSanitizer`` took out (`1 <script> element`); empty for a raster image or a clean SVG.
        public var removed: [String]
    }

    /// Checks `data`, read from `path`, and makes an SVG safe.
    ///
    /// - Throws: ``FloorPlanError`` with a sentence naming the file.
    public static func importing(_ data: Data, path: String) throws(FloorPlanError) -> Import {
        let checked = try checked(data: data, path: path)
        guard checked.mediaType == .svg else { return Import(image: checked, removed: []) }
        let safe = try SVGSanitizer().sanitize(data, path: path)
        return Import(image: FloorPlanImage(data: safe.data, mediaType: .svg), removed: safe.removed)
    }

    private static func checked(data: Data, path: String) throws(FloorPlanError) -> FloorPlanImage {
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
        return FloorPlanImage(data: data, mediaType: found)
    }

    /// An image already checked (read back from the store).
    public init(data: Data, mediaType: PlanMediaType) {
        self.data = data
        self.mediaType = mediaType
    }
}

/// An image's size in its own pixels (for an SVG, units of its viewBox).
public struct PixelSize: Hashable, Sendable, Codable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// Where a plan image's corners lie in venue metres; its fourth corner, bottom-left, follows.
public struct FloorPlanCorners: Hashable, Sendable, Codable {
    public var topLeft: FloorPlanPlacement.Point
    public var topRight: FloorPlanPlacement.Point
    public var bottomRight: FloorPlanPlacement.Point

    public init(topLeft: FloorPlanPlacement.Point, topRight: FloorPlanPlacement.Point, bottomRight: FloorPlanPlacement.Point) {
        self.topLeft = topLeft
        self.topRight = topRight
        self.bottomRight = bottomRight
    }

    public var bottomLeft: FloorPlanPlacement.Point {
        .init(x: topLeft.x + bottomRight.x - topRight.x, y: topLeft.y + bottomRight.y - topRight.y)
    }

    /// The four corners, clockwise from top-left.
    public var all: [FloorPlanPlacement.Point] { [topLeft, topRight, bottomRight, bottomLeft] }

    /// Whether the image lies with its edges along the venue's axes, top up (no rotation).
    public var isAxisAligned: Bool { topLeft.y == topRight.y && topRight.x == bottomRight.x && topLeft.x < topRight.x }
}

/// Why a floor plan's image was refused.
public struct FloorPlanError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
