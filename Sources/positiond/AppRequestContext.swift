import FingerprintStore
import Foundation
import Hummingbird
import HummingbirdWebSocket

/// The request context of every route, WebSocket upgrades included.
struct AppRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    /// The request's id: the client's `X-Request-ID`, or one made up here.
    var requestID: String = ""
    /// The scope of the API key that authenticated the request; nil when authentication is off.
    var scope: APIKeyScope?
    /// Who is calling, for per-client limits: the hash of the request's API key (never the key itself),
    /// or one name for every caller when authentication is off (the daemon is then on loopback only).
    var client: String = "unauthenticated"

    init(source: Source) {
        coreContext = .init(source: source)
        webSocket = .init()
    }

    /// JSON in snake_case, ISO 8601 dates: the API's conventions.
    var responseEncoder: JSONEncoder { APIJSON.encoder }
    var requestDecoder: JSONDecoder { APIJSON.decoder }
}

/// The API's JSON conventions, shared by routes, live messages and tests.
enum APIJSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
