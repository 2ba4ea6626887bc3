public import ArgumentParser

/// `survey key ...`: bearer API keys for positiond.
struct KeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Create, list and revoke positiond's API keys.",
        discussion: """
            With no key in the database positiond serves without authentication, on loopback only. Once a key
            exists, every /v1 route needs 'Authorization: Bearer TOKEN'. A running daemon picks up new and
            revoked keys within a few seconds.
            """,
        subcommands: [KeyCreate.self, KeyList.self, KeyRevoke.self])
}

extension APIKeyScope: ExpressibleByArgument {}

public import FingerprintStore
