import FingerprintStore
import Hummingbird
import Logging

extension HTTPError {
    /// A store error as the API answers it, blaming the side at fault.
    ///
    /// The caller's mistakes name what was wrong: 404 for a venue, beacon or survey session the store
    /// lacks, 409 for a conflict, 422 for an argument the store refuses. The store's own failures (a value
    /// it cannot read, a statement the database refused, a full disk, a lost connection) are logged with
    /// the request's id and answered 500 or 503 with only that id: no SQL, path or server message reaches
    /// the client.
    static func answering(_ error: StoreError, requestID: String?, logger: Logger?) -> HTTPError {
        func fault(_ status: HTTPResponse.Status, _ what: String) -> HTTPError {
            logger?.error("the store failed", metadata: ["error": "\(error)"])
            let reference = requestID.map { " (request id \($0); the cause is in positiond's log under it)" } ?? ""
            return HTTPError(status, message: what + reference)
        }
        switch error {
        case .unknownVenue, .unknownBeacon, .unknownSurveyUpload, .unknownBeaconProposal:
            return HTTPError(.notFound, message: error.description)
        case .conflict:
            return HTTPError(.conflict, message: error.description)
        case .invalidInput, .invalidVenue:
            return HTTPError(.unprocessableContent, message: error.description)
        case .cannotConnect:
            return fault(.serviceUnavailable, "the store cannot be reached just now; try again")
        case .diskFull:
            return fault(.serviceUnavailable, "the store's disk is full: nothing was written")
        case .storageFault, .newerSchema, .missingDatabase, .cannotOpen:
            return fault(.internalServerError, "the store failed to answer")
        }
    }

    /// ``answering(_:requestID:logger:)`` within the request being served.
    static func answering(_ error: StoreError) -> HTTPError {
        answering(error, requestID: RequestScope.context?.requestID, logger: RequestScope.context?.logger)
    }
}
