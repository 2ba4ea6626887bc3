import Foundation
import ScanFormats
import Testing
import VenueSimulator

@Suite("floor plans in venue.json")
struct FloorPlanTests {
    /// A 1 × 1 PNG.
    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!
    static let svg = Data(#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="40" height="24"/>"#.utf8)

    static let placement = FloorPlanPlacement(image: "plans/ground.svg", topLeft: .init(x: -1, y: 25), bottomRight: .init(x: 41, y: -1))

    @Test("a floor's plan is read from and written to venue.json with snake-case corners")
    func coding() throws {
        let json = #"{"level": 0, "name": "Ground", "plan": {"image": "plans/ground.svg", "top_left": {"x": -1, "y": 25}, "bottom_right": {"x": 41, "y": -1}}}"#
        let floor = try JSONDecoder().decode(VenueDefinition.Floor.self, from: Data(json.utf8))
        #expect(floor.plan == Self.placement)
        #expect(Self.placement.problems(level: 0).isEmpty)
    }

    @Test("bad placements are refused with the floor and the rule named", arguments: [
        (FloorPlanPlacement(image: "plans/g.svg", topLeft: .init(x: 41, y: 25), bottomRight: .init(x: -1, y: -1)), "top_left.x (41.0) must be less than bottom_right.x (-1.0)"),
        (FloorPlanPlacement(image: "plans/g.svg", topLeft: .init(x: -1, y: -1), bottomRight: .init(x: 41, y: 25)), "top_left.y (-1.0) must be greater than bottom_right.y (25.0)"),
        (FloorPlanPlacement(image: "plans/g.svg", topLeft: .init(x: .nan, y: 1), bottomRight: .init(x: 41, y: 0)), "not a finite number"),
        (FloorPlanPlacement(image: "../g.svg", topLeft: .init(x: 0, y: 1), bottomRight: .init(x: 1, y: 0)), "must not contain '.' or '..'"),
        (FloorPlanPlacement(image: "/etc/g.svg", topLeft: .init(x: 0, y: 1), bottomRight: .init(x: 1, y: 0)), "must be relative to venue.json"),
        (FloorPlanPlacement(image: "plans/g.gif", topLeft: .init(x: 0, y: 1), bottomRight: .init(x: 1, y: 0)), "must end in .png, .jpg, .jpeg or .svg"),
    ])
    func badPlacements(placement: FloorPlanPlacement, message: String) {
        let problems = placement.problems(level: 3)
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("floor 3's plan") == true && problems.first?.contains(message) == true, "\(problems)")
    }

    @Test("two reference points turn and scale the image: marked pixels land on their venue points, the image keeps its shape")
    func referencePoints() throws {
        // Given a 400 × 200 px plan whose pixels (0, 200) and (400, 200) (its bottom edge) are marked at
        // venue (10, 5) and at 40 m from there, 30 degrees anticlockwise from +x
        let angle = Double.pi / 6
        let far = FloorPlanPlacement.Point(x: 10 + 40 * cos(angle), y: 5 + 40 * sin(angle))
        let json = #"{"image": "plans/hall.png", "reference_points": [{"pixel": {"x": 0, "y": 200}, "venue": {"x": 10, "y": 5}}, {"pixel": {"x": 400, "y": 200}, "venue": {"x": \#(far.x), "y": \#(far.y)}}]}"#
        let placement = try JSONDecoder().decode(FloorPlanPlacement.self, from: Data(json.utf8))
        #expect(placement.problems(level: 0).isEmpty)
        // Then without the image's size there are no corners, and with it they lie where the turn puts them
        #expect(placement.corners(pixelSize: nil) == nil)
        let corners = try #require(placement.corners(pixelSize: PixelSize(width: 400, height: 200)))
        func near(_ point: FloorPlanPlacement.Point, _ x: Double, _ y: Double) -> Bool { abs(point.x - x) < 1e-9 && abs(point.y - y) < 1e-9 }
        #expect(near(corners.bottomLeft, 10, 5))
        #expect(near(corners.bottomRight, far.x, far.y))
        // The top edge is 20 m (200 px at 0.1 m a pixel) to the left of the bottom one, at a right angle
        #expect(near(corners.topLeft, 10 - 20 * sin(angle), 5 + 20 * cos(angle)))
        #expect(!corners.isAxisAligned)
        // And it encodes back to the same JSON members; giving corners and points together is refused
        #expect(try JSONDecoder().decode(FloorPlanPlacement.self, from: try JSONEncoder().encode(placement)) == placement)
        let both = #"{"image": "p.png", "top_left": {"x": 0, "y": 1}, "bottom_right": {"x": 1, "y": 0}, "reference_points": []}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(FloorPlanPlacement.self, from: Data(both.utf8)) }
        let one = #"{"image": "p.png", "reference_points": [{"pixel": {"x": 0, "y": 0}, "venue": {"x": 0, "y": 0}}]}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(FloorPlanPlacement.self, from: Data(one.utf8)) }
        let same = FloorPlanPlacement(image: "p.png", anchoring: .referencePoints(
            .init(pixel: .init(x: 5, y: 5), venue: .init(x: 0, y: 0)), .init(pixel: .init(x: 5, y: 5), venue: .init(x: 1, y: 0))))
        #expect(same.problems(level: 2) == ["floor 2's plan: its two reference points mark the same pixel; mark two points far apart"])
    }

