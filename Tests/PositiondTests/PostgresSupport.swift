import FingerprintStore
import Foundation
import Testing

extension TestEnvironment {
    /// A fresh store on the test PostgreSQL (BEACONFIX_TEST_POSTGRES) in a schema of its own: tests run in
    /// parallel, and each must see only its own venues and keys.
    static func postgresStore() async throws -> FingerprintStore {
        let text = try #require(ProcessInfo.processInfo.environment["BEACONFIX_TEST_POSTGRES"])
        let url = try #require(try PostgresLocation(url: text))
        let schema = "positiond_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await PostgresBackend(url: url, logger: logger).write { try await $0.execute("CREATE SCHEMA \(sql: schema)") }
        return try await FingerprintStore(postgres: PostgresBackend(url: url, schema: schema, logger: logger), logger: logger)
    }

    /// Two stores on one fresh schema of the test PostgreSQL, each with its own connections: two replicas
    /// of a cluster.
    static func postgresReplicaStores() async throws -> (FingerprintStore, FingerprintStore) {
        let text = try #require(ProcessInfo.processInfo.environment["BEACONFIX_TEST_POSTGRES"])
        let url = try #require(try PostgresLocation(url: text))
        let schema = "replicas_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await PostgresBackend(url: url, logger: logger).write { try await $0.execute("CREATE SCHEMA \(sql: schema)") }
        return (
            try await FingerprintStore(postgres: PostgresBackend(url: url, schema: schema, logger: logger), logger: logger),
            try await FingerprintStore(postgres: PostgresBackend(url: url, schema: schema, logger: logger), logger: logger))
    }
}
