import BeaconfixClient
import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// A positiond's survey-session routes through the generated client, for `survey upload`: each call
/// answers its value, or throws a ``Refusal`` saying why in a sentence. A server that cannot be reached,
/// or answers 5xx, is tried again (`attempts` in all, waiting 0.5, 1, 2 ... seconds); a refusal (4xx) is not.
struct SurveyRemote {
    typealias Session = Components.Schemas.SurveySession

    /// Why a call did not succeed.
    enum Refusal: Error, CustomStringConvertible {
        /// The server answered with `status`, and this sentence.
        case refused(status: Int, message: String)
        /// No answer after every attempt.
        case unreachable(String)

        /// The sentence for the user: a refused sample as `FILE:LINE` (the server names it `samples[i]`
        /// of the batch), a refused checkpoint as `PATH:LINE` (`checkpoints[i]`), and how far the upload got.
        func message(file: String, batch: Survey.Upload.Batch, pathFile: String?, acknowledged: Int, of total: Int) -> String {
            let stopped = "\(acknowledged) of \(total) batches are stored"
            let lists = ["samples": (file, batch.lines.map(\.number)), "checkpoints": (pathFile ?? "the path file", batch.checkpointLines)]
            let first = batch.lines.first.map { "\(file):\($0.number)" } ?? "\(pathFile ?? "the path file"):\(batch.checkpointLines.first ?? 0)"
            switch self {
            case .refused(422, let message):
                return "the server refused the batch from \(first) (\(stopped)): \(Self.naming(message, lists: lists))"
            case .refused(let status, let message):
                return "the server refused a batch with \(status) (\(stopped)): \(message)"
            case .unreachable(let reason):
                return "the upload stopped: \(reason) (\(stopped)); run the same command again to send the rest"
            }
        }

        var description: String {
            switch self {
            case .refused(let status, let message): "the server answered \(status): \(message)"
            case .unreachable(let reason): reason
            }
        }

        /// `samples[3]: ...` as `FILE:LINE: ...`, for each list the batch sent (its file, and the line of each item).
        static func naming(_ message: String, lists: [String: (file: String, lines: [Int])]) -> String {
            message.split(separator: "; ").map { part in
                guard let open = part.firstIndex(of: "["), let close = part.firstIndex(of: "]"), open < close,
                      let list = lists[String(part[..<open])],
                      let index = Int(part[part.index(after: open)..<close]), list.lines.indices.contains(index)
                else { return String(part) }
                return "\(list.file):\(list.lines[index])\(part[close...].dropFirst())"
            }.joined(separator: "; ")
        }
    }

    let server: String
    let venue: String
    let attempts: Int
    /// Every call but the commit, with the request timeout the user chose: async-http-client tries a
    /// refused connection again until the request's deadline, so it is also how long an absent server
    /// takes to be reported.
    private let client: Client
    /// The commit records the whole session in one transaction, which takes minutes for a large venue.
    private let committing: Client

    init(server: URL, apiKey: String?, venue: String, attempts: Int, timeout: Duration) {
        self.server = server.absoluteString
        self.venue = venue
        self.attempts = attempts
        let seconds = Int64(timeout.components.seconds)
        client = Client(serverURL: server, apiKey: apiKey, transport: AsyncHTTPClientTransport(configuration: .init(timeout: .seconds(seconds))))
        committing = Client(
            serverURL: server, apiKey: apiKey, transport: AsyncHTTPClientTransport(configuration: .init(timeout: .seconds(max(seconds, 600)))))
    }

    func open(operator surveyor: String?, deviceModel: String?, notes: String?, walk: Components.Schemas.SurveyWalk?) async throws -> Session {
        let answer = try await call("open a survey session") {
            try await client.openSurveySession(
                path: .init(venue: venue), body: .json(.init(_operator: surveyor, deviceModel: deviceModel, notes: notes, walk: walk)))
        }
        switch answer {
        case .created(let created): return try created.body.json
        case .badRequest(let error): throw refusal(400, try error.body.json)
        case .unauthorized(let error): throw refusal(401, try error.body.json)
        case .forbidden(let error): throw refusal(403, try error.body.json)
        case .notFound(let error): throw refusal(404, try error.body.json)
        case .contentTooLarge(let error): throw refusal(413, try error.body.json)
        case .unprocessableContent(let error): throw refusal(422, try error.body.json)
        case .internalServerError(let error): throw refusal(500, try error.body.json)
        case .undocumented(let status, _): throw Refusal.refused(status: status, message: "an answer the API does not document")
        }
    }

    /// The session, or nil when the server does not know it.
    func session(_ id: String) async throws -> Session? {
        let answer = try await call("read survey session \(id)") {
            try await client.getSurveySession(path: .init(venue: venue, session: id))
        }
        switch answer {
        case .ok(let ok): return try ok.body.json
        case .notFound: return nil
        case .unauthorized(let error): throw refusal(401, try error.body.json)
        case .forbidden(let error): throw refusal(403, try error.body.json)
        case .internalServerError(let error): throw refusal(500, try error.body.json)
        case .undocumented(let status, _): throw Refusal.refused(status: status, message: "an answer the API does not document")
        }
    }

