public import ScanFormats
import Dispatch
import Synchronization
public import Foundation
public import Positioning

/// Lines of a survey log that cannot be recorded, in line order: why `record` refused the log.
public struct MalformedLines: Error, Hashable, Sendable, CustomStringConvertible {
    public var errors: [ScanLogDecoder.LineError]

    public init(_ errors: [ScanLogDecoder.LineError]) {
        self.errors = errors.sorted { $0.line < $1.line }
    }

    public var description: String {
        "\(errors.count) malformed line\(errors.count == 1 ? "" : "s"): " + errors.prefix(3).map(\.description).joined(separator: "; ")
    }
}

/// A survey log held in memory, decoded a piece at a time for ``FingerprintStore/record(from:into:options:)``:
/// while the store writes one piece's fingerprints, the next piece is decoded on another core, and the
/// log never sits in memory decoded as a whole.
///
/// Lines must carry their ground truth, unless the log is a walking survey: given a ``WalkingSurvey``,
/// a line without one is placed where the walked path was at its time (see ``WalkedPath``). Bad lines either stop the recording or are skipped and counted:
/// without `skipBad`, the first piece holding one makes the rest of the log be checked too (so the error
/// lists every bad line), then ``MalformedLines`` abandons the recording with nothing written.
public final class ScanLogSamples: LabelledSampleSource, @unchecked Sendable {
    // @unchecked: `pieces` is touched by one decoding job at a time, each started by `nextChunk` after it has
    // awaited the previous job; the counts are behind a lock, since they may be read while a job runs.
    private let skipBad: Bool
    private let walk: WalkingSurvey?
    private var pieces: ScanLogDecoder.Pieces
    /// The piece being decoded in the background: its samples, nil at the end of the log, or the refusal.
    private var decoding: DecodedPiece?
    private let counts = Mutex<(skipped: Int, walk: WalkPlacementCounts)>((0, WalkPlacementCounts()))
    private var started = false
    private let progress: (@Sendable (_ bytesDone: Int, _ bytesTotal: Int) -> Void)?

    /// - Parameters:
    ///   - pieceBytes: about how many bytes of log each piece holds.
    ///   - progress: called from the decoding thread after each piece.
    ///   - walk: the walked path that places lines without ground truth; without it they are malformed.
    public init(
        _ data: Data, skipBad: Bool, walk: WalkingSurvey? = nil, pieceBytes: Int = 1 << 20,
        progress: (@Sendable (_ bytesDone: Int, _ bytesTotal: Int) -> Void)? = nil
    ) {
        self.skipBad = skipBad
        self.walk = walk
        self.progress = progress
        pieces = ScanLogDecoder.Pieces(data, pieceBytes: pieceBytes)
    }

    /// Malformed lines skipped (only with `skipBad`); read it once the recording is over.
    public var skipped: Int { counts.withLock { $0.skipped } }

    /// How the walk placed the lines without ground truth; read it once the recording is over.
    public var walkPlacements: WalkPlacementCounts { counts.withLock { $0.walk } }

    public func nextChunk() async throws -> [LabelledSample]? {
        if !started {
            started = true
            decodeNextPieceInBackground()
        }
        guard let decoding else { return nil }
        let result = await decoding.result
        self.decoding = nil
        let chunk = try result.get()
        if chunk != nil { decodeNextPieceInBackground() }
        return chunk
    }

    /// Decoding runs on a thread of Dispatch's global queue rather than as a task: Swift's pool may be busy
    /// with long computations (a venue's tuning), and the store's transaction waits for this piece.
    private func decodeNextPieceInBackground() {
        let piece = DecodedPiece()
        decoding = piece
        DispatchQueue.global().async { piece.deliver(self.decodeNextPiece()) }
    }

