public import Positioning
public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Decodes scan logs (JSON Lines) held in memory; reading the file is the caller's business.
public struct ScanLogDecoder: Sendable {
    /// One line that could not be decoded.
    public struct LineError: Error, Hashable, Sendable, CustomStringConvertible {
        /// 1-based line number.
        public var line: Int
        public var message: String

        public init(line: Int, message: String) {
            self.line = line
            self.message = message
        }

        public var description: String { "line \(line): \(message)" }

        /// A survey or test line without its ground truth, which those logs must carry.
        public static func missingGroundTruth(line: Int) -> LineError {
            LineError(line: line, message: "survey and test lines need their ground truth: fields 'x' and 'y'")
        }
    }

    /// What makes a line invalid: an RSSI no radio reports, a time or coordinate that is not plausible.
    public var validation: SampleValidation
    /// The clock reading (seconds since the Unix epoch) that times in the future are judged against.
    public var now: Double

    public init(validation: SampleValidation = SampleValidation(), now: Double = Date().timeIntervalSince1970) {
        self.validation = validation
        self.now = now
    }

    /// Decodes every non-blank line of `data`, validating beacon identities and RSSI values.
    ///
    /// - Returns: the lines, each with its 1-based line number, and the lines that failed. Callers
    ///   decide whether one bad line spoils the file (the default) or is skipped and counted.
    public func decode(_ data: Data) -> (lines: [(number: Int, line: ScanLine)], errors: [LineError]) {
        // Large logs are cut at line ends into one piece per core, decoded at once.
        let cores = data.count >= 1 << 20 ? min(ProcessInfo.processInfo.activeProcessorCount, 8) : 1
        let pieces = Pieces(data, decoder: self, pieceBytes: (data.count + cores - 1) / cores)
        guard pieces.count > 1 else { return pieces.count == 1 ? pieces.decode(0) : ([], []) }
        let results = UnsafeMutableBufferPointer<(lines: [(number: Int, line: ScanLine)], errors: [LineError])>.allocate(capacity: pieces.count)
        defer { results.deallocate() }
        // Each piece writes its own result slot.
        let shared = UncheckedSendableBox(results)
        DispatchQueue.concurrentPerform(iterations: pieces.count) { index in
            (shared.value.baseAddress! + index).initialize(to: pieces.decode(index))
        }
        var lines: [(number: Int, line: ScanLine)] = []
        var errors: [LineError] = []
        for piece in results {
            lines += piece.lines
            errors += piece.errors
        }
        _ = results.deinitialize()
        return (lines, errors)
    }

    /// Decodes the lines of one piece of a log, numbering them from `firstLineNumber`.
    fileprivate func decode(_ all: UnsafeRawBufferPointer, firstLineNumber: Int) -> (lines: [(number: Int, line: ScanLine)], errors: [LineError]) {
        var strings = ScanLineParser.StringCache()
        var lines: [(Int, ScanLine)] = []
        var errors: [LineError] = []
        guard let base = all.baseAddress else { return (lines, errors) }
        var number = firstLineNumber - 1
        var start = 0
        while start < all.count {
            // One line: up to the next newline (memchr), or the end.
            let newline = memchr(base + start, Int32(UInt8(ascii: "\n")), all.count - start)
            let end = newline.map { UnsafeRawPointer($0) - base } ?? all.count
            number += 1
            let raw = UnsafeRawBufferPointer(rebasing: all[start..<end])
            start = end + 1
            guard raw.contains(where: { !Self.isWhitespace($0) }) else { continue }
            do {
                let line = try ScanLineParser.parse(raw, strings: &strings)
                    ?? JSONDecoder().decode(ScanLine.self, from: Data(raw))
                if let problem = line.problem(validation: validation, now: now) {
                    errors.append(LineError(line: number, message: problem))
                } else {
                    lines.append((number, line))
                }
            } catch let error as DecodingError {
                errors.append(LineError(line: number, message: Self.explain(error)))
            } catch {
                errors.append(LineError(line: number, message: "\(error)"))
            }
        }
        return (lines, errors)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }

