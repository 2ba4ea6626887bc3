import ArgumentParser
import FingerprintStore
import Foundation

extension Survey.Key {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the API keys (never their tokens).")

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let keys = try await store.open().keys()
            if output.json { return try Output.json(keys) }
            guard !keys.isEmpty else { return print("No API key: positiond serves without authentication, on loopback only.") }
            for key in keys {
                let state = key.revokedAt.map { "revoked \($0.ISO8601Format())" } ?? "active"
                print("\(key.id)  \(key.prefix)…  \(key.scope.rawValue)  \(key.name)  created \(key.createdAt.ISO8601Format())  \(state)")
            }
        }
    }
}
