import ArgumentParser
import FingerprintStore

extension Survey.Key {
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke an API key by id.")

        @OptionGroup var store: StoreOptions

        @Argument(help: "The key's id, as 'survey key list' shows it.")
        var id: Int64

        func run() async throws {
            let key = try await store.open().revokeKey(id: id)
            print("Revoked key \(key.id) '\(key.name)'.")
        }
    }
}
