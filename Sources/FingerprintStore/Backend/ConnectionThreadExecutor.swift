import Dispatch
import Synchronization

/// Runs an asynchronous transaction body to completion on the thread that holds a SQLite connection, without
/// ever blocking that thread.
///
/// The store's operations are written once, as `async` code over ``SQLTransaction``, because PostgreSQL's
/// statements wait on the network. GRDB hands out a SQLite connection only inside a synchronous closure on its
/// own dispatch queue, and checks that every use of the connection happens there. So a SQLite transaction
/// starts the body as a task whose executor preference is this executor, and the connection's thread runs the
/// task's jobs itself, inline, until the body returns. SQLite's statements never suspend, and nothing a body
/// awaits is done elsewhere (a recording's log source is synchronous: ``LabelledSampleSource``), so every
/// job the body enqueues is enqueued by the body itself, on this thread: the body runs straight through, no job
/// is handed to Swift's concurrency pool, and no thread waits for another.
///
/// A body that did await work done on another thread would leave the connection's thread with nothing to run
/// before the body ended. Rather than wait for it, the thread gives the connection up: the transaction is
/// rolled back with ``StoreError/storageFault(_:)``, the connection is closed to the body
/// (``ConnectionLease``), and the body's remaining jobs run on Dispatch's threads, where its next statement
/// throws instead of touching the connection.
final class ConnectionThreadExecutor: TaskExecutor, Sendable {
    private struct Queue: ~Copyable {
        var jobs: [UnownedJob] = []
        var finished = false
        /// The connection's thread gave up on the body: later jobs run elsewhere.
        var abandoned = false
    }
    private let queue = Mutex(Queue())
    private let lease = ConnectionLease()

    private init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = queue.withLock { queue in
            guard !queue.abandoned else { return false }
            queue.jobs.append(job)
            return true
        }
        if !queued { DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) } }
    }

    /// Runs `body` on the calling thread, with `value` (the connection, which must not leave this thread) and
    /// the lease that says whether the body may still use it.
    ///
    /// - Throws: what `body` throws, or ``StoreError/storageFault(_:)`` when the body awaited work done on
    ///   another thread.
    static func run<Value, Result: Sendable>(
        with value: Value, _ body: @escaping @Sendable (Value, ConnectionLease) async throws -> Result
    ) throws -> Result {
        let executor = ConnectionThreadExecutor()
        let outcome = Mutex<Swift.Result<Result, any Error>?>(nil)
        let connection = ThreadBound(value)
        let lease = executor.lease
        // Creating the task enqueues its first job here, synchronously.
        Task(executorPreference: executor) {
            let result = await Swift.Result(catching: { try await body(connection.value, lease) })
            outcome.withLock { $0 = result }
            executor.finish()
        }
        guard executor.runUntilSuspendedOrFinished() else {
            throw StoreError.storageFault(
                "a SQLite transaction waited for work done off its connection's thread; it was rolled back, and nothing was written")
        }
        guard let result = outcome.withLock({ $0 }) else { preconditionFailure("a transaction's task ended without a result") }
        return try result.get()
    }

    private func finish() {
        queue.withLock { $0.finished = true }
    }

    /// Runs the task's jobs on this thread while there are any. Returns whether the task finished; when it has
    /// not (the body awaits something another thread does), the connection is taken from it first.
    private func runUntilSuspendedOrFinished() -> Bool {
        while true {
            let next: UnownedJob? = queue.withLock { queue in
                if !queue.jobs.isEmpty { return queue.jobs.removeFirst() }
                if !queue.finished {
                    queue.abandoned = true
                    lease.revoke()
                }
                return nil
            }
            guard let next else { return queue.withLock { $0.finished } }
            next.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Whether a transaction's body may still use its SQLite connection: checked before each use, so that a body
/// its connection's thread gave up on (``ConnectionThreadExecutor``) throws instead of touching a connection
/// that is no longer its own.
final class ConnectionLease: Sendable {
    private let open = Atomic(true)

    func revoke() { open.store(false, ordering: .releasing) }

    /// - Throws: ``StoreError/storageFault(_:)`` once the lease is revoked.
    func check() throws {
        guard open.load(ordering: .acquiring) else {
            throw StoreError.storageFault("this SQLite transaction was rolled back: its connection is no longer its own")
        }
    }
}

/// A value that stays on the thread that made it: the SQLite connection a transaction's task uses while that
/// thread runs the task (``ConnectionThreadExecutor``).
private struct ThreadBound<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension Swift.Result where Failure == any Error {
    /// The outcome of an asynchronous throwing body.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
