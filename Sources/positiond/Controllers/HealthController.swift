import Foundation
import FingerprintStore
import OpenAPIRuntime
import Prometheus

/// Unauthenticated operational routes: liveness, readiness, metrics and the API description.
extension PositiondAPI {
    func health(_ input: Operations.Health.Input) async throws -> Operations.Health.Output {
        .ok(.init(body: .json(.init(status: .alive))))
    }

    func readiness(_ input: Operations.Readiness.Input) async throws -> Operations.Readiness.Output {
        let databaseOpen = await store.isReachable()
        let ready = databaseOpen && catalog.isLoaded
        let body = Components.Schemas.Readiness(
            status: ready ? .ready : (databaseOpen ? .loading : .databaseUnavailable),
            venues: .init(additionalProperties: catalog.revisions))
        return ready ? .ok(.init(body: .json(body))) : .serviceUnavailable(.init(body: .json(body)))
    }

    func metrics(_ input: Operations.Metrics.Input) async throws -> Operations.Metrics.Output {
        var bytes: [UInt8] = []
        metricsRegistry.emit(into: &bytes)
        return .ok(.init(body: .plainText(HTTPBody(bytes))))
    }

    func openAPIDocument(_ input: Operations.OpenAPIDocument.Input) async throws -> Operations.OpenAPIDocument.Output {
        .ok(.init(body: .json(document.object)))
    }
}
