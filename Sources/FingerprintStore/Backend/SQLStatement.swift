package import Foundation

/// A statement of the store's SQL with its values, written as one string interpolation: every interpolated
/// value is a bound parameter, never spliced into the text, and each engine renders the statement through
/// its own library (postgres-nio's `PostgresQuery` interpolation numbers and binds them; GRDB takes `?`
/// markers and its arguments).
///
///     try await transaction.execute("UPDATE venue SET revision = revision + 1, updatedAt = \(Date()) WHERE id = \(venue)")
///
/// SQL text composed in code (a table's name, a list of its columns, a fragment shared by two statements)
/// goes in with `\(sql:)`; text from outside the store never does.
package struct SQLStatement: Sendable, Hashable, ExpressibleByStringInterpolation {
    /// A piece of the statement: SQL text, or a value bound where it stands.
    package enum Part: Sendable, Hashable {
        case text(String)
        case value(SQLValue)
    }

    private(set) var parts: [Part]

    package init(stringLiteral text: String) {
        parts = [.text(text)]
    }

    package init(stringInterpolation: StringInterpolation) {
        parts = stringInterpolation.parts
    }

    /// SQL text composed in code, with no values.
    package init(sql text: String) {
        parts = [.text(text)]
    }

    /// Appends `other`'s text and values.
    package mutating func append(_ other: SQLStatement) {
        parts += other.parts
    }

    package static func + (lhs: SQLStatement, rhs: SQLStatement) -> SQLStatement {
        var joined = lhs
        joined.append(rhs)
        return joined
    }

    /// The text with a `?` marker for each value, and the values in order: the form SQLite's API takes.
    package var questionMarked: (sql: String, arguments: [SQLValue]) {
        var sql = "", arguments: [SQLValue] = []
        for part in parts {
            switch part {
            case .text(let text): sql += text
            case .value(let value):
                sql += "?"
                arguments.append(value)
            }
        }
        return (sql, arguments)
    }

    package struct StringInterpolation: StringInterpolationProtocol {
        fileprivate(set) var parts: [Part] = []

        package init(literalCapacity: Int, interpolationCount: Int) {
            parts.reserveCapacity(2 * interpolationCount + 1)
        }

        package mutating func appendLiteral(_ literal: String) {
            guard !literal.isEmpty else { return }
            parts.append(.text(literal))
        }

        package mutating func appendInterpolation(_ value: SQLValue) { parts.append(.value(value)) }
        package mutating func appendInterpolation(_ value: String) { parts.append(.value(.text(value))) }
        package mutating func appendInterpolation(_ value: String?) { parts.append(.value(SQLValue(value))) }
        package mutating func appendInterpolation(_ value: Int) { parts.append(.value(SQLValue(value))) }
        package mutating func appendInterpolation(_ value: Int?) { parts.append(.value(value.map { SQLValue($0) } ?? .null)) }
        package mutating func appendInterpolation(_ value: Int64) { parts.append(.value(.integer(value))) }
        package mutating func appendInterpolation(_ value: Int64?) { parts.append(.value(value.map(SQLValue.integer) ?? .null)) }
        package mutating func appendInterpolation(_ value: Double) { parts.append(.value(.real(value))) }
        package mutating func appendInterpolation(_ value: Double?) { parts.append(.value(value.map(SQLValue.real) ?? .null)) }
        package mutating func appendInterpolation(_ value: Bool) { parts.append(.value(SQLValue(value))) }
        package mutating func appendInterpolation(_ value: Data) { parts.append(.value(.blob(value))) }
        /// A time, as the store keeps times (``SQLValue/init(_:)-(Date)``).
        package mutating func appendInterpolation(_ value: Date) { parts.append(.value(SQLValue(value))) }

        /// Rows of values for `INSERT ... VALUES`: `(v, v, ...), (v, v, ...)`, each value bound.
        package mutating func appendInterpolation(rows: some Sequence<[SQLValue]>) {
            var first = true
            for row in rows {
                parts.append(.text(first ? "(" : ", ("))
                first = false
                for (index, value) in row.enumerated() {
                    if index > 0 { parts.append(.text(", ")) }
                    parts.append(.value(value))
                }
                parts.append(.text(")"))
            }
        }

        /// A list of values for `IN (...)`: `v, v, ...`, each value bound.
        package mutating func appendInterpolation(list values: some Sequence<SQLValue>) {
            for (index, value) in values.enumerated() {
                if index > 0 { parts.append(.text(", ")) }
                parts.append(.value(value))
            }
        }

        /// Another statement, its text and values where it stands.
        package mutating func appendInterpolation(sql statement: SQLStatement) { parts += statement.parts }

        /// SQL text composed in code: a table's or a column's name, a list of columns. Never text from outside.
        package mutating func appendInterpolation(sql text: String) { parts.append(.text(text)) }
    }
}

extension Sequence<SQLStatement> {
    /// The statements one after another, `separator` between each two.
    package func joined(separator: String) -> SQLStatement {
        var joined = SQLStatement(sql: "")
        for (index, statement) in enumerated() {
            if index > 0 { joined.append(SQLStatement(sql: separator)) }
            joined.append(statement)
        }
        return joined
    }
}
