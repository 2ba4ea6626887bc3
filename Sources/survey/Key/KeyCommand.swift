public import ArgumentParser

extension Survey {
    /// `survey key`: positiond's API keys.
    struct Key: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "key",
            abstract: "Create, list and revoke positiond's API keys.",
            discussion: """
                With no key in the database positiond serves without authentication, on loopback only. Once a key \
                exists, every /v1 route needs 'Authorization: Bearer TOKEN'. A running daemon picks up new and \
                revoked keys within a few seconds.
                """,
            subcommands: [Create.self, List.self, Revoke.self])
    }
}

extension APIKeyScope: ExpressibleByArgument {}

public import FingerprintStore
