import Crypto
public import Foundation
import GRDB

/// What a bearer API key may do.
public enum APIKeyScope: String, Codable, Hashable, Sendable, CaseIterable {
    /// Apps: read venues, locate, post samples, ask for proximity, follow one device live.
    case locate
    /// Operators: everything, including the venue-wide live feed and any device's position.
    case admin

    /// Whether a key of this scope may do what `required` allows.
    public func permits(_ required: APIKeyScope) -> Bool {
        self == .admin || self == required
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

struct APIKeyRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "apiKey"
    var id: Int64?
    var name: String
    var scope: APIKeyScope
    var tokenHash: String
    var tokenPrefix: String
    var createdAt: Date
    var revokedAt: Date?

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    var info: APIKeyInfo {
        APIKeyInfo(
            id: id!, name: name, scope: scope, prefix: tokenPrefix, createdAt: createdAt,
            revokedAt: revokedAt)
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
    public func createKey(name: String, scope: APIKeyScope) throws -> CreatedAPIKey {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw StoreError.invalidInput("a key needs a name") }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let token = "bfx_" + Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        var record = APIKeyRecord(
            id: nil, name: name, scope: scope, tokenHash: Self.hash(token: token),
            tokenPrefix: String(token.prefix(10)), createdAt: Date(), revokedAt: nil)
        try write { db in try record.insert(db) }
        logger.debug("api key created", metadata: ["key.id": "\(record.id!)", "key.scope": "\(scope.rawValue)"])
        return CreatedAPIKey(key: record.info, token: token)
    }

    /// Every key, revoked ones included, by id.
    public func keys() throws -> [APIKeyInfo] {
        try writer.read { db in try APIKeyRecord.order(Column("id")).fetchAll(db).map(\.info) }
    }

    /// Revokes a key by id; revoking twice is an error.
    public func revokeKey(id: Int64) throws -> APIKeyInfo {
        try write { db in
            guard var record = try APIKeyRecord.fetchOne(db, key: id) else {
                throw StoreError.invalidInput("there is no API key \(id)")
            }
            guard record.revokedAt == nil else { throw StoreError.conflict("API key \(id) is already revoked") }
            record.revokedAt = Date()
            try record.update(db)
            return record.info
        }
    }

    /// The scopes of the active keys by token hash: what the daemon caches to authenticate requests
    /// without touching the database on each one.
    public func activeKeyHashes() throws -> [String: APIKeyScope] {
        try writer.read(Self.activeKeyHashes)
    }

    private static func activeKeyHashes(_ db: Database) throws -> [String: APIKeyScope] {
        var keys: [String: APIKeyScope] = [:]
        for record in try APIKeyRecord.filter(Column("revokedAt") == nil).fetchAll(db) {
            keys[record.tokenHash] = record.scope
        }
        return keys
    }

    /// What authentication needs, in one read transaction that does not block a thread of Swift's
    /// concurrency pool: whether any key was ever created, and the scopes of the active keys by token hash.
    public func authenticationState() async throws -> (anyKeyCreated: Bool, active: [String: APIKeyScope]) {
        try await writer.read { db in
            (try APIKeyRecord.fetchCount(db) > 0, try Self.activeKeyHashes(db))
        }
    }
}
