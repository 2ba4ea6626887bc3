import Dispatch
import FingerprintStore
import Foundation
import Positioning

/// A survey log decoded a piece at a time for `survey record`: while the store writes one piece's
/// fingerprints, the next piece is decoded on another core, and the log never sits in memory decoded
/// as a whole.
///
/// Bad lines follow ``ScanLogInput``'s policy: without `skipBad`, the first piece holding one makes the
/// rest of the log be checked too (so the message counts every bad line), then the recording is
/// abandoned with nothing written; with `skipBad` they are counted in ``skipped``.
final class ScanLogStream: LabelledSampleSource, @unchecked Sendable {
    // @unchecked: `pieces`, `decoded` and `skippedLines` are touched by one decoding job at a time, each
    // started by `nextChunk` after `group.wait()` has ordered it after the previous job.
    private let name: String
    private let skipBad: Bool
    private var pieces: ScanLogDecoder.Pieces
    private let group = DispatchGroup()
    /// The piece decoded in the background: its samples, nil at the end of the log, or the refusal.
    private var decoded: Result<[LabelledSample]?, CLIError>?
    private var skippedLines = 0
    private var started = false
    private let progress = ProgressReporter(label: "recording", unit: "MB")

    /// Reads `path` (`-` is standard input); decoding starts with the first ``nextChunk()``.
    init(path: String, skipBad: Bool, pieceBytes: Int = 1 << 20) throws {
        name = path
        self.skipBad = skipBad
        pieces = ScanLogDecoder.Pieces(try ScanLogInput.read(path), pieceBytes: pieceBytes)
    }

    /// Malformed lines skipped (only with `skipBad`); read it once the recording is over.
    var skipped: Int {
        group.wait()
        return skippedLines
    }

    func nextChunk() throws -> [LabelledSample]? {
        if !started {
            started = true
            decodeNextPieceInBackground()
        }
        group.wait()
        let result = decoded!
        decoded = nil
        let chunk = try result.get()
        if chunk != nil { decodeNextPieceInBackground() }
        return chunk
    }

    private func decodeNextPieceInBackground() {
        DispatchQueue.global().async(group: group) { self.decoded = self.decodeNextPiece() }
    }

    private func decodeNextPiece() -> Result<[LabelledSample]?, CLIError> {
        guard let piece = pieces.next() else { return .success(nil) }
        var (samples, errors) = Self.labelledSamples(piece)
        if !errors.isEmpty, !skipBad {
            while let rest = pieces.next() { errors += Self.labelledSamples(rest).errors }
            return .failure(ScanLogInput.malformedLines(errors, in: name))
        }
        skippedLines += errors.count
        let (done, total) = pieces.progress
        if total >= 4 << 20 { progress.report(done >> 20, total >> 20) }
        return .success(samples)
    }

    /// A piece's lines as samples with their ground truth, which survey lines must carry.
    private static func labelledSamples(
        _ piece: (lines: [(number: Int, line: ScanLine)], errors: [ScanLogDecoder.LineError])
    ) -> (samples: [LabelledSample], errors: [ScanLogDecoder.LineError]) {
        var errors = piece.errors
        var samples: [LabelledSample] = []
        samples.reserveCapacity(piece.lines.count)
        for (number, line) in piece.lines {
            guard let truth = line.groundTruth else {
                errors.append(.init(line: number, message: "survey and test lines need their ground truth: fields 'x' and 'y'"))
                continue
            }
            do {
                samples.append(LabelledSample(sample: try line.sample(), truth: truth))
            } catch {
                errors.append(.init(line: number, message: error.description))
            }
        }
        return (samples, errors)
    }
}
