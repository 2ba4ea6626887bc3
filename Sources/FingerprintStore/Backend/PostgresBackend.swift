import Foundation
package import Logging
import NIOCore
import NIOPosix
package import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Where a PostgreSQL store is: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`. The password is kept
/// out of ``description`` (what messages and logs show).
package struct PostgresLocation: Hashable, Sendable, CustomStringConvertible {
    var host: String
    package var port: Int
    var username: String
    package var password: String?
    var database: String

    /// Parses a `postgres://` or `postgresql://` URL; nil for anything else (a file path).
    ///
    /// - Throws: ``StoreError/invalidInput(_:)`` for a postgres URL that lacks a user, a host or a database.
    package init?(url text: String) throws(StoreError) {
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

    package var description: String { "postgres://\(username)@\(host):\(port)/\(database)" }

    /// How long connecting to the server may take before it counts as unreachable.
    static let connectTimeout = Duration.seconds(10)

    /// The settings of one connection here (no TLS: the store is reached on a trusted network), with
    /// `startupParameters` such as a `search_path` or an `application_name`.
    func connectionConfiguration(startupParameters: [(String, String)] = []) -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: .disable)
        configuration.options.connectTimeout = .init(Self.connectTimeout)
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }
}

/// The store on PostgreSQL, through postgres-nio's `PostgresClient`: what a cluster of positiond replicas
/// shares, and what `survey` writes to.
///
/// The client pools the connections and runs as a ServiceLifecycle service, in a service group of the
/// backend's own, until ``close()`` shuts the group down gracefully (or, for a backend dropped without
/// closing, until its task is cancelled). Transactions are the client's
/// `withTransaction`; a read runs as `REPEATABLE READ READ ONLY`, so it sees one state of the database, as a
/// SQLite read transaction does. Nothing blocks a thread: every statement is awaited.
package final class PostgresBackend: StoreBackend {
    package let url: PostgresLocation
    private let client: PostgresClient
    private let connectionConfiguration: PostgresConnection.Configuration
    /// The client as a service: ``close()`` shuts it down gracefully.
    private let services: ServiceGroup
    private let running: Task<Void, Never>
    private let closed = Atomic<Bool>(false)
    /// The `application_name` of the pool's connections: unique to this backend, so that its sessions can
    /// be told apart in `pg_stat_activity`.
    package let applicationName: String
    private let logger: Logger
    /// How long a transaction waits for a connection of the pool before it is refused.
    let leaseTimeout: Duration

    package var engine: StoreEngine { .postgresql }
    package var location: String { url.description }

    /// - Parameters:
    ///   - schema: the PostgreSQL schema the store's tables live in (its connections' `search_path`);
    ///     nil for the database's default, `public`. Lets several stores share one database, as tests do.
    ///   - leaseTimeout: how long a transaction waits for a connection of the pool before it is refused.
    package init(url: PostgresLocation, schema: String? = nil, maximumConnections: Int = 4, leaseTimeout: Duration = .seconds(10), logger: Logger) {
        self.url = url
        self.leaseTimeout = leaseTimeout
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.username, password: url.password, database: url.database, tls: .disable)
        let applicationName = "beaconfix-store-" + UUID().uuidString.prefix(8).lowercased()
        self.applicationName = applicationName
        let startupParameters = [("application_name", applicationName)] + (schema.map { [("search_path", $0)] } ?? [])
        configuration.options.connectTimeout = PostgresLocation.connectTimeout
        configuration.options.maximumConnections = max(1, maximumConnections)
        configuration.options.additionalStartupParameters = startupParameters
        self.connectionConfiguration = url.connectionConfiguration(startupParameters: startupParameters)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        // No signals: the process's own service group (positiond's) handles SIGTERM, then closes the store.
        let services = ServiceGroup(configuration: ServiceGroupConfiguration(services: [.init(service: client)], logger: logger))
        self.services = services
        // On the store's executor, as the transactions: the pool's own work (opening connections, keep-alives)
        // must not queue behind long computations on Swift's pool either.
        self.running = Task(executorPreference: StoreTaskExecutor.shared) {
            do {
                try await services.run()
            } catch {
                logger.error("the PostgreSQL connection pool stopped", metadata: ["error": "\(Self.reason(error))"])
            }
        }
        self.logger = logger
    }

    deinit {
        running.cancel()
    }

    /// Shuts the pool down gracefully: transactions under way finish, then every connection is closed.
    /// Transactions asked for afterwards are refused.
    package func close() async {
        closed.store(true, ordering: .releasing)
        await services.triggerGracefulShutdown()
        await running.value
    }

    /// Connects once outside the pool, so that a wrong host, port, user, password or database is reported at
    /// once as ``StoreError/cannotConnect(location:reason:)`` (the pool would keep retrying in the background).
    func checkConnection() async throws(StoreError) {
        do {
            let connection = try await PostgresConnection.connect(configuration: connectionConfiguration, id: 0, logger: logger)
            try await connection.close()
        } catch {
            throw .cannotConnect(location: url.description, reason: Self.reason(error))
        }
    }

    package func read<T: Sendable>(_ body: @escaping TransactionBody<T>) async throws -> T {
        try await transaction(readOnly: true, dryRun: false, body)
    }

    package func write<T: Sendable>(dryRun: Bool, _ body: @escaping TransactionBody<T>) async throws -> T {
        try await transaction(readOnly: false, dryRun: dryRun, body)
    }

    /// A connection of its own that LISTENs for the other replicas' notifications.
    package func listener(logger: Logger) -> StoreListener? {
        StoreListener(connection: PostgresListenerConnection(url: url, logger: logger))
    }

    /// A transaction of the client's, given at most ``leaseTimeout`` to obtain its connection: the pool keeps
    /// retrying a server it cannot reach for a minute before it gives up, and a caller should hear why sooner.
    private func transaction<T: Sendable>(readOnly: Bool, dryRun: Bool, _ body: @escaping TransactionBody<T>) async throws -> T {
        guard !closed.load(ordering: .acquiring) else {
            throw StoreError.storageFault("the store on \(url.description) was closed; no transaction can start on it")
        }
        let (client, logger, leaseTimeout) = (self.client, self.logger, self.leaseTimeout)
        let leased = LeaseFlag()
        do {
            // The body's statements resume on the store's executor, never queued behind Swift's pool.
            return try await withTaskExecutorPreference(StoreTaskExecutor.shared) {
                try await withThrowingTaskGroup(of: T?.self) { group in
                    group.addTask {
                        try await client.withTransaction(logger: logger) { connection in
                            leased.set()
                            let transaction = PostgresTransaction(connection: connection, logger: logger)
                            // The first statement of the transaction, so it still sets the transaction's mode.
                            if readOnly { try await transaction.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY") }
                            let result = try await body(transaction)
                            if dryRun { throw DryRunRollback(result: result) }
                            return result
                        }
                    }
                    group.addTask {
                        try await Task.sleep(for: leaseTimeout)
                        guard leased.isSet else { throw LeaseTimeout() }
                        return nil
                    }
                    while let next = try await group.next() {
                        if let result = next {
                            group.cancelAll()
                            return result
                        }
                    }
                    throw StoreError.storageFault("a PostgreSQL transaction ended without a result")
                }
            }
        } catch let error as PostgresTransactionError {
            if let rollback = error.closureError as? DryRunRollback<T> { return rollback.result }
            if let closureError = error.closureError { throw closureError }
            let failure = error.beginError ?? error.commitError ?? error.rollbackError
            throw StoreError.storageFault("PostgreSQL failed a transaction: \(failure.map(Self.reason) ?? "unknown error")")
        } catch let error as StoreError {
            throw error
        } catch is LeaseTimeout {
            // Why no connection came: what a connection of its own is told (refused, unknown user, too many clients).
            try await checkConnection()
            throw StoreError.cannotConnect(
                location: url.description, reason: "no connection of the pool became free within \(leaseTimeout)")
        } catch let error as CancellationError {
            throw error
        } catch {
            // The pool gave up on the server (its circuit breaker) or was shut down.
            try await checkConnection()
            throw StoreError.cannotConnect(location: url.description, reason: Self.reason(error))
        }
    }

    /// PostgreSQL's own message for a failed connection or statement, without the URL (which may hold a password).
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            return error.serverInfo?[.message] ?? "\(error.code)"
        }
        return "\(error)"
    }
}

