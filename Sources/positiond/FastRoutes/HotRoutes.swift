import FingerprintStore
import Foundation
import Hummingbird
import Positioning

/// The two hot routes, registered by hand: `POST /v1/venues/{venue}/locate` and
/// `POST /v1/venues/{venue}/devices/{device}/samples`.
///
/// openapi.yaml describes them like every other route, and they read into and write from its generated
/// types (`SamplesRequest`, `Locate`, `Device`); what differs is the path between the bytes and those
/// types. The generated server buffers the body into an array, decodes it with JSONDecoder and encodes
/// the answer with JSONEncoder into an async body: on these routes that cost more than 10% of the
/// throughput (docs/decisions/2026-11-23-hot-routes-by-hand.md). Here the single-pass parser reads the body and ``JSONWriter`` writes
/// the answer, byte for byte what JSONEncoder would write.
extension PositiondAPI {
    /// Registers both on `group`, the authenticated `/v1/venues`.
    func registerHotRoutes(on group: RouterGroup<AppRequestContext>) {
        group.post(":venue/locate") { request, context in
            try context.require(.locate)
            let venue = try catalog.snapshot(for: request, context)
            let samples = try await samples(of: request, device: "anonymous")
            return JSONWriter.response(try locate(samples, in: venue))
        }
        group.post(":venue/devices/:device/samples") { request, context in
            try context.require(.locate)
            let venue = try catalog.snapshot(for: request, context)
            let device = try Self.deviceID(try request.parameter("device", context))
            let samples = try await samples(of: request, device: device)
            return JSONWriter.response(try track(samples, of: device, in: venue))
        }
    }

    /// The validated samples of `request`'s body, which must be JSON (or say nothing of its type, as the
    /// generated routes allow).
    private func samples(of request: Request, device: String) async throws -> [Sample] {
        if let type = request.headers[.contentType], !Self.isJSON(type) {
            throw HTTPError(.unsupportedMediaType, message: "Unexpected content type, expected: application/json, received: \(type)")
        }
        return try parser.samples(of: parser.decode(try await parser.body(of: request)), device: device)
    }

    static func isJSON(_ contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }
}
