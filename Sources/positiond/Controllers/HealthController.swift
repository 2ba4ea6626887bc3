import Foundation
import FingerprintStore
import Hummingbird
import NIOCore
import Prometheus

/// Unauthenticated operational routes: liveness, readiness, metrics and the API description.
struct HealthController {
    let store: FingerprintStore
    let catalog: VenueCatalog
    let metrics: PrometheusCollectorRegistry

    func register(on router: Router<AppRequestContext>) {
        router.get("healthz") { _, _ in HealthResponse(status: "alive") }
        router.get("readyz") { _, _ -> Response in
            let databaseOpen = await store.isReachable()
            let ready = databaseOpen && catalog.isLoaded
            let body = ReadinessResponse(status: ready ? "ready" : (databaseOpen ? "loading" : "database unavailable"), venues: catalog.revisions)
            var response = try APIJSON.encoder.encodeAsResponse(body)
            response.status = ready ? .ok : .serviceUnavailable
            return response
        }
        router.get("metrics") { _, _ -> Response in
            var bytes: [UInt8] = []
            metrics.emit(into: &bytes)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        router.get("openapi.json") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
    }
}

extension JSONEncoder {
    /// A 200 JSON response of `value`.
    func encodeAsResponse(_ value: some Encodable) throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: try encode(value))))
    }
}