/// Whether a transaction's connection has been leased: until then, its time limit may still end it.
private final class LeaseFlag: Sendable {
    private let leased = Atomic<Bool>(false)
    func set() { leased.store(true, ordering: .releasing) }
    var isSet: Bool { leased.load(ordering: .acquiring) }
}

/// No connection was leased in time.
private struct LeaseTimeout: Error {}

/// Thrown out of a dry run's transaction with its result, so the client rolls it back.
private struct DryRunRollback<T: Sendable>: Error {
    let result: T
}

/// A PostgreSQL connection inside one of its transactions.
struct PostgresTransaction: SQLTransaction {
    let connection: PostgresConnection
    let logger: Logger

    var engine: StoreEngine { .postgresql }

    func execute(_ statement: SQLStatement) async throws {
        for try await _ in try await run(statement) {}
    }

    func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
        var rows: [SQLRow] = []
        for try await row in try await run(statement) {
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

    private func run(_ statement: SQLStatement) async throws -> PostgresRowSequence {
        let query = try PostgresQuery(statement)
        do {
            return try await connection.query(query, logger: logger)
        } catch let error as PSQLError {
            throw StoreError.storageFault("PostgreSQL refused a statement: \(error.serverInfo?[.message] ?? "\(error.code)")")
        }
    }
}

extension PostgresQuery {
    /// `statement` through postgres-nio's own interpolation: its text as written, each value bound where it
    /// stands (the library numbers the parameters and keeps the values out of its logs).
    package init(_ statement: SQLStatement) throws {
        var interpolation = StringInterpolation(literalCapacity: 0, interpolationCount: statement.parts.count / 2)
        for part in statement.parts {
            switch part {
            case .text(let text): interpolation.appendLiteral(text)
            case .value(.null): interpolation.appendInterpolation(String?.none)
            case .value(.integer(let value)): interpolation.appendInterpolation(value)
            case .value(.real(let value)): interpolation.appendInterpolation(value)
            case .value(.text(let value)): interpolation.appendInterpolation(value)
            case .value(.blob(let value)): try interpolation.appendInterpolation(value)
            }
        }
        self.init(stringInterpolation: interpolation)
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
