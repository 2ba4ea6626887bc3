import ArgumentParser
import FingerprintStore
import Foundation
import ScanFormats

extension Survey.Venue {
    /// `survey venue plan --venue V --floor N --image F --top-left X,Y --bottom-right X,Y`.
    struct Plan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plan",
            abstract: "Set or replace one floor's plan image and where it lies in venue metres.",
            discussion: """
                The image (PNG, JPEG or SVG, at most 10 MiB; its content must match its extension) is stored in \
                the database and laid axis-aligned on the venue: its top-left corner at --top-left and its \
                bottom-right corner at --bottom-right, venue metres, so top-left has the smaller x and the larger \
                y. One transaction; the venue's revision increases, so a running positiond serves the new plan \
                within seconds. 'survey export' writes it as plans/floor-N.EXT beside venue.json.
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
        var topLeft: String

        @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Venue metres of the image's bottom-right corner.", valueName: "x,y"))
        var bottomRight: String

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
            let ext = URL(fileURLWithPath: image).pathExtension.lowercased()
            return FloorPlanPlacement(
                image: "plans/floor-\(floor).\(ext)", topLeft: try Self.point(topLeft, option: "--top-left"),
                bottomRight: try Self.point(bottomRight, option: "--bottom-right"))
        }

        static func point(_ text: String, option: String) throws -> FloorPlanPlacement.Point {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let x = parts[0], let y = parts[1], x.isFinite, y.isFinite else {
                throw ValidationError("\(option) takes venue metres as x,y, such as 0,24 (got '\(text)').")
            }
            return FloorPlanPlacement.Point(x: x, y: y)
        }

        struct Summary: Encodable {
            var venue: String
            var floor: Int
            var plan: FloorPlanPlacement
            var mediaType: String
            var bytes: Int
            var revision: Int
        }

        func run() async throws {
            let fingerprintStore = try store.open()
            let planImage = try PlanFiles.image(at: image, shownAs: image, floor: floor)
            let placement = try placement()
            let revision = try fingerprintStore.setFloorPlan(venue: venue, level: floor, placement: placement, image: planImage)
            let summary = Summary(
                venue: venue, floor: floor, plan: placement, mediaType: planImage.mediaType.rawValue, bytes: planImage.data.count,
                revision: revision)
            if output.json { return try Output.json(summary) }
            print("""
                Set the plan of floor \(floor) of venue '\(venue)' (revision \(revision)): \(image), \(planImage.data.count) bytes of \
                \(planImage.mediaType.rawValue), top-left at (\(placement.topLeft.x), \(placement.topLeft.y)), bottom-right at \
                (\(placement.bottomRight.x), \(placement.bottomRight.y)).
                """)
        }
    }
}
