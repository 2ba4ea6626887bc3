public import Foundation

/// A time given by a person or a client in a query (`from=`, `--to`): ISO 8601 (`2026-11-20T09:00:00Z`,
/// with or without fractional seconds, any offset, or a bare date meaning its midnight UTC) or Unix seconds
/// (`1795005990`, `1795005990.5`).
public enum TimeParameter {
    /// Seconds since the Unix epoch of `text`.
    ///
    /// - Throws: ``TimeParameterError`` naming the parameter and the accepted forms.
    public static func seconds(of text: String, name: String) throws(TimeParameterError) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let unix = Double(trimmed), unix.isFinite, trimmed.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" }) {
            // Milliseconds by mistake would be a date thousands of years away: refuse rather than guess.
            guard abs(unix) < 1e11 else { throw TimeParameterError(name: name, text: text, reason: "looks like milliseconds; give seconds") }
            return unix
        }
        for style in styles {
            if let date = try? Date(trimmed, strategy: style) { return date.timeIntervalSince1970 }
        }
        throw TimeParameterError(name: name, text: text, reason: nil)
    }

    private static let styles: [Date.ISO8601FormatStyle] = [
        Date.ISO8601FormatStyle(includingFractionalSeconds: true),
        Date.ISO8601FormatStyle(),
        Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).year().month().day(),
    ]
}

/// A time parameter that could not be read.
public struct TimeParameterError: Error, Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var text: String
    public var reason: String?

    public var description: String {
        let shown = text.count > 60 ? String(text.prefix(60)) + "…" : text
        return "\(name) '\(shown)' " + (reason ?? "is neither an ISO 8601 time (2026-11-20T09:00:00Z) nor Unix seconds (1795005990)")
    }
}