    /// A decoding error as one readable sentence naming the field.
    public static func explain(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
                .replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            return "missing field '\(parent.isEmpty ? "" : parent + ".")\(key.stringValue)'"
        case .typeMismatch(let type, let context):
            return "field '\(path(context.codingPath))' should be \(describe(type))"
        case .valueNotFound(let type, let context):
            return "field '\(path(context.codingPath))' is null; it should be \(describe(type))"
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            let reason = (context.underlyingError as? NSError)?.localizedDescription ?? context.debugDescription
            return field.isEmpty ? "not valid JSON (\(reason))" : "field '\(field)': \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type: "an integer"
        case is Double.Type: "a number"
        default: "\(type)".lowercased().hasPrefix("array") ? "an array" : "\(type)"
        }
    }
}

extension ScanLogDecoder {
    /// A log held in memory, cut at line ends into pieces that decode one at a time and independently:
    /// memory stays proportional to a piece, and any thread can decode any piece, in any order (`survey record`
    /// stores one piece while another thread decodes the next, and decodes a piece itself rather than wait for it).
    public struct Pieces: Sendable {
        /// Where one piece lies in the log.
        public struct Bounds: Hashable, Sendable {
            /// The piece's bytes: whole lines, the last one's newline included.
            public var bytes: Range<Int>
            /// The 1-based number of the piece's first line in the whole log.
            public var firstLine: Int
        }

        private let data: Data
        private let decoder: ScanLogDecoder
        /// Every piece, in log order; found once, up front, by one pass over the log's newlines.
        public let bounds: [Bounds]

        /// - Parameter pieceBytes: about how many bytes each piece decodes; pieces end at a line's end.
        public init(_ data: Data, decoder: ScanLogDecoder = ScanLogDecoder(), pieceBytes: Int = 1 << 20) {
            self.data = data
            self.decoder = decoder
            let pieceBytes = max(1, pieceBytes)
            bounds = data.withUnsafeBytes { all in
                guard let base = all.baseAddress else { return [] }
                let newline = Int32(UInt8(ascii: "\n"))
                var bounds: [Bounds] = []
                var start = 0
                var firstLine = 1
                while start < all.count {
                    let guess = min(all.count, start + pieceBytes)
                    let found = guess < all.count ? memchr(base + guess, newline, all.count - guess) : nil
                    let end = found.map { UnsafeRawPointer($0) - base + 1 } ?? all.count
                    bounds.append(Bounds(bytes: start..<end, firstLine: firstLine))
                    // The next piece's lines are numbered after this piece's newlines.
                    var cursor = start
                    while cursor < end, let line = memchr(base + cursor, newline, end - cursor) {
                        firstLine += 1
                        cursor = UnsafeRawPointer(line) - base + 1
                    }
                    start = end
                }
                return bounds
            }
        }

        /// How many pieces the log has.
        public var count: Int { bounds.count }

        /// The log's size in bytes.
        public var totalBytes: Int { data.count }

        /// Piece `index`'s lines (numbered from 1 at the start of the log) and its failed lines.
        public func decode(_ index: Int) -> (lines: [(number: Int, line: ScanLine)], errors: [LineError]) {
            let piece = bounds[index]
            return data.withUnsafeBytes { all in
                decoder.decode(UnsafeRawBufferPointer(rebasing: all[piece.bytes]), firstLineNumber: piece.firstLine)
            }
        }
    }
}

extension ScanLine {
    /// What is wrong with a decoded line that JSON types cannot express; nil when it is valid.
    /// RSSI 0 means "unknown" and is valid (cleaning drops it); other values must be what a radio reports.
    public func problem(validation: SampleValidation = SampleValidation(), now: Double) -> String? {
        if device.isEmpty { return "field 'device' is empty" }
        if let problem = validation.problem(time: t, field: "field 't'", now: now) { return problem }
        var uuids = UUIDParsingCache()
        for (index, beacon) in beacons.enumerated() {
            do {
                _ = try BeaconID(uuidString: beacon.uuid, major: beacon.major, minor: beacon.minor, cache: &uuids)
            } catch {
                return "beacons[\(index)]: \(error.description)"
            }
            if let problem = validation.problem(rssi: beacon.rssi, field: "beacons[\(index)].rssi") { return problem }
        }
        if (x == nil) != (y == nil) { return "fields 'x' and 'y' must be given together" }
        if let x, let problem = validation.problem(coordinate: x, field: "field 'x'") { return problem }
        if let y, let problem = validation.problem(coordinate: y, field: "field 'y'") { return problem }
        return nil
    }
}

/// Shares a buffer with the parts of one computation that write disjoint elements of it.
struct UncheckedSendableBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
