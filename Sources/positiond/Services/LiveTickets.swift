package import FingerprintStore
import Foundation
import Synchronization

/// Single-use, short-lived tickets for the live WebSocket.
///
/// A browser's WebSocket cannot send an `Authorization` header, and an API key in a URL ends up in
/// histories and logs. The map page trades its key for a ticket (`POST .../live/tickets`) and opens the
/// socket with it: the ticket works once, for one venue's feed, for a short while, with the scope of the
/// key that obtained it. Tickets live in memory only; a restart forgets them, and a page simply asks again.
package final class LiveTickets: Sendable {
    /// What a ticket stands for.
    package struct Grant: Sendable {
        let venue: String
        package let scope: APIKeyScope?
        let client: String
        let expires: ContinuousClock.Instant
    }

    /// Why a ticket was refused.
    package enum Refusal: Error {
        /// Too many tickets are waiting for their use (a client asking in a loop).
        case tooManyPending
    }

    let lifetime: Duration
    let maximumPending: Int
    /// By the ticket's hash (as keys are stored), so that memory never holds a usable ticket.
    private let grants = Mutex<[String: Grant]>([:])

    package init(lifetime: Duration, maximumPending: Int = 10_000) {
        self.lifetime = lifetime
        self.maximumPending = maximumPending
    }

    /// A new ticket for `venue`'s feed, carrying the caller's `scope` and `client`.
    package func issue(venue: String, scope: APIKeyScope?, client: String, now: ContinuousClock.Instant = .now) throws(Refusal) -> String {
        var bytes = [UInt8](repeating: 0, count: 24)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        let ticket = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let grant = Grant(venue: venue, scope: scope, client: client, expires: now + lifetime)
        let accepted = grants.withLock { grants -> Bool in
            grants = grants.filter { $0.value.expires > now }
            guard grants.count < maximumPending else { return false }
            grants[Self.digest(ticket)] = grant
            return true
        }
        guard accepted else { throw .tooManyPending }
        return ticket
    }

    /// The grant of `ticket` for `venue`'s feed, used up by this call; nil when it is unknown, already used,
    /// expired or for another venue.
    package func redeem(_ ticket: String, venue: String, now: ContinuousClock.Instant = .now) -> Grant? {
        let grant = grants.withLock { $0.removeValue(forKey: Self.digest(ticket)) }
        guard let grant, grant.expires > now, grant.venue == venue else { return nil }
        return grant
    }

    private static func digest(_ ticket: String) -> String { FingerprintStore.hash(token: ticket) }
}