    private func decodeNextPiece() -> Result<[LabelledSample]?, MalformedLines> {
        guard let piece = pieces.next() else { return .success(nil) }
        var walkCounts = self.counts.withLock { $0.walk }
        var (samples, errors) = Self.labelledSamples(piece, walk: walk, counts: &walkCounts)
        if !errors.isEmpty, !skipBad {
            while let rest = pieces.next() { errors += Self.labelledSamples(rest, walk: walk, counts: &walkCounts).errors }
            return .failure(MalformedLines(errors))
        }
        self.counts.withLock { [walkCounts, errors] in
            $0.skipped += errors.count
            $0.walk = walkCounts
        }
        progress?(pieces.progress.done, pieces.progress.total)
        return .success(samples)
    }

    /// A piece's lines as samples with their ground truth, which survey lines must carry or the walk
    /// must give them.
    private static func labelledSamples(
        _ piece: (lines: [(number: Int, line: ScanLine)], errors: [ScanLogDecoder.LineError]),
        walk: WalkingSurvey?, counts: inout WalkPlacementCounts
    ) -> (samples: [LabelledSample], errors: [ScanLogDecoder.LineError]) {
        var errors = piece.errors
        var samples: [LabelledSample] = []
        samples.reserveCapacity(piece.lines.count)
        for (number, line) in piece.lines {
            let truth: GroundTruth
            if let given = line.groundTruth {
                truth = given
            } else if let walk {
                switch walk.path.placement(at: line.t) {
                case .placed(let point):
                    truth = walk.spots.truth(at: point)
                    counts.placed += 1
                case .beforeFirstCheckpoint:
                    counts.beforeFirstCheckpoint += 1
                    continue
                case .afterLastCheckpoint:
                    counts.afterLastCheckpoint += 1
                    continue
                case .betweenFloors:
                    counts.betweenFloors += 1
                    continue
                }
            } else {
                errors.append(.missingGroundTruth(line: number))
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

/// A piece of the log decoded on another thread, awaited by the recording that asked for it.
private final class DecodedPiece: Sendable {
    typealias Decoded = Result<[LabelledSample]?, MalformedLines>
    private enum State {
        case decoding
        case awaited(CheckedContinuation<Decoded, Never>)
        case decoded(Decoded)
    }
    private let state = Mutex(State.decoding)

    func deliver(_ decoded: Decoded) {
        let waiting = state.withLock { state -> CheckedContinuation<Decoded, Never>? in
            if case .awaited(let continuation) = state {
                state = .decoded(decoded)
                return continuation
            }
            state = .decoded(decoded)
            return nil
        }
        waiting?.resume(returning: decoded)
    }

    /// The piece, once decoded (awaited by one caller).
    var result: Decoded {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Decoded? in
                    if case .decoded(let decoded) = state { return decoded }
                    state = .awaited(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

/// A walking survey's path and how its samples join spots: what places a log's lines that carry no
/// ground truth.
public struct WalkingSurvey: Sendable {
    public var path: WalkedPath
    public var spots: WalkSpotAssignment

    public init(path: WalkedPath, spots: WalkSpotAssignment) {
        self.path = path
        self.spots = spots
    }

    /// The ground truth a sample taken at `time` gets, or nil when the walk cannot place it.
    public func truth(at time: Double) -> GroundTruth? {
        guard case .placed(let point) = path.placement(at: time) else { return nil }
        return spots.truth(at: point)
    }
}

/// What a walking survey did with the lines that carried no ground truth.
public struct WalkPlacementCounts: Hashable, Sendable, Codable {
    /// Placed on the path and recorded.
    public var placed = 0
    /// Left out: taken before the first checkpoint or after the last, or between checkpoints on two floors.
    public var beforeFirstCheckpoint = 0
    public var afterLastCheckpoint = 0
    public var betweenFloors = 0

    public init() {}

    /// Lines the walk could not place, which were not recorded.
    public var leftOut: Int { beforeFirstCheckpoint + afterLastCheckpoint + betweenFloors }
}
