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

    @Test("an image over 10 MiB is refused, saying the limit")
    func oversized() {
        let big = Self.png + Data(count: FloorPlanImage.maximumBytes)
        #expect(throws: FloorPlanError("big.png is \(big.count) bytes; a floor plan may be at most 10485760 bytes (10 MiB): shrink or compress the image")) {
            try FloorPlanImage(data: big, path: "big.png")
        }
    }
}