    func post(_ batch: Survey.Upload.Batch, session: String) async throws -> Components.Schemas.SurveyBatchReceipt {
        let answer = try await call("send batch \(batch.id)") {
            try await client.postSurveyBatch(
                path: .init(venue: venue, session: session), body: .json(.init(
                    batchId: batch.id, samples: batch.samples.isEmpty ? nil : batch.samples,
                    checkpoints: batch.checkpoints.isEmpty ? nil : batch.checkpoints)))
        }
        switch answer {
        case .ok(let ok): return try ok.body.json
        case .badRequest(let error): throw refusal(400, try error.body.json)
        case .unauthorized(let error): throw refusal(401, try error.body.json)
        case .forbidden(let error): throw refusal(403, try error.body.json)
        case .notFound(let error): throw refusal(404, try error.body.json)
        case .conflict(let error): throw refusal(409, try error.body.json)
        case .contentTooLarge(let error):
            throw Refusal.refused(status: 413, message: "\(try error.body.json.error.message); delete the journal and send it again with a smaller --batch")
        case .unprocessableContent(let error): throw refusal(422, try error.body.json)
        case .internalServerError(let error): throw refusal(500, try error.body.json)
        case .undocumented(let status, _): throw Refusal.refused(status: status, message: "an answer the API does not document")
        }
    }

    func commit(_ session: String) async throws -> Session {
        let answer: Operations.CommitSurveySession.Output
        do {
            answer = try await call("commit survey session \(session)") {
                try await committing.commitSurveySession(path: .init(venue: venue, session: session))
            }
        } catch let error as Refusal {
            throw CLIError("every batch is stored, but the commit did not go through: \(error.description); run the same command again to commit")
        }
        switch answer {
        case .ok(let ok): return try ok.body.json
        case .conflict(let error):
            // Committed by a request whose answer was lost (a timeout, a retry): that is success.
            if let stored = try? await self.session(session), stored.state == .committed { return stored }
            throw CLIError("cannot commit session \(session): \(try error.body.json.error.message)")
        case .unprocessableContent(let error): throw CLIError("cannot commit session \(session): \(try error.body.json.error.message)")
        case .unauthorized(let error): throw CLIError("cannot commit: \(refusal(401, try error.body.json).description)")
        case .forbidden(let error): throw CLIError("cannot commit: \(refusal(403, try error.body.json).description)")
        case .notFound(let error): throw CLIError("cannot commit: \(refusal(404, try error.body.json).description)")
        case .internalServerError(let error): throw CLIError("cannot commit session \(session): \(try error.body.json.error.message)")
        case .undocumented(let status, _): throw CLIError("cannot commit session \(session): the server answered \(status)")
        }
    }

    private func refusal(_ status: Int, _ error: Components.Schemas._Error) -> Refusal {
        let hint = switch status {
        case 403: " (the key needs the survey scope: 'survey key create --scope survey')"
        default: ""
        }
        return .refused(status: status, message: error.error.message + hint)
    }

    /// Runs `request`, again after a wait when the server cannot be reached or answers 5xx.
    private func call<Answer: SessionAnswer>(_ what: String, _ request: () async throws -> Answer) async throws -> Answer {
        var wait = 0.5
        var lastProblem = ""
        for attempt in 1...attempts {
            if attempt > 1 {
                try await Task.sleep(for: .seconds(wait))
                wait *= 2
            }
            do {
                let answer = try await request()
                if let failure = answer.serverFailure {
                    lastProblem = "\(server) answered \(failure) to '\(what)'"
                    continue
                }
                return answer
            } catch let error as ClientError {
                // The transport's failure (refused, reset, timed out), not an answer.
                lastProblem = "cannot reach \(server) to \(what): \(error.underlyingError)"
            }
        }
        throw Refusal.unreachable(attempts > 1 ? "\(lastProblem), after \(attempts) attempts" : lastProblem)
    }
}

/// An answer of a survey-session route: a failure of the server (its store's, documented as 500, or an
/// undocumented 5xx from a proxy or a failing server), which is worth trying again.
protocol SessionAnswer {
    /// The status and the server's message when the server failed; nil for any other answer.
    var serverFailure: String? { get }
}

private func serverFailure(undocumented status: Int?, storeFailure: Components.Responses.StoreFailure?) -> String? {
    if let storeFailure {
        return "500 (\((try? storeFailure.body.json.error.message) ?? "the store failed"))"
    }
    if let status, status >= 500 { return "\(status)" }
    return nil
}

extension Operations.OpenSurveySession.Output: SessionAnswer {
    var serverFailure: String? {
        switch self {
        case .internalServerError(let failure): survey.serverFailure(undocumented: nil, storeFailure: failure)
        case .undocumented(let status, _): survey.serverFailure(undocumented: status, storeFailure: nil)
        default: nil
        }
    }
}

extension Operations.GetSurveySession.Output: SessionAnswer {
    var serverFailure: String? {
        switch self {
        case .internalServerError(let failure): survey.serverFailure(undocumented: nil, storeFailure: failure)
        case .undocumented(let status, _): survey.serverFailure(undocumented: status, storeFailure: nil)
        default: nil
        }
    }
}

extension Operations.PostSurveyBatch.Output: SessionAnswer {
    var serverFailure: String? {
        switch self {
        case .internalServerError(let failure): survey.serverFailure(undocumented: nil, storeFailure: failure)
        case .undocumented(let status, _): survey.serverFailure(undocumented: status, storeFailure: nil)
        default: nil
        }
    }
}

extension Operations.CommitSurveySession.Output: SessionAnswer {
    var serverFailure: String? {
        switch self {
        case .internalServerError(let failure): survey.serverFailure(undocumented: nil, storeFailure: failure)
        case .undocumented(let status, _): survey.serverFailure(undocumented: status, storeFailure: nil)
        default: nil
        }
    }
}
