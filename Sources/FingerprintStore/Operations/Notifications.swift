import Foundation
import Logging

/// What a shared store's notifications say changed, in the order they arrived.
public enum StoreChange: Sendable, Hashable {
    /// The listener is listening (first, and again after every reconnection): notifications sent while it
    /// was not were lost, so read what they would have told (revisions, keys) once now.
    case listening
    /// The venue's revision increased (its transaction has committed).
    case revision(venue: String)
    /// An API key was created or revoked.
    case keys
    /// A payload some process sent with ``StoreListener/broadcast(_:)``, this one included.
    case broadcast(String)
    /// The listener lost its session (or could not open one) and tries again after `retryAfter`; `reason`
    /// never holds the password.
    case disconnected(reason: String, retryAfter: Duration)
}

/// Follows a shared store's changes as PostgreSQL's notifications announce them (LISTEN/NOTIFY), so that
/// the processes sharing the store never poll it, and lets them broadcast short messages to each other.
///
/// It holds one session of its own, opened by ``run()`` and reopened with a growing pause whenever it is
/// lost; ``changes`` yields what arrives. Get one from ``FingerprintStore/listener()``.
public final class StoreListener: Sendable {
    /// Everything the session receives, in order; finishes when ``run()`` returns.
    ///
    /// Unbounded, so that no revision or key change is ever dropped: the consumer must only sort what
    /// arrives (a reload belongs on another task), which keeps the buffer near empty.
    public let changes: AsyncStream<StoreChange>
    private let continuation: AsyncStream<StoreChange>.Continuation
    package let connection: PostgresListenerConnection

    package init(connection: PostgresListenerConnection) {
        self.connection = connection
        (changes, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Listens until the calling task is cancelled, reconnecting whenever the session is lost.
    public func run() async {
        let continuation = self.continuation
        await connection.run { continuation.yield($0) }
        continuation.finish()
    }

    /// Sends `payload` to every listener of the store (this one too), when the sending statement completes.
    ///
    /// - Parameter payload: at most ``FingerprintStore/maximumBroadcastBytes`` bytes of UTF-8 text without NUL.
    /// - Throws: ``StoreError/cannotConnect(location:reason:)`` while the session is lost (the payload is not
    ///   sent: broadcasts are not queued), ``StoreError/invalidInput(_:)`` for a payload that is too long.
    public func broadcast(_ payload: String) async throws(StoreError) {
        try await connection.broadcast(payload)
    }
}

extension FingerprintStore {
    /// PostgreSQL carries a notification's payload when it is shorter than 8000 bytes.
    public static let maximumBroadcastBytes = 7999

    /// A listener of this store's changes, for a store shared on PostgreSQL; nil for a SQLite file, whose
    /// readers poll ``revisions()-(_)`` instead (SQLite has no notifications between processes).
    public func listener() -> StoreListener? {
        backend.listener(logger: logger)
    }
}
