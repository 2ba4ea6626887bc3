import Foundation

/// Writing results: text for people, JSON for programs, progress on standard error.
enum Output {
    static func json(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        // Dates as the HTTP API writes them (ISO 8601), never seconds since 2001.
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// One compact JSON object per line (for `locate`).
    static func jsonLine(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func metres(_ value: Double) -> String { String(format: "%.2f", value) }

    static func milliseconds(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
}

/// Progress of a long operation: a redrawn bar on a terminal, a plain line now and then otherwise.
final class ProgressReporter: @unchecked Sendable {
    private let label: String
    private let unit: String
    private let unitSize: Int
    private let terminal = isatty(STDERR_FILENO) != 0
    private var lastLine = Date.distantPast
    private let lock = NSLock()

    /// - Parameters:
    ///   - unit: the unit counts are shown in (`MB`), or nothing;
    ///   - unitSize: how many counted things make one unit (1 << 20 bytes for `MB`).
    init(label: String, unit: String = "", unitSize: Int = 1) {
        self.label = label
        self.unit = unit.isEmpty ? "" : " " + unit
        self.unitSize = max(1, unitSize)
    }

    private func shown(_ count: Int) -> String {
        unitSize == 1 ? "\(count)" : String(format: "%.1f", Double(count) / Double(unitSize))
    }

    func report(_ done: Int, _ total: Int) {
        guard total > 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        if terminal {
            let width = 30
            let filled = width * done / total
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(shown(done))/\(shown(total))\(unit)".utf8))
            if done == total { FileHandle.standardError.write(Data("\n".utf8)) }
        } else if done == total || Date().timeIntervalSince(lastLine) >= 2 {
            lastLine = Date()
            Output.standardError("\(label): \(shown(done))/\(shown(total))\(unit)")
        }
    }
}
