import FingerprintStore
import Foundation
import Metrics
import Synchronization

/// Carries the live messages of the devices tracked here to the other replicas of a cluster, and theirs
/// to the subscribers here, through the shared store's broadcasts (PostgreSQL notifications).
///
/// Messages wait in an outbox per venue and leave in batches (``takeBatches()``, every flush interval),
/// each batch one notification of at most ``FingerprintStore/maximumBroadcastBytes``: one notification per
/// message would cost PostgreSQL a round trip and a wake-up of every listener for each position. A batch
/// names the replica that sent it, and a replica ignores its own (PostgreSQL delivers them back to it).
///
/// The drop policy is the local hub's: nothing waits. The outbox keeps at most `maximumPendingBytes` per
/// venue, dropping the oldest messages beyond; a batch that cannot be sent (the store's session is being
/// reopened) is dropped; received messages go through the hub's bounded buffers. Every drop is counted in
/// `beaconfix_live_dropped_messages_total`, as the hub's are, and batches in `beaconfix_live_relay_*`.
///
/// Order per device: a device is tracked on one replica at a time, its messages enter the outbox in the
/// order it publishes them, batches leave one after another on one session, and PostgreSQL delivers one
/// session's notifications in the order they were sent.
package final class LiveRelay: Sendable {
    /// One line of a batch: the device and the message's JSON as the hub sends it.
    private struct Pending: Sendable {
        var lines: [String] = []
        var bytes = 0
    }

    /// This process's name in the batches it sends: random per start, so a restarted replica is a new one.
    let replica: String
    let maximumBatchBytes: Int
    let maximumPendingBytes: Int
    /// How long a device seen in another replica's batches counts as tracked there: the other replica
    /// forgets a silent device after `devices.idle.seconds`, so this is that timeout.
    let remoteMemory: Duration
    private let outbox = Mutex<[String: Pending]>([:])
    /// Devices of the other replicas by venue and id, with when their last message arrived.
    private let remote = Mutex<[DeviceRegistry.Key: ContinuousClock.Instant]>([:])
    private let metrics: Metrics

    struct Metrics: Sendable {
        let batchesSent = Counter(label: "beaconfix_live_relay_batches_total", dimensions: [("direction", "sent")])
        let batchesReceived = Counter(label: "beaconfix_live_relay_batches_total", dimensions: [("direction", "received")])
        let batchesDropped = Counter(label: "beaconfix_live_relay_batches_total", dimensions: [("direction", "dropped")])
        let bytesSent = Counter(label: "beaconfix_live_relay_bytes_total", dimensions: [("direction", "sent")])
        let bytesReceived = Counter(label: "beaconfix_live_relay_bytes_total", dimensions: [("direction", "received")])
        let messagesSent = Counter(label: "beaconfix_live_relay_messages_total", dimensions: [("direction", "sent")])
        let messagesReceived = Counter(label: "beaconfix_live_relay_messages_total", dimensions: [("direction", "received")])
        /// The hub's: a message lost here is lost to a subscriber as surely as one dropped from its buffer.
        let droppedMessages = Observability.liveDropped()

        init() {
            // Dashboards and alerts see 0 from the start rather than nothing.
            for counter in [batchesSent, batchesReceived, batchesDropped, bytesSent, bytesReceived, messagesSent, messagesReceived] {
                counter.increment(by: 0)
            }
        }
    }

    package init(
        replica: String = String(UUID().uuidString.prefix(8)).lowercased(), maximumBatchBytes: Int = FingerprintStore.maximumBroadcastBytes,
        maximumPendingBytes: Int = 1 << 20, remoteMemory: Duration
    ) {
        self.replica = replica
        self.maximumBatchBytes = maximumBatchBytes
        self.maximumPendingBytes = maximumPendingBytes
        self.remoteMemory = remoteMemory
        metrics = Metrics()
    }

    /// Queues `message` (a device's position or zone event, already encoded) for the next batch.
    ///
    /// Messages for every subscriber of a venue (revisions) are not relayed: each replica publishes its own
    /// revisions as it reloads.
    package func enqueue(_ message: LiveMessage) {
        guard let device = message.device, !device.isEmpty, Self.isRelayable(device) else {
            metrics.droppedMessages.increment()
            return
        }
        enqueue(line: device + "\t" + message.text, venue: message.venue)
    }

    /// Queues a message for the sockets that follow the whole venue on the other replicas (a survey
    /// session's progress), as a line without a device; see ``fits(_:)`` for its size.
    func enqueueVenueWide(_ message: LiveMessage) {
        enqueue(line: "\t" + message.text, venue: message.venue)
    }

    /// Whether `message` fits in a batch on its own: a larger one is dropped by ``enqueueVenueWide(_:)``.
    func fits(_ message: LiveMessage) -> Bool {
        guard let header = header(venue: message.venue) else { return false }
        return header.utf8.count + (message.device ?? "").utf8.count + message.text.utf8.count + 2 <= maximumBatchBytes
    }

    private func enqueue(line: String, venue: String) {
        guard let header = header(venue: venue) else {
            metrics.droppedMessages.increment()
            return
        }
        // A message that fills a batch on its own cannot be carried.
        guard header.utf8.count + line.utf8.count + 1 <= maximumBatchBytes else {
            metrics.droppedMessages.increment()
            return
        }
        let dropped = outbox.withLock { outbox -> Int in
            var pending = outbox[venue] ?? Pending()
            pending.lines.append(line)
            pending.bytes += line.utf8.count + 1
            var dropped = 0
            while pending.bytes > maximumPendingBytes, !pending.lines.isEmpty {
                pending.bytes -= pending.lines.removeFirst().utf8.count + 1
                dropped += 1
            }
            outbox[venue] = pending
            return dropped
        }
        if dropped > 0 { metrics.droppedMessages.increment(by: Int64(dropped)) }
    }

    /// Empties the outbox into payloads of at most `maximumBatchBytes`, a venue's messages in order.
    package func takeBatches() -> [(payload: String, messages: Int)] {
        let taken = outbox.withLock { outbox in
            defer { outbox.removeAll(keepingCapacity: true) }
            return outbox
        }
        var batches: [(payload: String, messages: Int)] = []
        for (venue, pending) in taken.sorted(by: { $0.key < $1.key }) {
            guard let header = header(venue: venue) else { continue }
            var payload = header
            var count = 0
            for line in pending.lines {
                if payload.utf8.count + line.utf8.count + 1 > maximumBatchBytes {
                    batches.append((payload, count))
                    payload = header
                    count = 0
                }
                payload += "\n" + line
                count += 1
            }
            if count > 0 { batches.append((payload, count)) }
        }
        return batches
    }

    /// Sends every pending batch with `send`, one after another (the order per device); a batch that
    /// fails is counted as dropped, and the next ones are still tried.
    func flush(_ send: (String) async throws -> Void) async {
        for batch in takeBatches() {
            do {
                try await send(batch.payload)
                metrics.batchesSent.increment()
                metrics.bytesSent.increment(by: Int64(batch.payload.utf8.count))
                metrics.messagesSent.increment(by: Int64(batch.messages))
            } catch {
                metrics.batchesDropped.increment()
                metrics.droppedMessages.increment(by: Int64(batch.messages))
            }
        }
    }

    /// The messages of another replica's batch, in order, remembering their devices as tracked there; an
    /// empty list for this replica's own batches and for anything that is not a batch. A line without a
    /// device is a message for the venue's venue-wide sockets only.
    package func receive(_ payload: String, now: ContinuousClock.Instant = .now) -> [LiveMessage] {
        var lines = payload.split(separator: "\n", omittingEmptySubsequences: false)[...]
        guard let header = lines.popFirst() else { return [] }
        let fields = header.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0] == Self.format, fields[1] != replica else { return [] }
        let venue = String(fields[2])
        var messages: [LiveMessage] = []
        messages.reserveCapacity(lines.count)
        for line in lines {
            guard let tab = line.firstIndex(of: "\t") else { continue }
            let device = String(line[..<tab]), text = String(line[line.index(after: tab)...])
            messages.append(device.isEmpty ? LiveMessage(venueWide: venue, text: text) : LiveMessage(venue: venue, device: device, text: text))
        }
        metrics.batchesReceived.increment()
        metrics.bytesReceived.increment(by: Int64(payload.utf8.count))
        metrics.messagesReceived.increment(by: Int64(messages.count))
        remote.withLock { remote in
            for message in messages {
                if let device = message.device { remote[DeviceRegistry.Key(venue: venue, device: device)] = now }
            }
        }
        return messages
    }

    /// Whether another replica published messages of the device within ``remoteMemory``: a fresh track
    /// of it here is then a re-warm (its replica died, or the front moved it), not a new device.
    package func isTrackedElsewhere(_ key: DeviceRegistry.Key, now: ContinuousClock.Instant = .now) -> Bool {
        remote.withLock { $0[key].map { now - $0 <= remoteMemory } ?? false }
    }

    /// Forgets the other replicas' devices silent for longer than ``remoteMemory``.
    package func forgetIdle(now: ContinuousClock.Instant = .now) {
        remote.withLock { remote in remote = remote.filter { now - $0.value <= remoteMemory } }
    }

    /// The first line of every batch: format, replica, venue, tab-separated.
    private func header(venue: String) -> String? {
        Self.isRelayable(venue) ? "\(Self.format)\t\(replica)\t\(venue)" : nil
    }

    /// A batch's version: a replica of another build ignores a format it does not know.
    static let format = "bfx-live-1"

    /// Whether an id fits in a batch line: no tab, newline or NUL (PostgreSQL refuses NUL in text).
    private static func isRelayable(_ id: String) -> Bool {
        !id.utf8.contains { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x00 }
    }
}
