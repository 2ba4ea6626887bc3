import FingerprintStore
import Foundation
import Logging
import Metrics
import ServiceLifecycle

/// Writes what the ``HistoryRecorder`` collected, once per `flushInterval`, in one transaction; closes the
/// visits of idle devices on the same beat; applies retention and closes visits abandoned by a replica that
/// died (at most once per `maintenanceInterval`). On a graceful shutdown every open visit is closed at its
/// device's last sighting and written before the daemon exits.
///
/// A failed write is retried with the next one (the batch is kept, not lost); while the store stays
/// unreachable, trace points beyond the recorder's limit are dropped and counted, visits never.
struct HistoryWriter: Service {
    let store: any HistoryRepository
    let recorder: HistoryRecorder
    let flushInterval: Duration
    /// Rows older than this are deleted.
    let retention: Duration
    var maintenanceInterval: Duration = .seconds(60)
    let logger: Logger

    func run() async throws {
        var carried: [String: VenueHistoryBatch] = [:]  // what a failed write left, retried first
        let written = Metrics.Counter(label: "beaconfix_history_written_rows_total")
        let failures = Metrics.Counter(label: "beaconfix_history_write_failures_total")
        let flushDuration = Metrics.Timer(label: "beaconfix_history_write_duration_seconds")
        var lastMaintenance: ContinuousClock.Instant?
        while true {
            let stopping = (try? await cancelWhenGracefulShutdown { try await Task.sleep(for: flushInterval) }) == nil
            recorder.closeIdle()
            if stopping {
                let closed = recorder.closeAll()
                await flush(&carried, written: written, failures: failures, duration: flushDuration)
                logger.info("visitor history written before stopping", metadata: ["devices.closed": "\(closed)"])
                return
            }
            await flush(&carried, written: written, failures: failures, duration: flushDuration)
            if lastMaintenance.map({ .now - $0 >= maintenanceInterval }) ?? true {
                lastMaintenance = .now
                await maintain()
            }
        }
    }

    private func flush(_ carried: inout [String: VenueHistoryBatch], written: Metrics.Counter, failures: Metrics.Counter, duration: Metrics.Timer) async {
        var batches = carried
        for (venue, batch) in recorder.drain() { batches[venue, default: VenueHistoryBatch()].append(batch) }
        guard batches.values.contains(where: { !$0.isEmpty }) else { return }
        let started = ContinuousClock.now
        do {
            let summary = try await store.recordHistory(batches)
            carried = [:]
            let elapsed = ContinuousClock.now - started
            duration.recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
            written.increment(by: Int64(summary.visits + summary.tracePoints + summary.sightings))
        } catch {
            failures.increment()
            // Keep it for the next beat, trimming the trace to the recorder's limit: memory stays bounded
            // while the store is away, and visits (what dwell and funnels are made of) are kept whole.
            var kept = batches
            let limit = recorder.maximumPendingTracePoints
            for venue in kept.keys where kept[venue]!.trace.count > limit {
                kept[venue]!.trace.removeFirst(kept[venue]!.trace.count - limit)
            }
            carried = kept
            logger.error("writing the visitor history failed; retrying with the next batch", metadata: ["error": "\(error)"])
        }
    }

    private func maintain() async {
        let now = Date().timeIntervalSince1970
        do {
            // A visit is abandoned when its device has not been seen for twice the idle timeout, and at least
            // an hour: sightings are on the phones' clocks, and samples buffered or replayed a while later must
            // not see their visit closed under them (a replica that still holds it would correct it anyway).
            let idle = Double(recorder.idleTimeout.components.seconds)
            let (pruned, closed) = try await store.maintainHistory(
                before: now - Double(retention.components.seconds), abandonedBefore: now - max(2 * idle, 3600))
            if pruned > 0 || closed > 0 {
                logger.info("visitor history maintained", metadata: ["rows.deleted": "\(pruned)", "visits.closed": "\(closed)"])
            }
        } catch {
            logger.error("visitor history retention failed; retrying later", metadata: ["error": "\(error)"])
        }
    }
}
