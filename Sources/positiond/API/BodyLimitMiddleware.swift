import Hummingbird
import NIOCore

/// Refuses request bodies over `maximumBytes` with 413, before anything decodes them: the generated server
/// collects a body whole, without a limit of its own.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let maximumBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        do {
            // Leaves the collected buffer as the request's body, for the handler to read again.
            _ = try await request.collectBody(upTo: maximumBytes)
        } catch is NIOTooManyBytesError {
            throw HTTPError(.contentTooLarge, message: "the request body is larger than \(maximumBytes) bytes")
        }
        return try await next(request, context)
    }
}
