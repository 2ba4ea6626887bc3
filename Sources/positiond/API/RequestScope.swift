import Hummingbird

/// The Hummingbird request context of the request being served, for the handlers of the generated
/// ``APIProtocol``: the generated server passes them the decoded input only, while the scope of the
/// caller's API key and the request's logger live in the context.
enum RequestScope {
    @TaskLocal static var context: AppRequestContext?

    /// The context of the current request.
    ///
    /// - Throws: 500 when called outside a request that went through ``RequestScopeMiddleware`` (a wiring
    ///   mistake, never a client's).
    static var current: AppRequestContext {
        get throws {
            guard let context else { throw HTTPError(.internalServerError, message: "internal error: no request context") }
            return context
        }
    }
}

/// Makes the request's context (after authentication) visible to the generated server's handlers.
struct RequestScopeMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await RequestScope.$context.withValue(context) { try await next(request, context) }
    }
}
