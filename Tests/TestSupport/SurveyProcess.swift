public import Foundation

/// Runs the built `survey` executable as a user would, capturing its output and exit status (the
/// survey tests, and positiond's tests of `survey upload` against a running server).
public struct SurveyProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// The `survey` binary beside the test bundle (both are built by `swift build --build-tests`).
    public static let executable: URL = {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("survey")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        return packageRoot.appendingPathComponent(".build/debug/survey")
    }()

    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs `survey arguments...` with `input` on standard input, in `directory`, and waits for it.
    public static func run(_ arguments: [String], input: String? = nil, in directory: URL? = nil) throws -> Result {
        let launched = try Launched(arguments, input: input, in: directory, environment: nil) { _ in }
        launched.process.waitUntilExit()
        return try launched.result()
    }

    /// Runs `survey arguments...` with `environment` added to this process's, without blocking a thread
    /// of the concurrency pool while it runs (the server answering it may run in this process);
    /// `whileRunning` may interrupt it.
    public static func run(
        _ arguments: [String], environment: [String: String], whileRunning: @Sendable (Process) async throws -> Void = { _ in }
    ) async throws -> Result {
        let (exited, exit) = AsyncStream<Void>.makeStream()
        let launched = try Launched(arguments, input: nil, in: nil, environment: environment) { process in
            process.terminationHandler = { _ in exit.finish() }
        }
        try await whileRunning(launched.process)
        for await _ in exited {}
        return try launched.result()
    }

    /// A started process and the files its output goes to: files, not pipes, so that a chatty command can
    /// never block on a full pipe.
    private struct Launched {
        let process = Process()
        let scratch: URL
        let out: FileHandle, err: FileHandle

        init(
            _ arguments: [String], input: String?, in directory: URL?, environment: [String: String]?, beforeRun: (Process) -> Void
        ) throws {
            process.executableURL = SurveyProcess.executable
            process.arguments = arguments
            if let directory { process.currentDirectoryURL = directory }
            if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
            scratch = try SurveyProcess.temporaryDirectory()
            _ = FileManager.default.createFile(atPath: scratch.appendingPathComponent("stdout").path, contents: nil)
            _ = FileManager.default.createFile(atPath: scratch.appendingPathComponent("stderr").path, contents: nil)
            out = try FileHandle(forWritingTo: scratch.appendingPathComponent("stdout"))
            err = try FileHandle(forWritingTo: scratch.appendingPathComponent("stderr"))
            let stdin = Pipe()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = stdin
            beforeRun(process)
            try process.run()
            if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
            try stdin.fileHandleForWriting.close()
        }

        /// The exit status and output of the process, which has exited.
        func result() throws -> Result {
            defer { try? FileManager.default.removeItem(at: scratch) }
            try out.close()
            try err.close()
            return Result(
                status: process.terminationStatus,
                stdout: String(decoding: try Data(contentsOf: scratch.appendingPathComponent("stdout")), as: UTF8.self),
                stderr: String(decoding: try Data(contentsOf: scratch.appendingPathComponent("stderr")), as: UTF8.self))
        }
    }

    public static func temporaryDirectory() throws -> URL {
        try ScratchSpace.directory("survey")
    }
}
