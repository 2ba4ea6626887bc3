public import Foundation
public import Positioning

/// A walking survey's path file: JSON Lines, one checkpoint a line, in time order.
///
/// ```json
/// {"t": 1795000000.0, "spot": "G-A1"}
/// {"t": 1795000012.5, "x": 14.0, "y": 2.5, "floor": 0, "via": [[9, 2.5]]}
/// ```
/// `t` is seconds since the Unix epoch, on the scan log's clock; a checkpoint is a spot of the venue
/// (`spot`) or a point (`x`, `y`, `floor`, floor 0 when omitted); `via` lists the corners walked through
/// since the previous checkpoint.
public enum WalkPathFile {
    struct Line: Decodable {
        var t: Double
        var spot: String?
        var x: Double?
        var y: Double?
        var floor: Int?
        var via: [[Double]]?
    }

    /// Why a path file cannot be read, naming its line.
    public struct LineError: Error, Hashable, Sendable, CustomStringConvertible {
        public var line: Int
        public var message: String

        public var description: String { "line \(line): \(message)" }
    }

    /// The checkpoints of `data`, spot names resolved against `spots`.
    /// - Throws: ``LineError`` for the first bad line, or ``WalkedPathError`` (wrapped in a ``LineError``
    ///   naming the checkpoint's line) when the checkpoints are not in time order.
    public static func path(from data: Data, spots: [Spot]) throws(LineError) -> WalkedPath {
        let spotsByName = Dictionary(spots.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var checkpoints: [Checkpoint] = []
        var lineNumbers: [Int] = []
        let decoder = JSONDecoder()
        var lineNumber = 0
        for rawLine in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            guard rawLine.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0D) }) else { continue }
            let line: Line
            do {
                line = try decoder.decode(Line.self, from: Data(rawLine))
            } catch let error as DecodingError {
                throw LineError(line: lineNumber, message: ScanLogDecoder.explain(error))
            } catch {
                throw LineError(line: lineNumber, message: "not a JSON object")
            }
            guard line.t.isFinite else { throw LineError(line: lineNumber, message: "'t' must be a finite number of seconds") }
            let position: FloorPoint
            switch (line.spot, line.x, line.y) {
            case (let name?, nil, nil):
                guard let spot = spotsByName[name] else {
                    throw LineError(line: lineNumber, message: "the venue has no spot '\(name)'; give the checkpoint's 'x', 'y' and 'floor' instead")
                }
                position = FloorPoint(x: spot.x, y: spot.y, floor: spot.floor)
            case (nil, let x?, let y?):
                guard x.isFinite, y.isFinite, abs(x) <= 100_000, abs(y) <= 100_000 else {
                    throw LineError(line: lineNumber, message: "'x' and 'y' must be finite metres within 100 km of the venue's origin")
                }
                position = FloorPoint(x: x, y: y, floor: line.floor ?? 0)
            case (_?, _, _):
                throw LineError(line: lineNumber, message: "a checkpoint is a 'spot' or 'x' and 'y', not both")
            default:
                throw LineError(line: lineNumber, message: "a checkpoint needs a 'spot', or 'x' and 'y'")
            }
            var via: [PlanarPoint] = []
            for (index, corner) in (line.via ?? []).enumerated() {
                guard corner.count == 2, corner.allSatisfy({ $0.isFinite && abs($0) <= 100_000 }) else {
                    throw LineError(line: lineNumber, message: "'via[\(index)]' must be [x, y], two finite numbers of metres")
                }
                via.append(PlanarPoint(x: corner[0], y: corner[1]))
            }
            checkpoints.append(Checkpoint(time: line.t, position: position, via: via))
            lineNumbers.append(lineNumber)
        }
        do {
            return try WalkedPath(checkpoints: checkpoints)
        } catch {
            switch error {
            case .empty: throw LineError(line: 1, message: "the path file holds no checkpoint")
            case .notIncreasing(let index, _, _), .notFinite(let index):
                throw LineError(line: lineNumbers[index], message: error.description)
            }
        }
    }
}
