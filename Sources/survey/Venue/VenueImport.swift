import ScanFormats
import ArgumentParser
import FingerprintStore
import Foundation
import Positioning

extension Survey.Venue {
    /// `survey venue import FILE`: create or update a venue from venue.json.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Create or update a venue from its definition (venue.json).",
            discussion: """
                Floors, beacons and spots are added or updated by identity; nothing is deleted. A floor's plan \
                image (its "plan": "image", relative to venue.json; PNG, JPEG or SVG, at most 10 MiB) is read and \
                stored in the database with its placement.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: ArgumentHelp("The venue definition.", valueName: "venue.json"))
        var file: String

        func validate() throws {
            guard !file.isEmpty else { throw ValidationError("Give the path of a venue.json file.") }
        }

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CLIError("cannot read \(file): no such file, or not readable")
            }
            let definition: VenueDefinition
            do {
                definition = try JSONDecoder().decode(VenueDefinition.self, from: data)
            } catch let error as DecodingError {
                throw CLIError("\(file): \(ScanLogDecoder.explain(error))")
            }
            let plans = try PlanFiles.read(for: definition, in: URL(fileURLWithPath: file).deletingLastPathComponent())
            let summary = try await store.open(creating: true).importVenue(definition, plans: plans)
            if output.json { return try Output.json(summary) }
            print("""
                \(summary.created ? "Created" : "Updated") venue '\(summary.venue)' (revision \(summary.revision)): \
                \(summary.floorsAdded) floors, \(summary.beaconsAdded) beacons and \(summary.spotsAdded) spots added; \
                \(summary.beaconsUpdated) beacons and \(summary.spotsUpdated) spots updated; \(summary.plansSet) floor plans and \(summary.zonesSet) zone polygons set.
                """)
        }
    }
}
