public import Foundation

/// Scratch folders for tests. They all live below one folder per test process, which is removed when
/// the process exits, so test runs leave nothing behind in the system's temporary directory (a
/// database a running application still holds cannot be removed any earlier).
public enum ScratchSpace {
    static let root: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("beaconfix-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: ScratchSpace.root) }
        return root
    }()

    /// A new, empty folder whose name starts with `prefix`.
    public static func directory(_ prefix: String) throws -> URL {
        let directory = root.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
