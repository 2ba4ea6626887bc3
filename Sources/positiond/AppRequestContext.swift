import FingerprintStore
package import Foundation
package import Hummingbird
package import HummingbirdWebSocket

/// The request context of every route, WebSocket upgrades included.
package struct AppRequestContext: RequestContext, WebSocketRequestContext {
    package var coreContext: CoreRequestContextStorage
    package let webSocket: WebSocketHandlerReference<Self>
    /// The request's id: the client's `X-Request-ID`, or one made up here.
    var requestID: String = ""
    /// The scope of the API key that authenticated the request; nil when authentication is off.
    var scope: APIKeyScope?
    /// Who is calling, for per-client limits: the hash of the request's API key (never the key itself),
    /// or one name for every caller when authentication is off (the daemon is then on loopback only).
    var client: String = "unauthenticated"

    package init(source: Source) {
        coreContext = .init(source: source)
        webSocket = .init()
    }
}

/// The API's JSON conventions for what the daemon encodes outside the generated server (live messages,
/// the fast routes' fallback decoding): the generated types name their own keys; dates are ISO 8601,
/// keys sorted, as the generated server writes them (``PositiondAPI/configuration``).
package enum APIJSON {
    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    package static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}

extension Request {
    /// The path parameter `name`, which the router guarantees.
    func parameter(_ name: String, _ context: AppRequestContext) throws -> String {
        guard let value = context.parameters.get(name) else {
            throw HTTPError(.badRequest, message: "missing path parameter '\(name)'")
        }
        // The router hands segments over still percent-encoded; the generated routes decode theirs, so the
        // hand-registered ones must too, or /devices/caf%C3%A9 would be a different device on each route.
        guard let decoded = value.removingPercentEncoding else {
            throw HTTPError(.badRequest, message: "the path parameter '\(name)' is not valid percent-encoding")
        }
        return decoded
    }
}
