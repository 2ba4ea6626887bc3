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
    /// One checkpoint as the file (or a survey session's batch) spells it.
    public struct Entry: Codable, Hashable, Sendable {
        public var t: Double
        public var spot: String?
        public var x: Double?
        public var y: Double?
        public var floor: Int?
        /// Corners walked through since the previous checkpoint, each `[x, y]`.
        public var via: [[Double]]?

        public init(t: Double, spot: String? = nil, x: Double? = nil, y: Double? = nil, floor: Int? = nil, via: [[Double]]? = nil) {
            self.t = t
            self.spot = spot
            self.x = x
            self.y = y
            self.floor = floor
            self.via = via
        }

        /// The checkpoint this entry marks, its spot resolved in `spotsByName`.
        /// - Throws: a sentence saying what is wrong with it.
        public func checkpoint(spotsByName: [String: Spot]) throws(EntryError) -> Checkpoint {
            guard t.isFinite else { throw EntryError("'t' must be a finite number of seconds") }
            let position: FloorPoint
            switch (spot, x, y) {
            case (let name?, nil, nil):
                guard let spot = spotsByName[name] else {
                    throw EntryError("the venue has no spot '\(name)'; give the checkpoint's 'x', 'y' and 'floor' instead")
                }
                position = FloorPoint(x: spot.x, y: spot.y, floor: spot.floor)
            case (nil, let x?, let y?):
                guard x.isFinite, y.isFinite, abs(x) <= 100_000, abs(y) <= 100_000 else {
                    throw EntryError("'x' and 'y' must be finite metres within 100 km of the venue's origin")
                }
                position = FloorPoint(x: x, y: y, floor: floor ?? 0)
            case (_?, _, _):
                throw EntryError("a checkpoint is a 'spot' or 'x' and 'y', not both")
            default:
                throw EntryError("a checkpoint needs a 'spot', or 'x' and 'y'")
            }
            var corners: [PlanarPoint] = []
            for (index, corner) in (via ?? []).enumerated() {
                guard corner.count == 2, corner.allSatisfy({ $0.isFinite && abs($0) <= 100_000 }) else {
                    throw EntryError("'via[\(index)]' must be [x, y], two finite numbers of metres")
                }
                corners.append(PlanarPoint(x: corner[0], y: corner[1]))
            }
            return Checkpoint(time: t, position: position, via: corners)
        }
    }

    /// Why one checkpoint cannot be used.
    public struct EntryError: Error, Hashable, Sendable, CustomStringConvertible {
        public var message: String
        init(_ message: String) { self.message = message }
        public var description: String { message }
    }

    /// `spots` by name, the first of a repeated name winning: what ``Entry/checkpoint(spotsByName:)`` resolves against.
    public static func spotsByName(_ spots: [Spot]) -> [String: Spot] {
        Dictionary(spots.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// `entries` as JSON Lines, one a line: the file's format.
    public static func jsonLines(_ entries: [Entry]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var data = Data()
        for entry in entries {
            data.append(try encoder.encode(entry))
            data.append(UInt8(ascii: "\n"))
        }
        return data
    }

    /// Why a path file cannot be read, naming its line.
    public struct LineError: Error, Hashable, Sendable, CustomStringConvertible {
        public var line: Int
        public var message: String

        public var description: String { "line \(line): \(message)" }
    }

    /// The entries of `data` with their line numbers, blank lines skipped.
    /// - Throws: ``LineError`` for the first line that is not a checkpoint's JSON object.
    public static func entries(from data: Data) throws(LineError) -> [(line: Int, entry: Entry)] {
        var entries: [(line: Int, entry: Entry)] = []
        let decoder = JSONDecoder()
        var lineNumber = 0
        for rawLine in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            guard rawLine.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0D) }) else { continue }
            do {
                entries.append((lineNumber, try decoder.decode(Entry.self, from: Data(rawLine))))
            } catch let error as DecodingError {
                throw LineError(line: lineNumber, message: ScanLogDecoder.explain(error))
            } catch {
                throw LineError(line: lineNumber, message: "not a JSON object")
            }
        }
        return entries
    }

    /// The checkpoints of `data`, spot names resolved against `spots`.
    /// - Throws: ``LineError`` for the first bad line, or ``WalkedPathError`` (wrapped in a ``LineError``
    ///   naming the checkpoint's line) when the checkpoints are not in time order.
    public static func path(from data: Data, spots: [Spot]) throws(LineError) -> WalkedPath {
        let entries = try self.entries(from: data)
        let spotsByName = spotsByName(spots)
        var checkpoints: [Checkpoint] = []
        for (lineNumber, entry) in entries {
            do {
                checkpoints.append(try entry.checkpoint(spotsByName: spotsByName))
            } catch {
                throw LineError(line: lineNumber, message: "\(error)")
            }
        }
        let lineNumbers = entries.map(\.line)
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
