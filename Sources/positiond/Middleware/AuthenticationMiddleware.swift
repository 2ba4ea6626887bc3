import FingerprintStore
import Hummingbird

/// Bearer API keys on /v1. Missing or unknown key: 401; a key whose scope does not allow the route: 403
/// (routes state what they need with ``AppRequestContext/require(_:)``). With no key in the database,
/// requests pass unauthenticated (the daemon then listens on loopback only). The live WebSocket also takes
/// a single-use ticket (``LiveTickets``) in its `ticket` query parameter.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let keys: KeyCache
    let tickets: LiveTickets

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let state = keys.current
        guard state.authenticationRequired else { return try await next(request, context) }
        if let ticket = request.uri.queryParameters["ticket"] {
            // Only the live feed takes tickets: /v1/venues/{venue}/live.
            let path = request.uri.path.split(separator: "/")
            guard path.count == 4, path[3] == "live",
                let grant = tickets.redeem(String(ticket), venue: String(path[2]))
            else {
                throw HTTPError(
                    .unauthorized, headers: [.wwwAuthenticate: "Bearer"],
                    message: "the live ticket is unknown, used, expired or for another route; get a new one with POST /v1/venues/{venue}/live/tickets")
            }
            var context = context
            context.scope = grant.scope
            context.client = grant.client
            if let scope = grant.scope { context.logger[metadataKey: "key.scope"] = .string(scope.rawValue) }
            return try await next(request, context)
        }
        guard let token = Self.token(of: request) else {
            throw HTTPError(
                .unauthorized, headers: [.wwwAuthenticate: "Bearer"],
                message: "an API key is required: send 'Authorization: Bearer TOKEN' (create one with 'survey key create')")
        }
        let hash = FingerprintStore.hash(token: token)
        guard let scope = state.active[hash] else {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "the API key is unknown or revoked")
        }
        var context = context
        context.scope = scope
        context.client = hash
        context.logger[metadataKey: "key.scope"] = .string(scope.rawValue)
        return try await next(request, context)
    }

    /// The bearer token of the `Authorization` header, or of the `access_token` query parameter (browsers
    /// cannot set headers on WebSocket requests).
    static func token(of request: Request) -> String? {
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return String(parts[1]).trimmingCharacters(in: .whitespaces) }
            return nil
        }
        return request.uri.queryParameters["access_token"].map(String.init)
    }
}

extension AppRequestContext {
    /// Throws 403 unless the request's key allows `scope` (always allowed when authentication is off).
    func require(_ scope: APIKeyScope) throws {
        if let granted = self.scope, !granted.permits(scope) {
            throw HTTPError(.forbidden, message: "this API key has scope '\(granted.rawValue)'; this route needs '\(scope.rawValue)'")
        }
    }
}

import Foundation
