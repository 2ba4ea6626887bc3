import Foundation
import GRDB
import Logging

/// The store on SQLite, through GRDB: the embedded default.
struct SQLiteBackend: StoreBackend {
    let writer: any DatabaseWriter

    var engine: StoreEngine { .sqlite }
    var location: String { writer.path }

    func read<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        try writer.read { db in try body(SQLiteTransaction(db: db)) }
    }

    func write<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        try writer.write { db in try body(SQLiteTransaction(db: db)) }
    }

    /// SQLite has no notifications between processes: readers poll the revisions.
    func listener(logger: Logger) -> StoreListener? { nil }
}

/// A GRDB connection inside one of its transactions.
struct SQLiteTransaction: SQLTransaction {
    let db: Database

    var engine: StoreEngine { .sqlite }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws {
        try db.execute(sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue)))
    }

    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        let statement = try db.makeStatement(sql: sql)
        let columns = statement.columnNames
        return try Row.fetchAll(statement, arguments: StatementArguments(arguments.map(\.databaseValue))).map { row in
            SQLRow(columns: columns, values: (0..<row.count).map { SQLValue(row[$0] as DatabaseValue) })
        }
    }
}

extension SQLValue {
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .double(let real): self = .real(real)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(data)
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let integer): integer.databaseValue
        case .real(let real): real.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let data): data.databaseValue
        }
    }
}
