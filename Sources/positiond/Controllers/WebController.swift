import Foundation
import Hummingbird
import NIOCore
import OpenAPIRuntime

/// The web pages: the venue list (`/`) and a venue's live map (`/venues/{venue}/map`), with their files.
extension PositiondAPI {
    func venuesPage(_ input: Operations.VenuesPage.Input) async throws -> Operations.VenuesPage.Output {
        .ok(.init(body: .html(try page("index.html"))))
    }

    func mapPage(_ input: Operations.MapPage.Input) async throws -> Operations.MapPage.Output {
        // The page reads its venue from its own URL; an unknown venue is said on the page, which alone
        // holds the key to ask.
        .ok(.init(body: .html(try page("map.html"))))
    }

    private func page(_ name: String) throws -> HTTPBody {
        guard let file = web.own[name] else {
            throw HTTPError(.serviceUnavailable, message: "the map page cannot be served: \(web.problems.joined(separator: "; "))")
        }
        return HTTPBody(file.bytes.readableBytesView)
    }

    /// `/web/{file}`, `/web/leaflet/{file}` and `/web/leaflet/images/{file}`: files with their media types,
    /// from the lists read at start-up.
    func registerWebFiles(on router: Router<AppRequestContext>) {
        @Sendable func serve(_ file: WebAssets.File?, _ name: String) throws -> Response {
            guard let file else { throw HTTPError(.notFound, message: "there is no file '\(name)'") }
            return Response(status: .ok, headers: [.contentType: file.contentType, .cacheControl: "no-cache"], body: .init(byteBuffer: file.bytes))
        }
        router.get("web/:file") { _, context in
            let name = try context.parameters.require("file")
            return try serve(name.hasSuffix(".html") ? nil : web.own[name], name)
        }
        router.get("web/leaflet/:file") { _, context in
            let name = try context.parameters.require("file")
            return try serve(web.leaflet[name], name)
        }
        router.get("web/leaflet/images/:file") { _, context in
            let name = try context.parameters.require("file")
            return try serve(web.leaflet["images/" + name], name)
        }
    }
}
