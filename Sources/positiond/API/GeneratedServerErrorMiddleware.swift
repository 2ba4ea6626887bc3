import FingerprintStore
import Hummingbird
import Logging
import OpenAPIRuntime
import ScanFormats

/// Turns what the generated server throws into the API's error responses (`{"error": {"message": ...}}`).
///
/// The generated code wraps every error in a `ServerError`: a handler's `HTTPError` is passed on as it is;
/// a body the generated decoder refused is a 400 that names the field; any other refusal of the runtime
/// (a missing or wrong content type) keeps the status the runtime gives it, with its description; a store
/// error blames the side at fault (``HTTPError/answering(_:requestID:logger:)``). Anything else is logged
/// and answered 500 with the request id and no detail.
struct GeneratedServerErrorMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ServerError {
            switch error.underlyingError {
            case let refusal as any HTTPResponseError:
                throw refusal
            case let store as StoreError:
                throw HTTPError.answering(store, requestID: context.requestID, logger: context.logger)
            case let decoding as DecodingError where request.method == .get || request.method == .head:
                // Without a body, only a path or query parameter can fail to decode (a floor level that is
                // not a whole number).
                let problem = ScanLogDecoder.explain(decoding).replacingOccurrences(of: "field '' ", with: "")
                throw HTTPError(.badRequest, message: "a path or query parameter of \(request.uri.path) \(problem)")
            case let decoding as DecodingError:
                throw HTTPError(.badRequest, message: "malformed JSON: \(ScanLogDecoder.explain(decoding))")
            default:
                let status = error.httpStatus
                guard (400..<500).contains(status.code) else {
                    context.logger.error("the generated server failed", metadata: ["operation": "\(error.operationID)", "error": "\(error.underlyingError)"])
                    throw HTTPError(.internalServerError, message: "internal error (request id \(context.requestID); the cause is in positiond's log under it)")
                }
                throw HTTPError(status, message: error.causeDescription)
            }
        }
    }
}
