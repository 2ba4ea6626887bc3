import ArgumentParser

extension Survey {
    /// `survey venue`: venue definitions.
    struct Venue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "venue",
            abstract: "Import, list and show venues; set a floor's plan.",
            subcommands: [Import.self, List.self, Show.self, Plan.self])
    }
}
