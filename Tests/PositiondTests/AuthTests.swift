import FingerprintStore
import Foundation
import Hummingbird
import HummingbirdTesting
import positiond
import Testing
import TestSupport

@Suite("positiond API keys")
struct AuthTests {
    @Test("once keys exist every /v1 route needs one: missing or bad 401, wrong scope 403")
    func keys() async throws {
        // Given a database with a locate key, an admin key and a revoked key
        let store = try await TestEnvironment.demoStore()
        let app_ = try await store.createKey(name: "app", scope: .locate)
        let ops = try await store.createKey(name: "ops", scope: .admin)
        let old = try await store.createKey(name: "old", scope: .admin)
        _ = try await store.revokeKey(id: old.key.id)
        let app = try await TestEnvironment.app(store: store)
        let body = TestEnvironment.body([try TestEnvironment.walk[0]])
        try await app.test(.router) { client in
            // Missing key
            let missing = try await client.call(.get, "/v1/venues")
            #expect(missing.status == .unauthorized)
            #expect(missing.errorMessage.contains("an API key is required"))
            #expect(missing.headers[.wwwAuthenticate] == "Bearer")
            // Bad and revoked keys
            #expect(try await client.call(.get, "/v1/venues", token: "bfx_not-a-key").status == .unauthorized)
            #expect(try await client.call(.get, "/v1/venues", token: old.token).errorMessage == "the API key is unknown or revoked")
            // The app key may locate and track
            #expect(try await client.call(.get, "/v1/venues", token: app_.token).status == .ok)
            #expect(try await client.call(.post, "/v1/venues/demo-hall/locate", body: body, token: app_.token).status == .ok)
            #expect(try await client.call(.post, "/v1/venues/demo-hall/devices/p/samples", body: body, token: app_.token).status == .ok)
            // but not open the venue-wide live feed: wrong scope
            let forbidden = try await client.call(.get, "/v1/venues/demo-hall/live", token: app_.token)
            #expect(forbidden.status == .forbidden)
            #expect(forbidden.errorMessage.contains("needs 'admin'"))
            // The admin key may do everything; operational routes stay open
            #expect(try await client.call(.post, "/v1/venues/demo-hall/proximity", body: body, token: ops.token).status == .ok)
            #expect(try await client.call(.get, "/healthz").status == .ok)
            #expect(try await client.call(.get, "/metrics").status == .ok)
            // A token in the query works too (for WebSocket clients that cannot set headers)
            #expect(try await client.call(.get, "/v1/venues?access_token=\(app_.token)").status == .ok)
        }
    }

    @Test("a key revoked while the daemon runs stops working within the poll interval")
    func revocationIsPickedUp() async throws {
        let store = try await TestEnvironment.demoStore()
        let key = try await store.createKey(name: "app", scope: .locate)
        let app = try await TestEnvironment.app(store: store)
        try await app.test(.router) { client in
            #expect(try await client.call(.get, "/v1/venues", token: key.token).status == .ok)
            _ = try await store.revokeKey(id: key.key.id)
            try await eventually("the revoked key refused") {
                try await client.call(.get, "/v1/venues", token: key.token).status == .unauthorized
            }
        }
    }

    @Test("without any key positiond refuses a non-loopback address, and serves loopback unauthenticated")
    func loopbackOnlyWithoutKeys() async throws {
        let store = try await TestEnvironment.demoStore()
        await #expect(throws: StartupError.self) {
            _ = try await TestEnvironment.app(store: store, settings: TestEnvironment.settings { $0.host = "0.0.0.0" })
        }
        do {
            _ = try await TestEnvironment.app(store: store, settings: TestEnvironment.settings { $0.host = "0.0.0.0" })
        } catch {
            #expect("\(error)".contains("may only listen on loopback"))
        }
        // With a key, any address is allowed
        _ = try await store.createKey(name: "ops", scope: .admin)
        _ = try await TestEnvironment.app(store: store, settings: TestEnvironment.settings { $0.host = "0.0.0.0" })
    }
}