    @Test("an image's size in pixels comes from its header: PNG, JPEG, an SVG's viewBox or its width and height")
    func pixelSizes() {
        // Given a 1 × 1 PNG, a minimal JPEG header with a 640 × 480 frame, and SVGs
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0xE0, 0x02, 0x80, 0x03])
        func svg(_ attributes: String) -> FloorPlanImage {
            FloorPlanImage(data: Data(#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" \#(attributes)></svg>"#.utf8), mediaType: .svg)
        }
        // Then each says its size, the viewBox winning over width and height; a size in other units says none
        #expect(FloorPlanImage(data: Self.png, mediaType: .png).pixelSize == PixelSize(width: 1, height: 1))
        #expect(FloorPlanImage(data: jpeg, mediaType: .jpeg).pixelSize == PixelSize(width: 640, height: 480))
        #expect(FloorPlanImage(data: Self.svg, mediaType: .svg).pixelSize == PixelSize(width: 40, height: 24))
        #expect(svg(#"width="100%" height="50%" viewBox="0 0 420 260""#).pixelSize == PixelSize(width: 420, height: 260))
        #expect(svg(#"width="12px" height='8px'"#).pixelSize == PixelSize(width: 12, height: 8))
        #expect(svg(#"width="12cm" height="8cm""#).pixelSize == nil)
        #expect(FloorPlanImage(data: Data([0xFF, 0xD8, 0xFF]), mediaType: .jpeg).pixelSize == nil)
    }

    @Test("the media type comes from the bytes and must agree with the extension")
    func mediaTypes() throws {
        #expect(try FloorPlanImage(data: Self.png, path: "a.PNG").mediaType == .png)
        #expect(try FloorPlanImage(data: Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]), path: "a.jpg").mediaType == .jpeg)
        #expect(try FloorPlanImage(data: Self.svg, path: "a.svg").mediaType == .svg)
        #expect(throws: FloorPlanError("a.svg is named as image/svg+xml but its content is image/png: rename it or give the right file")) {
            try FloorPlanImage(data: Self.png, path: "a.svg")
        }
        #expect(throws: FloorPlanError("notes.png is not a PNG, JPEG or SVG image (its first bytes are none of theirs)")) {
            try FloorPlanImage(data: Data("hello".utf8), path: "notes.png")
        }
    }

    @Test("demo-hall's SVG plans draw each wall of their floor and the hall's outline where the placement puts them")
    func demoHallPlans() throws {
        // Given demo-hall as the simulator builds it
        let venue = try SimulatedVenues.demoHall(seed: 7)
        // When its floors' plans are drawn
        let ground = try #require(venue.floorPlanSVG(level: 0))
        let gallery = try #require(venue.floorPlanSVG(level: 1))
        // Then each has a line per wall of its floor, at 10 px a metre from the top-left corner (-1, 25)
        #expect(ground.components(separatedBy: "<line ").count - 1 == 4)
        #expect(gallery.components(separatedBy: "<line ").count - 1 == 3)
        #expect(ground.contains(#"<line x1="110" y1="250" x2="110" y2="150""#), "the entrance wall from (10, 0) to (10, 10)")
        #expect(gallery.contains(#"<line x1="210" y1="130" x2="410" y2="130""#), "the concrete wall from (20, 12) to (40, 12)")
        // And the 40 × 24 m hall's outline, on an image exactly the size of the placement's rectangle
        #expect(ground.contains(#"<rect x="10" y="10" width="400" height="240""#))
        #expect(ground.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg" width="420" height="260" viewBox="0 0 420 260">"#))
        // And the drawing is an SVG by its bytes, as the store checks; a venue without an outline has no plan
        #expect(try FloorPlanImage(data: Data(ground.utf8), path: "plans/ground.svg").mediaType == .svg)
        #expect(try SimulatedVenues.grid(beacons: 4, spots: 4, seed: 1).floorPlanSVG(level: 0) == nil)
    }

    @Test("an image over 10 MiB is refused, saying the limit")
    func oversized() {
        let big = Self.png + Data(count: FloorPlanImage.maximumBytes)
        #expect(throws: FloorPlanError("big.png is \(big.count) bytes; a floor plan may be at most 10485760 bytes (10 MiB): shrink or compress the image")) {
            try FloorPlanImage(data: big, path: "big.png")
        }
    }
}

@Suite("venue.json: beacon status")
struct BeaconStatusTests {
    @Test("a beacon's status is active or retired; any other name is refused with the beacon's place and the names it may have")
    func status() throws {
        // Given a venue whose second beacon has a status this build does not know
        func venue(_ status: String) -> Data {
            Data(#"""
                {"id": "v", "name": "V", "floors": [{"level": 0, "name": "G"}], "spots": [],
                 "beacons": [{"uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D", "major": 1, "minor": 1},
                             {"uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D", "major": 1, "minor": 2, "status": "\#(status)"}]}
                """#.utf8)
        }
        // Then the known names decode typed, and the unknown one is an error naming where and why
        #expect(try JSONDecoder().decode(VenueDefinition.self, from: venue("retired")).beacons[1].status == .retired)
        #expect(try JSONDecoder().decode(VenueDefinition.self, from: venue("active")).beacons.map(\.status) == [nil, .active])
        do {
            _ = try JSONDecoder().decode(VenueDefinition.self, from: venue("broken"))
            Issue.record("an unknown status must be refused")
        } catch let error as DecodingError {
            let message = ScanLogDecoder.explain(error)
            #expect(message.contains("beacons") && message.contains("'active' or 'retired', not 'broken'"), "\(message)")
        }
    }
}
