import Foundation
import ScanFormats
import Testing

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
