package import Foundation
import Metrics
import Positioning
import Synchronization

/// A message of the live feed, encoded once and sent as text to every matching socket.
package struct LiveMessage: Sendable {
    package let venue: String
    /// The device it is about; nil for venue-wide messages (revisions), which every subscriber gets.
    package let device: String?
    package let text: String
    /// For the sockets that follow the whole venue only, not a device's followers (a survey session's progress).
    private(set) var venueWideOnly = false

    /// - Throws: `EncodingError` for a message that JSON cannot carry (a non-finite number).
    package init(venue: String, device: String?, message: Components.Schemas.LiveMessage) throws {
        self.venue = venue
        self.device = device
        text = String(decoding: try APIJSON.encoder.encode(message), as: UTF8.self)
    }

    /// A message encoded elsewhere: another replica's, as its batch carried it.
    init(venue: String, device: String?, text: String) {
        self.venue = venue
        self.device = device
        self.text = text
    }

    /// Another replica's message for the sockets that follow the whole of `venue`.
    init(venueWide venue: String, text: String) {
        self.init(venue: venue, device: nil, text: text)
        venueWideOnly = true
    }
}

/// Fans live messages out to WebSocket subscribers.
///
/// Each subscriber has a bounded buffer that keeps the newest messages: a slow consumer loses its oldest
/// messages (counted in `beaconfix_live_dropped_messages_total`) but never slows the daemon or the others,
/// because publishing never waits.
///
/// In a cluster (a store shared on PostgreSQL) a device's messages also go to its ``LiveRelay``, which
/// carries them to the subscribers of the other replicas, and the other replicas' come back through
/// ``deliverRelayed(_:)``.
package final class LiveHub: Sendable {
    private struct Subscriber: Sendable {
        let venue: String
        let device: String?
        /// Who opened it (an API key's hash, or one name for every unauthenticated client): what the
        /// per-key cap counts.
        let owner: String
        let continuation: AsyncStream<LiveMessage>.Continuation
    }

    /// Why a subscription was refused.
    package enum Refusal: String, Error, Sendable {
        /// The daemon holds `maximumTotal` sockets already.
        case total
        /// The caller's key holds `maximumPerOwner` sockets already.
        case perKey = "per_key"

        var message: String {
            switch self {
            case .total: "the daemon holds as many live sockets as it allows; try again later"
            case .perKey: "this API key holds as many live sockets as it may; close one first"
            }
        }
    }

    private let subscribers = Mutex<[UUID: Subscriber]>([:])
    let bufferSize: Int
    /// Sockets open at once, in all and per owner: each holds a buffer and a task, so a client opening
    /// sockets without end would otherwise exhaust memory.
    let maximumTotal: Int
    let maximumPerOwner: Int
    private let connectionsGauge: Metrics.Gauge
    private let droppedCounter: Metrics.Counter
    private let refusedCounters: [Refusal: Metrics.Counter]
    /// The other replicas' way to this replica's devices; nil for a daemon on its own (a SQLite file).
    package let relay: LiveRelay?

    package init(bufferSize: Int, maximumTotal: Int = 1000, maximumPerOwner: Int = 50, relay: LiveRelay? = nil) {
        self.relay = relay
        self.bufferSize = bufferSize
        self.maximumTotal = maximumTotal
        self.maximumPerOwner = maximumPerOwner
        connectionsGauge = Observability.liveConnections()
        droppedCounter = Observability.liveDropped()
        refusedCounters = [.total: Observability.liveRefused(reason: Refusal.total.rawValue), .perKey: Observability.liveRefused(reason: Refusal.perKey.rawValue)]
        // Dashboards and alerts see 0 from the start rather than nothing.
        connectionsGauge.record(0)
        droppedCounter.increment(by: 0)
        for counter in refusedCounters.values { counter.increment(by: 0) }
    }


    private static func refusal(owner: String, in all: [UUID: Subscriber], total: Int, perOwner: Int) -> Refusal? {
        if all.count >= total { return .total }
        if all.values.lazy.filter({ $0.owner == owner }).count >= perOwner { return .perKey }
        return nil
    }

    /// A stream of the venue's messages (only `device`'s and venue-wide ones when a device is given).
    ///
    /// - Throws: ``Refusal`` when the daemon or `owner` holds as many sockets as allowed (counted).
    package func subscribe(venue: String, device: String?, owner: String) throws(Refusal) -> (id: UUID, messages: AsyncStream<LiveMessage>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream<LiveMessage>.makeStream(bufferingPolicy: .bufferingNewest(bufferSize))
        let refused = subscribers.withLock { all -> Refusal? in
            if let refusal = Self.refusal(owner: owner, in: all, total: maximumTotal, perOwner: maximumPerOwner) { return refusal }
            all[id] = Subscriber(venue: venue, device: device, owner: owner, continuation: continuation)
            return nil
        }
        if let refused {
            refusedCounters[refused]?.increment()
            continuation.finish()
            throw refused
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        connectionsGauge.record(subscriberCount)
        return (id, stream)
    }

    func unsubscribe(_ id: UUID) {
        let removed = subscribers.withLock { $0.removeValue(forKey: id) }
        removed?.continuation.finish()
        connectionsGauge.record(subscriberCount)
    }

    var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// Whether a socket here follows the whole of `venue` (scope admin: the live map).
    func hasVenueWideSubscribers(venue: String) -> Bool {
        subscribers.withLock { all in all.values.contains { $0.venue == venue && $0.device == nil } }
    }

    /// Sends `message` to the sockets following the whole of `venue` only: what a device's follower has no
    /// use for (a survey session's progress). It is relayed to the other replicas' such sockets too, or
    /// `compact` in its place when it is too large for a relay batch.
    package func publishToVenueWide(
        venue: String, message: Components.Schemas.LiveMessage, compact: @autoclosure () -> Components.Schemas.LiveMessage
    ) {
        let targets = subscribers.withLock { all in all.values.filter { $0.venue == venue && $0.device == nil } }
        guard !targets.isEmpty || relay != nil else { return }
        guard let encoded = try? LiveMessage(venue: venue, device: nil, message: message) else {
            droppedCounter.increment()
            return
        }
        deliver(encoded, to: targets)
        guard let relay else { return }
        if relay.fits(encoded) {
            relay.enqueueVenueWide(encoded)
        } else if let small = try? LiveMessage(venue: venue, device: nil, message: compact()) {
            relay.enqueueVenueWide(small)
        } else {
            droppedCounter.increment()
        }
    }

    /// Sends `message` to every matching subscriber without waiting for any of them.
    package func publish(_ message: LiveMessage) {
        deliver(message, to: subscribers(venue: message.venue, device: message.device))
    }

    /// Makes and encodes `message` and sends it as ``publish(_:)`` does, unless nobody listens: most
    /// updates of a busy venue have no live subscriber, and making the message is the expensive part. A
    /// message that cannot be encoded is counted as dropped.
    ///
    /// A device's message is also handed to the relay, when there is one: a subscriber of another replica
    /// may follow the device, and this replica cannot know.
    package func publish(venue: String, device: String?, message: @autoclosure () -> Components.Schemas.LiveMessage) {
        let targets = subscribers(venue: venue, device: device)
        let relayed = device != nil ? relay : nil
        guard !targets.isEmpty || relayed != nil else { return }
        guard let encoded = try? LiveMessage(venue: venue, device: device, message: message()) else {
            droppedCounter.increment()
            return
        }
        deliver(encoded, to: targets)
        relayed?.enqueue(encoded)
    }

    /// Sends the messages of another replica's batch to the subscribers here, in order, without relaying
    /// them again.
    package func deliverRelayed(_ messages: [LiveMessage]) {
        guard let first = messages.first else { return }
        // One batch is one venue's: one pass over the subscribers, then a filter per device.
        let venueSubscribers = subscribers(venue: first.venue, device: nil)
        guard !venueSubscribers.isEmpty else { return }
        for message in messages {
            deliver(message, to: venueSubscribers.filter {
                $0.device == nil || (!message.venueWideOnly && (message.device == nil || $0.device == message.device))
            })
        }
    }

    private func subscribers(venue: String, device: String?) -> [Subscriber] {
        subscribers.withLock { all in
            all.values.filter { $0.venue == venue && (device == nil || $0.device == nil || $0.device == device) }
        }
    }

    private func deliver(_ message: LiveMessage, to targets: [Subscriber]) {
        for subscriber in targets {
            if case .dropped = subscriber.continuation.yield(message) {
                droppedCounter.increment()
            }
        }
    }

    /// Ends every stream (shutdown).
    package func finishAll() {
        let all = subscribers.withLock { all in
            defer { all.removeAll() }
            return Array(all.values)
        }
        for subscriber in all { subscriber.continuation.finish() }
    }
}
