import Foundation
import Synchronization

/// Runs an asynchronous transaction body to completion on the thread that holds a SQLite connection.
///
/// The store's operations are written once, as `async` code over ``SQLTransaction``, because PostgreSQL's
/// statements wait on the network. GRDB hands out a SQLite connection only inside a synchronous closure on its
/// own dispatch queue, and checks that every use of the connection happens there. So a SQLite transaction
/// starts the body as a task whose executor preference is this executor, and the connection's thread runs the
/// task's jobs itself, inline, until the body returns. SQLite's statements never suspend, so the body runs
/// straight through on that thread: no job is handed to Swift's concurrency pool and no thread of that pool
/// waits for the connection.
///
/// A body that awaits work done elsewhere (a recording awaits the next piece of its log, decoded on another
/// core) still completes: the connection's thread waits for the job that resumes the body, as it would wait for
/// the disk. That wait is on GRDB's own thread, never on Swift's pool or an event loop.
final class ConnectionThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` is guarded by `condition`; `UnownedJob` is only run on the draining thread.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    private init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` on the calling thread, with `value` (the connection, which must not leave this thread).
    static func run<Value, Result: Sendable>(
        with value: Value, _ body: @escaping @Sendable (Value) async throws -> Result
    ) throws -> Result {
        let executor = ConnectionThreadExecutor()
        let outcome = Mutex<Swift.Result<Result, any Error>?>(nil)
        let connection = ThreadBound(value)
        Task(executorPreference: executor) {
            let result = await Swift.Result(catching: { try await body(connection.value) })
            outcome.withLock { $0 = result }
            executor.finish()
        }
        executor.drain()
        guard let result = outcome.withLock({ $0 }) else { preconditionFailure("a transaction's task ended without a result") }
        return try result.get()
    }

    private func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    /// Runs the task's jobs on this thread until the task has finished.
    private func drain() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty && finished {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
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
