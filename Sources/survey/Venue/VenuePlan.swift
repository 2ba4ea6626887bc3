import ArgumentParser
import FingerprintStore
import Foundation
import ScanFormats

extension Survey.Venue {
    /// `survey venue plan --venue V --floor N --image F (--top-left X,Y --bottom-right X,Y | --reference-point PX,PY=X,Y ×2)`.
    struct Plan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plan",
            abstract: "Set or replace one floor's plan image and where it lies in venue metres.",
            discussion: """
                The image (PNG, JPEG or SVG, at most 10 MiB; its content must match its extension) is stored in \
                the database and placed in one of two ways. With --top-left and --bottom-right it is laid \
                axis-aligned: its top-left corner at --top-left and its bottom-right corner at --bottom-right, \
                venue metres, so top-left has the smaller x and the larger y. With two --reference-point options \
                (a plan drawn at an angle or at an unknown scale) each marks a pixel of the image (from its \
                top-left corner, y down; for an SVG, viewBox units) and the venue point it lies at: rotation and \
                scale follow, and the image keeps its shape. One transaction; the venue's revision increases, so a \
                running positiond serves the new plan within seconds. 'survey export' writes it as \
                plans/floor-N.EXT beside venue.json.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: "The venue.")
        var venue: String

        @Option(name: .long, help: "The floor's level.")
        var floor: Int

        @Option(name: .long, help: ArgumentHelp("The plan image: .png, .jpg, .jpeg or .svg.", valueName: "file"))
        var image: String

        // Unconditional: a corner often starts with a minus sign (-1,25), which must not read as an option.
        @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Venue metres of the image's top-left corner.", valueName: "x,y"))
        var topLeft: String?

        @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Venue metres of the image's bottom-right corner.", valueName: "x,y"))
        var bottomRight: String?

        @Option(
            name: .long, parsing: .unconditionalSingleValue,
            help: ArgumentHelp("A pixel of the image and the venue metres it lies at; give two.", valueName: "px,py=x,y"))
        var referencePoint: [String] = []

        func validate() throws {
            guard !venue.isEmpty else { throw ValidationError("--venue is empty; give the venue's id.") }
            guard PlanMediaType(pathExtension: image) != nil else {
                throw ValidationError("--image must be a .png, .jpg, .jpeg or .svg file (got '\(image)').")
            }
            let problems = try placement().problems(level: floor)
            guard problems.isEmpty else { throw ValidationError(problems.joined(separator: "; ") + ".") }
        }

        /// The placement the options give; the stored name is plans/floor-N.EXT, unique per floor.
        func placement() throws -> FloorPlanPlacement {
            let name = "plans/floor-\(floor).\(URL(fileURLWithPath: image).pathExtension.lowercased())"
            switch (topLeft, bottomRight, referencePoint.count) {
            case (let topLeft?, let bottomRight?, 0):
                return FloorPlanPlacement(
                    image: name, topLeft: try Self.point(topLeft, option: "--top-left"),
                    bottomRight: try Self.point(bottomRight, option: "--bottom-right"))
            case (nil, nil, 2):
                let points = try referencePoint.map(Self.referencePoint)
                return FloorPlanPlacement(image: name, anchoring: .referencePoints(points[0], points[1]))
            default:
                throw ValidationError(
                    "Place the plan with --top-left and --bottom-right, or with two --reference-point options, not both (got \(topLeft == nil ? "no" : "a") --top-left, \(bottomRight == nil ? "no" : "a") --bottom-right and \(referencePoint.count) --reference-point).")
            }
        }

        static func point(_ text: String, option: String) throws -> FloorPlanPlacement.Point {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let x = parts[0], let y = parts[1], x.isFinite, y.isFinite else {
                throw ValidationError("\(option) takes venue metres as x,y, such as 0,24 (got '\(text)').")
            }
            return FloorPlanPlacement.Point(x: x, y: y)
        }

        static func referencePoint(_ text: String) throws -> FloorPlanPlacement.ReferencePoint {
            let sides = text.split(separator: "=", omittingEmptySubsequences: false)
            guard sides.count == 2 else {
                throw ValidationError("--reference-point takes a pixel and venue metres as px,py=x,y, such as 112,40=0,24 (got '\(text)').")
            }
            return FloorPlanPlacement.ReferencePoint(
                pixel: try point(String(sides[0]), option: "--reference-point's pixel"), venue: try point(String(sides[1]), option: "--reference-point's venue point"))
        }

        struct Summary: Encodable {
            var venue: String
            var floor: Int
            var plan: FloorPlanPlacement
            var corners: FloorPlanCorners
            var mediaType: String
            var bytes: Int
            var revision: Int
            /// What was taken out of an SVG plan to make it safe to serve (scripts, event attributes,
            /// external links); empty when nothing was.
            var removed: [String]
        }

        func run() async throws {
            let fingerprintStore = try await store.open()
            let imported = try PlanFiles.image(at: image, shownAs: image, floor: floor)
            let planImage = imported.image
            let placement = try placement()
            let revision = try await fingerprintStore.setFloorPlan(venue: venue, level: floor, placement: placement, image: planImage)
            guard let corners = try await fingerprintStore.floorPlans(of: venue)[floor]?.corners else {
                throw CLIError("the plan of floor \(floor) was set but cannot be read back; run 'survey venue show --venue \(venue)'")
            }
            let summary = Summary(
                venue: venue, floor: floor, plan: placement, corners: corners, mediaType: planImage.mediaType.rawValue,
                bytes: planImage.data.count, revision: revision, removed: imported.removed)
            if output.json { return try Output.json(summary) }
            func point(_ p: FloorPlanPlacement.Point) -> String { String(format: "(%.2f, %.2f)", p.x, p.y) }
            print("""
                Set the plan of floor \(floor) of venue '\(venue)' (revision \(revision)): \(image), \(planImage.data.count) bytes of \
                \(planImage.mediaType.rawValue), its corners at top-left \(point(corners.topLeft)), top-right \(point(corners.topRight)), \
                bottom-right \(point(corners.bottomRight)).
                """)
            if let note = PlanFiles.madeSafe(imported, name: image, floor: floor) { print(note + ".") }
        }
    }
}
