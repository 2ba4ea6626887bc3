import Dispatch

/// The executor of PostgreSQL transactions' bodies: Dispatch's threads rather than Swift's pool.
///
/// A transaction resumes after every statement. On Swift's pool each resumption would queue behind whatever
/// long computation holds the pool's few threads (a venue's tuning runs for seconds without a suspension
/// point), and a transaction would hold its connection, and its locks, for as long. Dispatch's threads are
/// scheduled by the system beside the pool, as GRDB's queues are for SQLite's transactions. Nothing here
/// blocks: a job runs until the body next awaits the server.
final class StoreTaskExecutor: TaskExecutor {
    static let shared = StoreTaskExecutor()

    private let queue = DispatchQueue(label: "beaconfix.store", qos: .userInitiated, attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
