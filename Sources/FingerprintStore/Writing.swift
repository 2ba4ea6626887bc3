import GRDB

extension FingerprintStore {
    /// Runs `updates` in one write transaction, as `writer.write` does, with one difference: when the
    /// disk fills up, the space the failed transaction took in the write-ahead log is given back before
    /// the error is thrown. Without that, the rolled-back frames keep the disk full, and the next process
    /// that opens the database (positiond restarting, `survey stats`) dies of SIGBUS when SQLite maps the
    /// shared-memory file it cannot grow.
    ///
    /// - Throws: ``StoreError/diskFull(path:)`` when the disk is full (nothing was written), or what
    ///   `updates` throws.
    func write<T>(_ updates: (Database) throws -> T) throws -> T {
        try releasingLogWhenFull { try writer.write(updates) }
    }

    /// ``write(_:)`` without blocking the caller's thread: GRDB's asynchronous write, which waits for the
    /// writer queue without holding a thread of Swift's concurrency pool.
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        _ = try? await writer.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        do {
            return try await writer.write(updates)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            do {
                _ = try await writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            } catch {
                logTruncationFailure(error)
            }
            throw StoreError.diskFull(path: path)
        }
    }

    /// `writer.writeWithoutTransaction`, with the disk-full handling of ``write(_:)``.
    func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try releasingLogWhenFull { try writer.writeWithoutTransaction(updates) }
    }

    /// Runs `body` in one write transaction, committed, or rolled back when `dryRun` is set.
    func transaction<T>(dryRun: Bool, _ body: (Database) throws -> T) throws -> T {
        try writeWithoutTransaction { db in
            var result: T?
            try db.inTransaction(.immediate) {
                result = try body(db)
                return dryRun ? .rollback : .commit
            }
            return result!
        }
    }

    /// The sync ``write(_:)``'s handling (the async one repeats it around GRDB's async calls).
    private func releasingLogWhenFull<T>(_ body: () throws -> T) throws -> T {
        // Committed frames still in the log are copied into the database first, while there is room: then
        // a transaction that fills the disk leaves only its own frames, which truncation simply drops.
        _ = try? writer.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            // The transaction is rolled back; truncating the log frees its frames (nothing committed is lost:
            // a checkpoint copies committed frames into the database before truncating).
            do {
                _ = try writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            } catch {
                logTruncationFailure(error)
            }
            throw StoreError.diskFull(path: path)
        }
    }

    private func logTruncationFailure(_ error: any Error) {
        logger.warning("the write-ahead log could not be truncated after the disk filled up", metadata: ["error": "\(error)"])
    }
}
