import Dispatch
import Synchronization
public import Foundation
public import Positioning
public import PositioningTuning

/// Survey samples handed to the store's `record(from:into:options:)` a chunk at a time, in log order,
/// so that a long log never sits in memory decoded as a whole and the next chunk can be decoded while
/// the store writes this one.
///
/// Synchronous on purpose: the recording's transaction holds the store's connection (on SQLite, runs on its
/// thread), so a source must hand over its next chunk without waiting for other work.
public protocol LabelledSampleSource {
    /// The next samples in log order; nil once the log is over. A throw abandons the recording:
    /// nothing is written.
    mutating func nextChunk() throws -> [LabelledSample]?
}

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

/// A survey log held in memory, decoded a piece at a time for the store's `record(from:into:options:)`:
/// while the store writes one piece's fingerprints, the next piece is decoded on another core, and the
/// log never sits in memory decoded as a whole.
///
/// The recording never waits for that other core: the log is cut into pieces up front
/// (``ScanLogDecoder/Pieces``), each decodable on its own, so when the next piece is not ready yet the recording
/// decodes it itself and the background copy is dropped. A store transaction (on SQLite, GRDB's own thread)
/// therefore never blocks on decoding; the background decoding only saves it time.
///
/// Lines must carry their ground truth, unless the log is a walking survey: given a ``WalkingSurvey``,
/// a line without one is placed where the walked path was at its time (see ``WalkedPath``). Bad lines either stop the recording or are skipped and counted:
/// without `skipBad`, the first piece holding one makes the rest of the log be checked too (so the error
/// lists every bad line), then ``MalformedLines`` abandons the recording with nothing written.
public final class ScanLogSamples: LabelledSampleSource, @unchecked Sendable {
    // @unchecked: `next` is only touched by the recording (`nextChunk`, one call at a time); everything the
    // background decoding shares with it is behind the locks of `ahead` and `counts`.
    private let skipBad: Bool
    private let walk: WalkingSurvey?
    private let pieces: ScanLogDecoder.Pieces
    /// The piece the recording takes next.
    private var next = 0
    /// The piece after it, decoded in the background.
    private let ahead = Mutex<Lookahead?>(nil)
    private let counts = Mutex<(skipped: Int, walk: WalkPlacementCounts)>((0, WalkPlacementCounts()))
    private let progress: (@Sendable (_ bytesDone: Int, _ bytesTotal: Int) -> Void)?

    /// - Parameters:
    ///   - pieceBytes: about how many bytes of log each piece holds.
    ///   - progress: called after each piece the recording takes, on the recording's thread.
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

    /// The next piece's samples, without waiting: the background copy when it is ready, else decoded here.
    ///
    /// - Throws: ``MalformedLines`` naming every bad line of the log, when a piece has one and `skipBad` is off.
    public func nextChunk() throws -> [LabelledSample]? {
        guard next < pieces.count else { return nil }
        let index = next
        next += 1
        let piece = takeDecoded(index) ?? Self.decode(pieces, index, walk: walk)
        if !piece.errors.isEmpty, !skipBad {
            // Every bad line is named: the rest of the log is checked too, then nothing is written.
            var errors = piece.errors
            for rest in next..<pieces.count { errors += Self.decode(pieces, rest, walk: walk).errors }
            next = pieces.count
            throw MalformedLines(errors)
        }
        counts.withLock {
            $0.skipped += piece.errors.count
            $0.walk.add(piece.walkCounts)
        }
        decodeInBackground(next)
        progress?(pieces.bounds[index].bytes.upperBound, pieces.totalBytes)
        return piece.samples
    }

    /// Piece `index` as decoded in the background, when it is ready; a copy still being decoded is dropped.
    private func takeDecoded(_ index: Int) -> DecodedPiece? {
        ahead.withLock { ahead in
            defer { ahead = nil }
            return ahead?.index == index ? ahead?.piece : nil
        }
    }

    /// Starts decoding piece `index` on a thread of Dispatch's global queue, rather than as a task: Swift's
    /// pool may be busy with long computations (a venue's tuning).
    private func decodeInBackground(_ index: Int) {
        guard index < pieces.count else { return }
        ahead.withLock { $0 = Lookahead(index: index) }
        let (pieces, walk) = (self.pieces, self.walk)
        DispatchQueue.global().async {
            let piece = Self.decode(pieces, index, walk: walk)
            self.ahead.withLock { ahead in
                // Kept only while the recording has not moved past this piece.
                guard ahead?.index == index else { return }
                ahead?.piece = piece
            }
        }
    }

    /// Piece `index`'s lines as samples with their ground truth, which survey lines must carry or the walk
    /// must give them.
    private static func decode(_ pieces: ScanLogDecoder.Pieces, _ index: Int, walk: WalkingSurvey?) -> DecodedPiece {
        let piece = pieces.decode(index)
        var counts = WalkPlacementCounts()
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
        return DecodedPiece(samples: samples, errors: errors, walkCounts: counts)
    }
}

/// One piece of the log as samples, with its bad lines and what the walk did with its lines.
private struct DecodedPiece: Sendable {
    var samples: [LabelledSample]
    var errors: [ScanLogDecoder.LineError]
    var walkCounts: WalkPlacementCounts
}

/// The piece after the recording's current one: decoded in the background, or nil while it is being decoded.
private struct Lookahead: Sendable {
    var index: Int
    var piece: DecodedPiece?
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

    /// Adds another part of the same log's counts.
    mutating func add(_ other: WalkPlacementCounts) {
        placed += other.placed
        beforeFirstCheckpoint += other.beforeFirstCheckpoint
        afterLastCheckpoint += other.afterLastCheckpoint
        betweenFloors += other.betweenFloors
    }
}
