import Crypto
import Foundation

/// What `survey upload` has had acknowledged, kept beside the log so that a run cut short (a dropped
/// connection, a closed laptop, Ctrl-C) is resumed by running the same command again: only the batches
/// the server has not acknowledged are sent, into the same session.
///
/// Written after every acknowledged batch, by replacing the file whole (a crash leaves the previous
/// journal, never half of one). It holds no credential.
struct UploadJournal: Codable, Equatable {
    /// The positiond the session lives on, and its venue.
    var server: String
    var venue: String
    var session: String
    /// SHA-256 of the log's bytes: a journal only resumes the upload of the same file.
    var fileDigest: String
    /// Samples per batch when the upload began; a resumed upload keeps it, so its batch ids stay the same.
    var batchSize: Int
    /// Batch ids the server answered for (stored, or stored before).
    var acknowledged: [String]
    /// Once committed: the revision the session made.
    var committedRevision: Int?

    /// The journal at `url`, or nil when there is none.
    /// - Throws: ``CLIError`` for a file that is there but is not a journal.
    static func load(from url: URL) throws -> UploadJournal? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        do {
            return try JSONDecoder().decode(UploadJournal.self, from: data)
        } catch {
            throw CLIError("\(url.path) is not an upload journal (\(error.localizedDescription)); move it away or pass --journal elsewhere")
        }
    }

    /// Replaces the journal at `url` atomically.
    func save(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try encoder.encode(self).write(to: url, options: .atomic)
        } catch {
            throw CLIError("cannot write the upload journal \(url.path): \(error.localizedDescription)")
        }
    }

    static func digest(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
