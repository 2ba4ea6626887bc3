import Foundation
import Hummingbird
import Logging

/// Logs each request (method, path, query with credentials redacted) and its outcome (status, duration).
///
/// Replaces Hummingbird's `LogRequestsMiddleware`, which logs the whole URI: the live route accepts
/// `?access_token=TOKEN` (browsers cannot set headers on WebSocket requests), and no credential may reach
/// a log line, however it is sent.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// Query parameters whose values are credentials, compared case-insensitively.
    static let credentialParameters: Set<String> = ["access_token", "ticket", "token", "api_key", "apikey", "key", "password", "secret", "authorization"]

    let level: Logger.Level

    init(_ level: Logger.Level) {
        self.level = level
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var metadata: Logger.Metadata = ["http.method": .string(request.method.rawValue), "http.path": .string(request.uri.path)]
        if let query = request.uri.query, !query.isEmpty { metadata["http.query"] = .string(Self.redacted(query: query)) }
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(context, metadata, status: Int(response.status.code), since: start)
            return response
        } catch let error as any HTTPResponseError {
            log(context, metadata, status: Int(error.status.code), since: start)
            throw error
        } catch {
            log(context, metadata, status: 500, since: start)
            throw error
        }
    }

    private func log(_ context: Context, _ metadata: Logger.Metadata, status: Int, since start: ContinuousClock.Instant) {
        var metadata = metadata
        metadata["http.status"] = .stringConvertible(status)
        metadata["duration_ms"] = .string(String(format: "%.3f", (ContinuousClock.now - start) / .milliseconds(1)))
        context.logger.log(level: level, "request", metadata: metadata)
    }

    /// `query` with the value of every credential parameter replaced by `***`; the rest as sent.
    static func redacted(query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            let decodedName = (name.removingPercentEncoding ?? name).lowercased()
            return credentialParameters.contains(decodedName) ? "\(name)=***" : String(pair)
        }.joined(separator: "&")
    }
}
