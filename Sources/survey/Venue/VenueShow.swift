import ArgumentParser
import FingerprintStore
import Foundation
import ScanFormats

extension Survey.Venue {
    /// `survey venue show V`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show a venue: floors, geographic anchor, beacons (active and retired), spots, revision.")

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "The venue id.")
        var venue: String

        func run() async throws {
            let details = try await store.open().venue(venue)
            if output.json { return try Output.json(details) }
            print("\(details.id): \(details.name), revision \(details.revision), \(details.fingerprints) fingerprints")
            print("Floors: " + details.floors.map { "\($0.level) \($0.name)" }.joined(separator: ", "))
            for floor in details.floors {
                guard let plan = floor.plan, let corners = details.planCorners[floor.level] else { continue }
                func point(_ p: FloorPlanPlacement.Point) -> String { String(format: "(%.2f, %.2f)", p.x, p.y) }
                let how = switch plan.anchoring {
                case .corners: "by its corners"
                case .referencePoints: "by two reference points"
                }
                print("  plan of floor \(floor.level): \(plan.image), placed \(how): top-left \(point(corners.topLeft)), top-right \(point(corners.topRight)), bottom-right \(point(corners.bottomRight))")
            }
            if let geo = details.geo {
                print("Geo anchor: origin at lat \(geo.lat), lon \(geo.lon); +x axis bearing \(geo.bearing)° from true north")
            } else {
                print("Geo anchor: none (positions in venue metres only)")
            }
            print("Beacons (\(details.activeBeacons.count) active):")
            for beacon in details.beacons {
                let place = beacon.x.map { x in "at (\(x), \(beacon.y ?? 0)) floor \(beacon.floor ?? 0)" } ?? "position unknown"
                print("  \(beacon.id)  \(beacon.label ?? "-")  \(place)  \(beacon.status.rawValue)")
            }
            print("Spots (\(details.spots.count)):")
            for spot in details.spots {
                print("  \(spot.name)  (\(spot.x), \(spot.y)) floor \(spot.floor)\(spot.zone.map { "  zone \($0)" } ?? "")")
            }
        }
    }
}
