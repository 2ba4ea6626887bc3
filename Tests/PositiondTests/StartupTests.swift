import ScanFormats
import FingerprintStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// positiond started as an operator starts it, on every way start-up can fail: one clear line, exit 1.
@Suite("positiond start-up failures")
struct StartupTests {
    struct Outcome {
        var status: Int32
        var reason: Process.TerminationReason
        var stderr: String
    }

    /// The positiond binary beside the test bundle (both built by `swift build --build-tests`).
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("positiond")

    /// Runs positiond with `arguments`; a process still running after 20 s is stopped and reported (a
    /// start-up failure must end the process, not leave it serving or hanging).
    static func run(_ arguments: [String]) throws -> Outcome {
        let scratch = try ScratchSpace.directory("startup")
        let errURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        process.environment = ["PATH": "/usr/bin:/bin"]
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            Issue.record("positiond \(arguments) was still running after 20 s")
        }
        try err.close()
        return Outcome(
            status: process.terminationStatus, reason: process.terminationReason,
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// A listening socket on a loopback port chosen by the system, and that port.
    static func occupiedPort() throws -> (socket: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    static func demoDatabase() async throws -> String {
        try await TestEnvironment.demoStore().writer.path
    }

    static func expectOneClearLine(_ outcome: Outcome, _ phrase: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome.reason == .exit && outcome.status == 1, "status \(outcome.status) (\(outcome.reason)): \(outcome.stderr)", sourceLocation: sourceLocation)
        let lines = outcome.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(outcome.stderr)", sourceLocation: sourceLocation)
        #expect(outcome.stderr.hasPrefix("positiond: ") && outcome.stderr.contains(phrase), "\(outcome.stderr)", sourceLocation: sourceLocation)
    }

    @Test("a port already in use")
    func portInUse() async throws {
        // Given a port something else listens on
        let (socket, port) = try Self.occupiedPort()
        defer { close(socket) }
        // When positiond is started on it
        let outcome = try Self.run(["--db", try await Self.demoDatabase(), "--port", "\(port)"])
        // Then it says so in one line and exits 1
        Self.expectOneClearLine(outcome, "already in use")
    }

    @Test("a database that does not exist is not created empty")
    func missingDatabase() throws {
        let path = try ScratchSpace.directory("startup").appendingPathComponent("nothing-here.sqlite").path
        Self.expectOneClearLine(try Self.run(["--db", path, "--port", "18999"]), "does not exist")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a PostgreSQL store that cannot be reached, named without its password")
    func unreachablePostgres() throws {
        let outcome = try Self.run(["--db", "postgres://ops:s3cret@127.0.0.1:1/beaconfix", "--port", "18999"])
        Self.expectOneClearLine(outcome, "cannot connect to the PostgreSQL store postgres://ops@127.0.0.1:1/beaconfix")
        #expect(!outcome.stderr.contains("s3cret"))
    }

    @Test("a file that is not a database")
    func notADatabase() throws {
        let path = try ScratchSpace.directory("startup").appendingPathComponent("notes.sqlite").path
        try Data("these are not the fingerprints you are looking for\n".utf8).write(to: URL(fileURLWithPath: path))
        Self.expectOneClearLine(try Self.run(["--db", path, "--port", "18999"]), "cannot open the database")
    }

    @Test("a database written by a newer beaconfix")
    func newerDatabase() async throws {
        let path = try await Self.demoDatabase()
        let store = try FingerprintStore.open(path: path, logger: TestEnvironment.logger)
        try await store.writer.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')") }
        Self.expectOneClearLine(try Self.run(["--db", path, "--port", "18999"]), "newer version")
    }

    @Test("a database another process holds a write transaction on: positiond starts and serves")
    func lockedDatabase() async throws {
        // Given a demo database on which another connection holds an open write transaction
        let path = try await Self.demoDatabase()
        let holder = try FingerprintStore.open(path: path, logger: TestEnvironment.logger)
        let started = DispatchSemaphore(value: 0), finish = DispatchSemaphore(value: 0)
        Thread {
            try? holder.writer.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE; UPDATE venue SET name = name")
                started.signal()
                finish.wait()
                try db.execute(sql: "ROLLBACK")
            }
        }.start()
        started.wait()
        defer { finish.signal() }
        // When positiond starts on it
        let (socket, port) = try Self.occupiedPort()
        close(socket)
        let scratch = try ScratchSpace.directory("startup")
        let outURL = scratch.appendingPathComponent("stdout")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["--db", path, "--port", "\(port)"]
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() }; process.waitUntilExit() }
        // Then it loads the venue and listens while the transaction is still open
        let log = try await eventually("positiond listening", timeout: .seconds(8), every: .milliseconds(100)) {
            let log = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
            return log.contains("listening") || !process.isRunning ? log : nil
        }
        #expect(log.contains("radio map loaded") && log.contains("listening"), "\(log)")
        #expect(process.isRunning)
    }

    @Test("bad settings", arguments: [
        (["--port", "abc"], "port 'abc' is not a whole number"),
        (["--port", "70000"], "70000"),
        (["--revision-poll-seconds", "nan"], "revision.poll.seconds"),
        (["--log-level", "loud"], "log.level 'loud'"),
        (["--log.level", "debug"], "unknown option --log.level"),
    ])
    func badSettings(arguments: [String], phrase: String) async throws {
        Self.expectOneClearLine(try Self.run(["--db", try await Self.demoDatabase()] + arguments), phrase)
    }
}
