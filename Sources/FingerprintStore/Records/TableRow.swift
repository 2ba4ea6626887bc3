import Foundation

/// A table's row declared once: the type's stored properties are the table's columns, by name (Codable's
/// synthesized keys), read from the seam's rows and written back through one generic statement per
/// operation on both engines. Dates are stored as ``SQLValue/init(_:)-(Date)`` writes them, flags as 0 or
/// 1, closed sets of names (a status, a media type) as their raw values.
package protocol TableRow: Codable {
    /// The table's name, as the migrations create it.
    static var table: String { get }
    /// The columns an upsert (``upsert(_:)``) conflicts on: the primary key, or the natural key of a table
    /// whose primary key is a generated id.
    static var conflictColumns: [String] { get }
}

/// A row whose primary key is an id the engine generates on insert.
package protocol IdentifiedRow: TableRow {
    var id: Int64? { get set }
}

extension TableRow {
    /// The row's values by column, in declaration order; a nil optional is NULL.
    package var columnValues: [(column: String, value: SQLValue)] {
        get throws {
            let encoder = ColumnEncoder()
            try encode(to: encoder)
            return encoder.sink.columns
        }
    }

    /// The row decoded from a result row holding (at least) its columns.
    /// - Throws: ``StoreError/storageFault(_:)`` naming the column that holds what this type cannot read.
    package init(row: SQLRow) throws {
        try self.init(from: ColumnDecoder(row: row))
    }

    /// The rows of the table matching `condition` (SQL over its columns, its values interpolated; every row
    /// when nil), in `order` (columns named in code).
    package static func fetchAll(
        _ transaction: any SQLTransaction, where condition: SQLStatement? = nil, orderBy order: String? = nil
    ) async throws -> [Self] {
        var statement: SQLStatement = "SELECT * FROM \(sql: table)"
        if let condition { statement.append(" WHERE \(sql: condition)") }
        if let order { statement.append(" ORDER BY \(sql: order)") }
        return try await transaction.rows(statement).map(Self.init(row:))
    }

    package static func fetchOne(_ transaction: any SQLTransaction, where condition: SQLStatement) async throws -> Self? {
        try await transaction.rows("SELECT * FROM \(sql: table) WHERE \(sql: condition)").first.map(Self.init(row:))
    }

    /// Inserts the row, or updates every other column of the row with the same ``conflictColumns``.
    package func upsert(_ transaction: any SQLTransaction) async throws {
        let values = try columnValues
        let updates = values.map(\.column).filter { !Self.conflictColumns.contains($0) }.map { "\($0) = excluded.\($0)" }
        try await transaction.execute(
            "\(sql: Self.insertStatement(values)) ON CONFLICT (\(sql: Self.conflictColumns.joined(separator: ", "))) "
                + SQLStatement(sql: updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(updates.joined(separator: ", "))"))
    }

    /// Inserts the row as it is (a table whose key the row carries).
    package func insertRow(_ transaction: any SQLTransaction) async throws {
        try await transaction.execute(Self.insertStatement(try columnValues))
    }

    /// `INSERT INTO` the table: each of `columns` with its value bound, then each `computed` column's SQL.
    package static func insertStatement(
        _ columns: [(column: String, value: SQLValue)], computed: KeyValuePairs<String, String> = [:]
    ) -> SQLStatement {
        let names = columns.map(\.column) + computed.map(\.key)
        let values = columns.map { "\($0.value)" as SQLStatement } + computed.map { SQLStatement(sql: $0.value) }
        return "INSERT INTO \(sql: table) (\(sql: names.joined(separator: ", "))) VALUES (\(sql: values.joined(separator: ", ")))"
    }
}

extension IdentifiedRow {
    /// Inserts the row and takes the id the engine gave it.
    package mutating func insert(_ transaction: any SQLTransaction) async throws {
        id = try await transaction.insertReturningID(Self.insertStatement(try columnValues.filter { $0.column != "id" }))
    }

    /// Writes every column of the row with this id.
    package func update(_ transaction: any SQLTransaction) async throws {
        guard let id else { throw StoreError.storageFault("a row of \(Self.table) without an id cannot be updated") }
        let assignments = try columnValues.filter { $0.column != "id" }.map { "\(sql: $0.column) = \($0.value)" as SQLStatement }
        try await transaction.execute("UPDATE \(sql: Self.table) SET \(sql: assignments.joined(separator: ", ")) WHERE id = \(id)")
    }
}

// MARK: - Decoding a row

/// Reads a ``TableRow`` from a result row: each property from the column of its name.
private struct ColumnDecoder: Decoder {
    package let row: SQLRow
    package var codingPath: [any CodingKey] { [] }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Columns(row: row))
    }

    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw StoreError.storageFault("a table row is read by column name, not as a list")
    }

    package func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw StoreError.storageFault("a table row is read by column name, not as one value")
    }

    package struct Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: SQLRow
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { row.columns.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { row.hasColumn(key.stringValue) }
        func decodeNil(forKey key: Key) throws -> Bool {
            if case .null = row[key.stringValue] { return true }
            return false
        }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try row.bool(key.stringValue) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try row.text(key.stringValue) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try row.real(key.stringValue) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try row.int(key.stringValue) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try row.integer(key.stringValue) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let column = key.stringValue
            if T.self == Date.self { return try row.date(column) as! T }
            if T.self == Data.self { return try row.blob(column) as! T }
            // A closed set of names, or another single value: decoded from the column's one value.
            let value = row[column]
            do {
                return try T(from: ValueDecoder(value: value, column: column))
            } catch is DecodingError {
                if case .text(let name) = value {
                    throw StoreError.storageFault("the stored column '\(column)' holds '\(name)', which this build does not know")
                }
                throw StoreError.storageFault("the stored column '\(column)' holds \(value), which this build cannot read as \(T.self)")
            }
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw StoreError.storageFault("the column '\(key.stringValue)' holds one value, not a nested row")
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw StoreError.storageFault("the column '\(key.stringValue)' holds one value, not a list")
        }
        func superDecoder() throws -> any Decoder { throw StoreError.storageFault("a table row has no superclass") }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw StoreError.storageFault("a table row has no superclass") }
    }
}

