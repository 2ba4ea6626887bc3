import ScanFormats
import Foundation
import Positioning
import PositioningTuning

/// A scan log read from a file or standard input, decoded, with the policy for bad lines.
struct ScanLogInput {
    /// How the input is named in messages: the path, or `-` for standard input.
    let name: String
    let lines: [(number: Int, line: ScanLine)]
    /// Lines skipped because they were malformed (only with `--skip-bad`).
    let skipped: Int

    /// Reads and decodes `path` (`-` is standard input).
    ///
    /// - Throws: ``CLIError`` naming FILE:LINE for the first malformed lines unless `skipBad` is set.
    /// - Parameter consequence: what the refusal means, in its message.
    init(path: String, skipBad: Bool, requireGroundTruth: Bool, consequence: String = "nothing was written") throws {
        try self.init(contents: try Self.read(path), path: path, skipBad: skipBad, requireGroundTruth: requireGroundTruth, consequence: consequence)
    }

    /// Decodes `contents`, read from `path` by the caller (which needs the bytes too).
    init(contents: Data, path: String, skipBad: Bool, requireGroundTruth: Bool, consequence: String = "nothing was written") throws {
        let decoded = ScanLogDecoder().decode(contents)
        var errors = decoded.errors
        var lines = decoded.lines
        if requireGroundTruth {
            for entry in lines where entry.line.groundTruth == nil {
                errors.append(.missingGroundTruth(line: entry.number))
            }
            lines.removeAll { $0.line.groundTruth == nil }
            errors.sort { $0.line < $1.line }
        }
        if !errors.isEmpty, !skipBad { throw Self.malformedLines(errors, in: path, consequence: consequence) }
        self.name = path
        self.lines = lines
        self.skipped = errors.count
    }

    /// The bytes of `path` (`-` is standard input).
    static func read(_ path: String) throws -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw CLIError("cannot read \(path): no such file, or not readable")
        }
        return contents
    }

    /// The refusal of a file with bad lines: how many, and the first ten as FILE:LINE.
    static func malformedLines(_ errors: [ScanLogDecoder.LineError], in path: String, consequence: String = "nothing was written") -> CLIError {
        let errors = errors.sorted { $0.line < $1.line }
        let shown = errors.prefix(10).map { "\(path):\($0.line): \($0.message)" }.joined(separator: "\n")
        let more = errors.count > 10 ? "\n... and \(errors.count - 10) more" : ""
        return CLIError("\(errors.count) malformed line\(errors.count == 1 ? "" : "s"); \(consequence) (pass --skip-bad to skip them):\n\(shown)\(more)")
    }

    /// The lines as samples with their ground truth (lines without one are left out).
    func labelledSamples() throws -> [LabelledSample] {
        try lines.compactMap { entry in
            guard let truth = entry.line.groundTruth else { return nil }
            return LabelledSample(sample: try entry.line.sample(), truth: truth)
        }
    }
}
