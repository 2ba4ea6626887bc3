import FingerprintStore
import Foundation
import Hummingbird
import OpenAPIRuntime
import ScanFormats

/// `GET /v1/venues/{venue}/floors/{level}/plan`: a floor's plan image, as stored.
extension PositiondAPI {
    func getFloorPlan(_ input: Operations.GetFloorPlan.Input) async throws -> Operations.GetFloorPlan.Output {
        try RequestScope.current.require(.locate)
        let venue = try catalog.snapshot(named: input.path.venue)
        let level = input.path.level
        guard venue.details.floors.contains(where: { $0.level == level }) else {
            throw HTTPError(.notFound, message: "venue '\(venue.details.id)' has no floor \(level)")
        }
        // Read from the store on each request (off the concurrency pool's threads): plans are up to 10 MiB
        // each and rarely asked for, so snapshots do not hold them.
        guard let image = try await store.floorPlanImage(venue: venue.details.id, level: level) else {
            throw HTTPError(.notFound, message: "floor \(level) of venue '\(venue.details.id)' has no plan (set one with 'survey venue plan')")
        }
        let body = HTTPBody(image.data)
        return switch image.mediaType {
        case .png: .ok(.init(body: .png(body)))
        case .jpeg: .ok(.init(body: .jpeg(body)))
        case .svg: .ok(.init(body: .imageSvgXml(body)))
        }
    }
}