/// One column's value, for the types that decode themselves from a single value (string enums).
private struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    package let value: SQLValue
    package let column: String
    package var codingPath: [any CodingKey] { [] }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw StoreError.storageFault("the column '\(column)' holds one value, not a nested row")
    }
    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw StoreError.storageFault("the column '\(column)' holds one value, not a list")
    }
    package func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    package func decodeNil() -> Bool { value == .null }
    package func decode(_ type: Bool.Type) throws -> Bool { try SQLRow(columns: [column], values: [value]).bool(column) }
    package func decode(_ type: String.Type) throws -> String { try SQLRow(columns: [column], values: [value]).text(column) }
    package func decode(_ type: Double.Type) throws -> Double { try SQLRow(columns: [column], values: [value]).real(column) }
    package func decode(_ type: Int.Type) throws -> Int { try SQLRow(columns: [column], values: [value]).int(column) }
    package func decode(_ type: Int64.Type) throws -> Int64 { try SQLRow(columns: [column], values: [value]).integer(column) }
    package func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: self) }
}

// MARK: - Encoding a row

/// Collects a ``TableRow``'s columns and values in declaration order.
private final class ColumnSink {
    package var columns: [(column: String, value: SQLValue)] = []
}

private struct ColumnEncoder: Encoder {
    package let sink = ColumnSink()
    package var codingPath: [any CodingKey] { [] }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Columns(sink: sink))
    }
    package func unkeyedContainer() -> any UnkeyedEncodingContainer { fatalError("a table row is written by column name, not as a list") }
    package func singleValueContainer() -> any SingleValueEncodingContainer { fatalError("a table row is written by column name, not as one value") }

    package struct Columns<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let sink: ColumnSink
        var codingPath: [any CodingKey] { [] }

        private func put(_ value: SQLValue, _ key: Key) { sink.columns.append((key.stringValue, value)) }

        mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { put(SQLValue(value), key) }
        mutating func encode(_ value: String, forKey key: Key) throws { put(.text(value), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { put(.real(value), key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { put(SQLValue(value), key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { put(.integer(value), key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { put(try Self.value(value), key) }

        // An absent optional is NULL, not a missing column: an upsert must clear it.
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { put(value.map(SQLValue.init) ?? .null, key) }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { put(value.map(SQLValue.text) ?? .null, key) }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { put(value.map(SQLValue.real) ?? .null, key) }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { put(value.map { SQLValue($0) } ?? .null, key) }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { put(value.map(SQLValue.integer) ?? .null, key) }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { put(try value.map(Self.value) ?? .null, key) }

        static func value<T: Encodable>(_ value: T) throws -> SQLValue {
            if let date = value as? Date { return SQLValue(date) }
            if let data = value as? Data { return .blob(data) }
            let encoder = ValueEncoder()
            try value.encode(to: encoder)
            guard let captured = encoder.box.value else {
                throw StoreError.invalidInput("a \(T.self) value is not one column's value")
            }
            return captured
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            fatalError("the column '\(key.stringValue)' holds one value, not a nested row")
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            fatalError("the column '\(key.stringValue)' holds one value, not a list")
        }
        mutating func superEncoder() -> any Encoder { fatalError("a table row has no superclass") }
        mutating func superEncoder(forKey key: Key) -> any Encoder { fatalError("a table row has no superclass") }
    }
}

/// Captures the one value a string enum (or another single value) encodes.
private struct ValueEncoder: Encoder, SingleValueEncodingContainer {
    final class Box { var value: SQLValue? }
    package let box = Box()
    package var codingPath: [any CodingKey] { [] }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { fatalError("a column holds one value, not a nested row") }
    package func unkeyedContainer() -> any UnkeyedEncodingContainer { fatalError("a column holds one value, not a list") }
    package func singleValueContainer() -> any SingleValueEncodingContainer { self }

    package func encodeNil() { box.value = .null }
    package func encode(_ value: Bool) { box.value = SQLValue(value) }
    package func encode(_ value: String) { box.value = .text(value) }
    package func encode(_ value: Double) { box.value = .real(value) }
    package func encode(_ value: Int) { box.value = SQLValue(value) }
    package func encode(_ value: Int64) { box.value = .integer(value) }
    package func encode<T: Encodable>(_ value: T) throws { box.value = try ColumnEncoder.Columns<AnyColumnKey>.value(value) }
}

private struct AnyColumnKey: CodingKey {
    package var stringValue: String
    package var intValue: Int? { nil }
    package init(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }
}
