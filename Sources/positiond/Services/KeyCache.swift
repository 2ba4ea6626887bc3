import FingerprintStore
import Synchronization

/// The API keys the daemon accepts, refreshed from the store with the revisions, so that authenticating
/// a request never touches the database.
final class KeyCache: Sendable {
    struct State: Sendable {
        /// Whether any key was ever created: from then on every /v1 route needs one (revoking every key
        /// does not reopen the daemon).
        var authenticationRequired: Bool
        /// Scopes of the active keys by token hash.
        var active: [String: APIKeyScope]
    }

    private let state: Mutex<State>

    init(store: FingerprintStore) throws {
        state = Mutex(try Self.read(store))
    }

    var current: State { state.withLock { $0 } }

    func refresh(from store: FingerprintStore) throws {
        let fresh = try Self.read(store)
        state.withLock { $0 = fresh }
    }

    private static func read(_ store: FingerprintStore) throws -> State {
        let keys = try store.keys()
        return State(authenticationRequired: !keys.isEmpty, active: try store.activeKeyHashes())
    }
}
