import ArgumentParser

/// `survey venue ...`: venue definitions.
struct VenueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "venue",
        abstract: "Import, list and show venues.",
        subcommands: [VenueImport.self, VenueList.self, VenueShow.self])
}
