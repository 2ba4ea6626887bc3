import Foundation
package import HTTPTypes
package import Hummingbird

/// Takes `X-Request-ID` from the request or makes one up, puts it in every log line of the request and
/// returns it in the response, errors included.
package struct RequestIDMiddleware: RouterMiddleware {
    package typealias Context = AppRequestContext

    package static let header = HTTPField.Name("X-Request-ID")!

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let supplied = request.headers[Self.header].flatMap { id in
            id.count <= 128 && id.allSatisfy({ $0.isASCII && !$0.isWhitespace }) ? id : nil
        }
        let id = supplied ?? UUID().uuidString.lowercased()
        context.requestID = id
        context.logger[metadataKey: "hb.request.id"] = nil
        context.logger[metadataKey: "request.id"] = .string(id)
        do {
            var response = try await next(request, context)
            response.headers[Self.header] = id
            return response
        } catch let error as any HTTPResponseError {
            var response = try error.response(from: request, context: context)
            response.headers[Self.header] = id
            return response
        }
    }
}
