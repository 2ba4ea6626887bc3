public import Foundation
public import HTTPTypes
public import OpenAPIAsyncHTTPClient
public import OpenAPIRuntime

/// The generated client of positiond (`Client`, from its OpenAPI document `Sources/positiond/openapi.yaml`):
/// every route an app or a scanner rig calls, with the request and answer types the document names.
///
/// ```swift
/// import BeaconfixClient
///
/// let beaconfix = Client(serverURL: URL(string: "https://positions.example.org")!, apiKey: key)
/// let answer = try await beaconfix.locate(path: .init(venue: "demo-hall"), body: .json(.init(samples: samples)))
/// let position = try answer.ok.body.json
/// ```
/// Each call returns the generated `Output` enum, one case per status the document lists (`.ok`,
/// `.unprocessableContent`, ...), so an app handles a refusal by its status and reads its sentence
/// (`body.json.error.message`, which names the field at fault).
extension Client {
    /// A client of the positiond at `serverURL` (its root, without `/v1`), sending `apiKey` as a bearer
    /// token when given, over `transport` (by default async-http-client's shared client).
    public init(serverURL: URL, apiKey: String?, transport: any ClientTransport = AsyncHTTPClientTransport()) {
        self.init(serverURL: serverURL, transport: transport, middlewares: apiKey.map { [BearerTokenMiddleware(token: $0)] } ?? [])
    }
}

/// Sends an API key as `Authorization: Bearer TOKEN` with every request (positiond's scheme `bearer`).
public struct BearerTokenMiddleware: ClientMiddleware {
    private let token: String

    public init(token: String) {
        self.token = token
    }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}
