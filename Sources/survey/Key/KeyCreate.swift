import ArgumentParser
import FingerprintStore

extension Survey.Key {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create", abstract: "Create a key and print its token (shown once; only its hash is stored).")

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: "What the key is for (an app, an operator).")
        var name: String

        @Option(name: .long, help: "locate: apps; survey: surveyors' apps (survey sessions, and what locate may); admin: everything, including the venue-wide live feed.")
        var scope: APIKeyScope = .locate

        func validate() throws {
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--name must not be empty.") }
        }

        func run() async throws {
            let created = try await store.open(creating: true).createKey(name: name, scope: scope)
            if output.json { return try Output.json(created) }
            print("Created \(created.key.scope.rawValue) key \(created.key.id) '\(created.key.name)'. Its token, shown only now:")
            print(created.token)
        }
    }
}
