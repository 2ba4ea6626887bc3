import Crypto
public import Foundation

/// What a bearer API key may do.
public enum APIKeyScope: String, Codable, Hashable, Sendable, CaseIterable {
    /// Apps: read venues, locate, post samples, ask for proximity, follow one device live.
    case locate
    /// Surveyors and their apps: what `locate` may, and survey sessions (record a venue's survey over HTTP).
    case survey
    /// Operators: everything, including the venue-wide live feed and any device's position.
    case admin

    /// Whether a key of this scope may do what `required` allows.
    public func permits(_ required: APIKeyScope) -> Bool {
        switch self {
        case .admin: true
        case .survey: required == .survey || required == .locate
        case .locate: required == .locate
        }
    }
}

/// An API key as listed (never with its token).
public struct APIKeyInfo: Hashable, Sendable, Codable {
    public var id: Int64
    public var name: String
    public var scope: APIKeyScope
    /// The first characters of the token, to tell keys apart.
    public var prefix: String
    public var createdAt: Date
    public var revokedAt: Date?
}

/// A new key: its token is only ever available here.
public struct CreatedAPIKey: Hashable, Sendable, Codable {
    public var key: APIKeyInfo
    /// The bearer token to hand to the app or operator. Only its SHA-256 is stored.
    public var token: String
}

/// A row of `apiKey`, declared once (``TableRow``).
package struct APIKeyRow: IdentifiedRow {
    package static let table = "apiKey"
    package static let conflictColumns = ["id"]

    package var id: Int64?
    var name: String
    /// Kept as stored, so that a scope this build does not know is refused with the key named.
    var scope: String
    /// SHA-256 of the token, hex: the token itself is shown once and never stored.
    var tokenHash: String
    var tokenPrefix: String
    package var createdAt: Date
    package var revokedAt: Date?
}

extension APIKeyInfo {
    /// A key from its row; a scope this build does not know is an error that names it, never a guess.
    init(_ row: APIKeyRow) throws(StoreError) {
        guard let scope = APIKeyScope(rawValue: row.scope) else {
            throw .storageFault("API key \(row.id ?? 0) has the scope '\(row.scope)', which this build does not know (locate, survey or admin)")
        }
        self.init(id: row.id ?? 0, name: row.name, scope: scope, prefix: row.tokenPrefix, createdAt: row.createdAt, revokedAt: row.revokedAt)
    }
}

extension FingerprintStore {
    /// The SHA-256 of a token, hex. Tokens carry 256 random bits, so a fast hash is enough: there is
    /// nothing to brute-force that a slow hash would protect.
    public static func hash(token: String) -> String {
        // Every authenticated request hashes its token: hex by table, not 32 `String(format:)` calls.
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(token.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// Creates a key and returns its token (shown once).
    public func createKey(name: String, scope: APIKeyScope) async throws -> CreatedAPIKey {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw StoreError.invalidInput("a key needs a name") }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let token = "bfx_" + Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        // Stored to the millisecond, as the engines keep it, so the answer equals what a later read gives.
        let now = SQLValue.storedPrecision(Date())
        let prefix = String(token.prefix(10))
        let id = try await sqlWrite { transaction -> Int64 in
            var row = APIKeyRow(
                id: nil, name: name, scope: scope.rawValue, tokenHash: Self.hash(token: token), tokenPrefix: prefix, createdAt: now, revokedAt: nil)
            try await row.insert(transaction)
            try await Self.notifyKeysChanged(transaction)
            return try row.id ?? { throw StoreError.storageFault("the new API key was not given an id") }()
        }
        logger.debug("api key created", metadata: ["key.id": "\(id)", "key.scope": "\(scope.rawValue)"])
        return CreatedAPIKey(key: APIKeyInfo(id: id, name: name, scope: scope, prefix: prefix, createdAt: now, revokedAt: nil), token: token)
    }

    /// Every key, revoked ones included, by id.
    public func keys() async throws -> [APIKeyInfo] {
        try await sqlRead { transaction in
            try await APIKeyRow.fetchAll(transaction, orderBy: "id").map { row throws(StoreError) in try APIKeyInfo(row) }
        }
    }

    /// Revokes a key by id; revoking twice is an error.
    public func revokeKey(id: Int64) async throws -> APIKeyInfo {
        try await sqlWrite { transaction in
            guard let row = try await APIKeyRow.fetchOne(transaction, where: "id = \(id)") else {
                throw StoreError.invalidInput("there is no API key \(id)")
            }
            var key = try APIKeyInfo(row)
            guard key.revokedAt == nil else { throw StoreError.conflict("API key \(id) is already revoked") }
            let now = SQLValue.storedPrecision(Date())
            try await transaction.execute("UPDATE apiKey SET revokedAt = \(now) WHERE id = \(id)")
            try await Self.notifyKeysChanged(transaction)
            key.revokedAt = now
            return key
        }
    }

    /// Tells the replicas sharing a PostgreSQL store that the keys changed: delivered when the transaction
    /// commits (never for a rollback), so they re-read the keys at once instead of polling for them.
    private static func notifyKeysChanged(_ transaction: any SQLTransaction) async throws {
        try await transaction.notify(channel: StoreChannels.keys, payload: "")
    }

    /// The scopes of the active keys by token hash: what the daemon caches to authenticate requests
    /// without touching the database on each one.
    public func activeKeyHashes() async throws -> [String: APIKeyScope] {
        try await sqlRead(Self.activeKeyHashes)
    }

    private static func activeKeyHashes(_ transaction: any SQLTransaction) async throws -> [String: APIKeyScope] {
        var keys: [String: APIKeyScope] = [:]
        for row in try await APIKeyRow.fetchAll(transaction, where: "revokedAt IS NULL") {
            keys[row.tokenHash] = try APIKeyInfo(row).scope
        }
        return keys
    }

    /// What authentication needs, in one read transaction that does not block a thread of Swift's
    /// concurrency pool: whether any key was ever created, and the scopes of the active keys by token hash.
    public func authenticationState() async throws -> (anyKeyCreated: Bool, active: [String: APIKeyScope]) {
        try await sqlRead { transaction in
            let count = try await transaction.rows("SELECT COUNT(*) AS keys FROM apiKey").first?.integer("keys") ?? 0
            return (count > 0, try await Self.activeKeyHashes(transaction))
        }
    }
}
