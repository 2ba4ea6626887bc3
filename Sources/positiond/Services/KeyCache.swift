package import FingerprintStore
import Synchronization

/// The API keys the daemon accepts, refreshed from the store with the revisions, so that authenticating
/// a request never touches the database.
package final class KeyCache: Sendable {
    struct State: Sendable {
        /// Whether any key was ever created: from then on every /v1 route needs one (revoking every key
        /// does not reopen the daemon).
        var authenticationRequired: Bool
        /// Scopes of the active keys by token hash.
        var active: [String: APIKeyScope]
    }

    private let state: Mutex<State>

    package init(store: any KeyRepository) async throws {
        state = Mutex(try await Self.read(store))
    }

    var current: State { state.withLock { $0 } }

    func refresh(from store: any KeyRepository) async throws {
        let fresh = try await Self.read(store)
        state.withLock { $0 = fresh }
    }

    private static func read(_ store: any KeyRepository) async throws -> State {
        let (anyKeyCreated, active) = try await store.authenticationState()
        return State(authenticationRequired: anyKeyCreated, active: active)
    }
}
