import Foundation
package import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

extension StoreChannels {
    /// Carries nothing but its arrival: an API key was created or revoked (sent by ``FingerprintStore/createKey(name:scope:)``
    /// and ``FingerprintStore/revokeKey(id:)`` inside their transactions).
    static let keys = "beaconfix_keys"
    /// Carries what ``StoreListener/broadcast(_:)`` sends: the replicas' live events, batched.
    static let broadcast = "beaconfix_broadcast"
}

/// The connection of a ``StoreListener`` to PostgreSQL: one dedicated session (never one of the pool's)
/// that LISTENs on the store's channels and also sends the broadcasts, reconnecting with a growing pause
/// when it is lost.
///
/// A dedicated session because LISTEN belongs to a session: a pooled connection handed to the next
/// transaction would carry the subscription with it, and a session that waits for notifications must
/// never wait behind a long transaction.
package final class PostgresListenerConnection: Sendable {
    let url: PostgresLocation
    /// The session's `application_name`: unique, so a test can find and terminate this very session in
    /// `pg_stat_activity`, and an operator can tell the listeners from the pool's connections.
    package let applicationName: String
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    /// The live session, nil while (re)connecting: what ``broadcast(_:)`` sends on.
    private let current = Mutex<PostgresConnection?>(nil)
    private static let nextID = Atomic<Int>(1_000_000)

    package init(url: PostgresLocation, logger: Logger) {
        self.url = url
        self.logger = logger
        applicationName = "beaconfix-listener-" + UUID().uuidString.prefix(8).lowercased()
        configuration = url.connectionConfiguration(startupParameters: [("application_name", applicationName)])
    }

    /// Connects, listens, and passes every notification to `yield` until cancelled; a lost session is
    /// reported through `yield` (``StoreChange/disconnected(reason:retryAfter:)``) and opened again after a
    /// pause that doubles from 100 ms to 5 s (back to 100 ms once a session has listened).
    func run(_ yield: @escaping @Sendable (StoreChange) -> Void) async {
        var pause = Duration.milliseconds(100)
        while !Task.isCancelled {
            let reason: String
            do {
                try await session(yield) { pause = .milliseconds(100) }
                reason = "the session ended"
            } catch {
                reason = PostgresBackend.reason(error)
            }
            if Task.isCancelled { break }
            logger.debug("store listener disconnected", metadata: ["store.location": "\(url)", "error": "\(reason)"])
            yield(.disconnected(reason: reason, retryAfter: pause))
            do { try await Task.sleep(for: pause) } catch { break }
            pause = min(pause * 2, .seconds(5))
        }
    }

    /// One session: LISTEN on the three channels, then ``StoreChange/listening`` (from that moment nothing
    /// committed is missed, so the consumer reads the current state once), then the notifications until
    /// the session fails or the task is cancelled.
    private func session(_ yield: @escaping @Sendable (StoreChange) -> Void, listening: () -> Void) async throws {
        let id = Self.nextID.add(1, ordering: .relaxed).newValue
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: id, logger: logger)
        } catch {
            throw StoreError.cannotConnect(location: url.description, reason: PostgresBackend.reason(error))
        }
        defer {
            current.withLock { $0 = nil }
            connection.close().whenComplete { _ in }
        }
        try await connection.listen(on: StoreChannels.revisions) { revisions in
            try await connection.listen(on: StoreChannels.keys) { keys in
                try await connection.listen(on: StoreChannels.broadcast) { broadcasts in
                    // Every LISTEN is acknowledged: whatever commits from now on is delivered.
                    current.withLock { $0 = connection }
                    listening()
                    yield(.listening)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { for try await note in revisions { yield(.revision(venue: note.payload)) } }
                        group.addTask { for try await _ in keys { yield(.keys) } }
                        group.addTask { for try await note in broadcasts { yield(.broadcast(note.payload)) } }
                        // The first sequence to end (the session closed) ends the session.
                        try await group.next()
                        group.cancelAll()
                    }
                }
            }
        }
    }

    /// Sends `payload` on the broadcast channel through the listening session.
    ///
    /// - Throws: ``StoreError/cannotConnect(location:reason:)`` while the session is being reopened, or when
    ///   PostgreSQL refuses it; ``StoreError/invalidInput(_:)`` for a payload PostgreSQL could not carry.
    func broadcast(_ payload: String) async throws(StoreError) {
        guard payload.utf8.count <= FingerprintStore.maximumBroadcastBytes else {
            throw .invalidInput("a broadcast carries at most \(FingerprintStore.maximumBroadcastBytes) bytes; this one has \(payload.utf8.count)")
        }
        guard let connection = current.withLock({ $0 }) else {
            throw .cannotConnect(location: url.description, reason: "the listener is reconnecting")
        }
        do {
            // Outside a transaction: delivered as soon as the statement completes.
            _ = try await connection.query("SELECT pg_notify(\(StoreChannels.broadcast), \(payload))", logger: logger)
        } catch {
            throw .cannotConnect(location: url.description, reason: PostgresBackend.reason(error))
        }
    }
}
