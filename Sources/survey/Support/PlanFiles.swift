import FingerprintStore
import Foundation
import ScanFormats

/// The floor plan images that venue.json names, read from and written beside it.
enum PlanFiles {
    /// Reads and checks the image of every floor of `definition` that has a plan, relative to `folder`
    /// (venue.json's folder).
    static func read(for definition: VenueDefinition, in folder: URL) throws -> [Int: FloorPlanImage] {
        var images: [Int: FloorPlanImage] = [:]
        for floor in definition.floors {
            guard let plan = floor.plan else { continue }
            // A path venue.json must not name is refused by the definition's problems, said by the store.
            guard !plan.problems(level: floor.level).contains(where: { $0.contains("image '") }) else { continue }
            let imported = try image(at: folder.appendingPathComponent(plan.image).path, shownAs: plan.image, floor: floor.level)
            // On standard error, so that --json's output stays one document.
            if let note = madeSafe(imported, name: plan.image, floor: floor.level) { Output.standardError(note) }
            images[floor.level] = imported.image
        }
        return images
    }

    /// What was taken out of an SVG plan to make it safe, as a sentence; nil when nothing was.
    static func madeSafe(_ imported: FloorPlanImage.Import, name: String, floor: Int) -> String? {
        guard !imported.removed.isEmpty else { return nil }
        return "floor \(floor)'s plan \(name) was made safe to serve: removed \(imported.removed.joined(separator: ", "))"
    }

    /// Reads and checks one image file; an SVG is made safe (``FloorPlanImage/Import/removed`` says how).
    static func image(at path: String, shownAs name: String, floor: Int) throws -> FloorPlanImage.Import {
        let url = URL(fileURLWithPath: path)
        // Refuse an oversized file before reading it whole.
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > FloorPlanImage.maximumBytes {
            throw CLIError("floor \(floor)'s plan \(name) is \(size) bytes; a floor plan may be at most \(FloorPlanImage.maximumBytes) bytes (10 MiB): shrink or compress the image")
        }
        guard let data = try? Data(contentsOf: url) else {
            throw CLIError("cannot read floor \(floor)'s plan \(name) (\(path)): no such file, or not readable")
        }
        do {
            return try FloorPlanImage.importing(data, path: name)
        } catch {
            throw CLIError("floor \(floor)'s plan: \(error.description)")
        }
    }

    /// Writes every plan of `plans` at its path under `folder`.
    static func write(_ plans: [Int: StoredFloorPlan], to folder: URL) throws {
        var written: [String: Data] = [:]
        for (level, plan) in plans.sorted(by: { $0.key < $1.key }) {
            if let other = written[plan.placement.image], other != plan.image.data {
                throw CLIError("two floors' plans are both named \(plan.placement.image) with different images (floor \(level)); set one again with 'survey venue plan'")
            }
            let url = folder.appendingPathComponent(plan.placement.image)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try plan.image.data.write(to: url)
            written[plan.placement.image] = plan.image.data
        }
    }
}
