import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// Where a PostgreSQL store is: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`. The password is kept
/// out of ``description`` (what messages and logs show).
struct PostgresLocation: Hashable, Sendable, CustomStringConvertible {
    var host: String
    var port: Int
    var username: String
    var password: String?
    var database: String

    /// Parses a `postgres://` or `postgresql://` URL; nil for anything else (a file path).
    ///
    /// - Throws: ``StoreError/invalidInput(_:)`` for a postgres URL that lacks a user, a host or a database.
    init?(url text: String) throws(StoreError) {
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else { return nil }
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty,
              let username = components.user, !username.isEmpty
        else {
            throw .invalidInput("a PostgreSQL store is named postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE; this one lacks a user or a host")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else {
            throw .invalidInput("a PostgreSQL store is named postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE; this one names no database")
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = username
        self.password = components.password
        self.database = database
    }

    var description: String { "postgres://\(username)@\(host):\(port)/\(database)" }
}

/// The store on PostgreSQL, through postgres-nio: what a cluster of positiond replicas shares.
///
/// Transactions are synchronous, as on SQLite: each takes a connection from a small pool and waits on
/// postgres-nio's futures, so it must run off the event loop and off Swift's concurrency pool (the store's
/// async entry points hop onto a thread of their own first). Reads run as `REPEATABLE READ READ ONLY`, so a
/// read sees one state of the database, as a SQLite read transaction does.
final class PostgresBackend: StoreBackend {
    let url: PostgresLocation
    private let configuration: PostgresConnection.Configuration
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    /// Idle connections; at most `maximumConnections` exist, counted by `capacity`.
    private let idle = NIOLockedValueBox<[PostgresConnection]>([])
    private let capacity: DispatchSemaphore
    private let nextID = NIOLockedValueBox(0)

    var engine: StoreEngine { .postgresql }
    var location: String { url.description }

    /// - Parameter schema: the PostgreSQL schema the store's tables live in (its connections' `search_path`);
    ///   nil for the database's default, `public`. Lets several stores share one database, as tests do.
    init(url: PostgresLocation, schema: String? = nil, maximumConnections: Int = 4, logger: Logger) {
        self.url = url
        var configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.username, password: url.password, database: url.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(10)
        if let schema { configuration.options.additionalStartupParameters = [("search_path", schema)] }
        self.configuration = configuration
        self.eventLoopGroup = MultiThreadedEventLoopGroup.singleton
        self.capacity = DispatchSemaphore(value: max(1, maximumConnections))
        self.logger = logger
    }

    deinit {
        for connection in idle.withLockedValue({ $0 }) { connection.close().whenComplete { _ in } }
    }

    func read<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        try transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    func write<T>(_ body: (any SQLTransaction) throws -> T) throws -> T {
        try transaction(begin: "BEGIN ISOLATION LEVEL READ COMMITTED", body)
    }

    /// A connection of its own that LISTENs for the other replicas' notifications.
    func listener(logger: Logger) -> StoreListener? {
        StoreListener(connection: PostgresListenerConnection(url: url, logger: logger))
    }

    private func transaction<T>(begin: String, _ body: (any SQLTransaction) throws -> T) throws -> T {
        capacity.wait()
        defer { capacity.signal() }
        let connection = try checkOut()
        let transaction = PostgresTransaction(connection: connection, logger: logger)
        do {
            try transaction.execute(begin)
            let result = try body(transaction)
            try transaction.execute("COMMIT")
            idle.withLockedValue { $0.append(connection) }
            return result
        } catch {
            // A connection that cannot even roll back is closed rather than handed to the next transaction.
            if (try? transaction.execute("ROLLBACK")) != nil, !connection.isClosed {
                idle.withLockedValue { $0.append(connection) }
            } else {
                connection.close().whenComplete { _ in }
            }
            throw error
        }
    }

    /// An idle connection that is still open, or a new one.
    private func checkOut() throws -> PostgresConnection {
        while let connection = idle.withLockedValue({ $0.popLast() }) {
            if !connection.isClosed { return connection }
        }
        let id = nextID.withLockedValue { value in
            value += 1
            return value
        }
        do {
            return try PostgresConnection.connect(on: eventLoopGroup.next(), configuration: configuration, id: id, logger: logger).wait()
        } catch {
            throw StoreError.cannotConnect(location: url.description, reason: Self.reason(error))
        }
    }

    /// PostgreSQL's own message for a failed connection, without the URL (which may hold a password).
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            return error.serverInfo?[.message] ?? "\(error.code)"
        }
        return "\(error)"
    }
}

/// A PostgreSQL connection inside one of its transactions.
struct PostgresTransaction: SQLTransaction {
    let connection: PostgresConnection
    let logger: Logger

    var engine: StoreEngine { .postgresql }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws {
        _ = try run(sql, arguments)
    }

    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        let result = try run(sql, arguments)
        var rows: [SQLRow] = []
        rows.reserveCapacity(result.rows.count)
        for row in result.rows {
            var columns: [String] = []
            var values: [SQLValue] = []
            for cell in row {
                columns.append(cell.columnName)
                values.append(try SQLValue(cell))
            }
            rows.append(SQLRow(columns: columns, values: values))
        }
        return rows
    }

    private func run(_ sql: String, _ arguments: [SQLValue]) throws -> PostgresQueryResult {
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .null: binds.appendNull()
            case .integer(let value): binds.append(value)
            case .real(let value): binds.append(value)
            case .text(let value): binds.append(value)
            case .blob(let value): try binds.append(value)
            }
        }
        do {
            return try connection.query(PostgresQuery(unsafeSQL: Self.numberingParameters(sql), binds: binds), logger: logger).wait()
        } catch let error as PSQLError {
            throw StoreError.storageFault("PostgreSQL refused a statement: \(error.serverInfo?[.message] ?? "\(error.code)")")
        }
    }

    /// `sql` with each `?` parameter marker numbered as PostgreSQL wants them (`$1`, `$2`, ...); a `?`
    /// inside a quoted string or identifier is left alone.
    static func numberingParameters(_ sql: String) -> String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 8)
        var number = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                result.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                result.append(character)
            } else if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }
}

extension SQLValue {
    /// A cell as the store's value: integers, numbers, text and bytes; booleans as 0 and 1.
    init(_ cell: PostgresCell) throws {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        switch cell.dataType {
        case .int2, .int4, .int8, .oid: self = .integer(try cell.decode(Int64.self))
        case .float4, .float8, .numeric: self = .real(try cell.decode(Double.self))
        case .bool: self = .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea: self = .blob(try cell.decode(Data.self))
        default: self = .text(try cell.decode(String.self))
        }
    }
}
