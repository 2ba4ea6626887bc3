import Configuration
import Logging
import positiond
import Testing

@Suite("positiond settings")
struct SettingsTests {
    @Test("POSITIOND_* environment variables and flags set the settings; flags win")
    func environmentAndFlags() {
        // Given the environment and command line main reads
        let environment = EnvironmentVariablesProvider(environmentVariables: [
            "POSITIOND_PORT": "9090", "POSITIOND_DB": "/var/lib/beaconfix.sqlite", "POSITIOND_LOG_LEVEL": "debug",
            "POSITIOND_LIMITS_SAMPLES": "12", "POSITIOND_REVISION_POLL_SECONDS": "0.5", "PORT": "1",
        ]).prefixKeys(with: "positiond")
        let flags = CommandLineArgumentsProvider(arguments: ["positiond", "--host", "0.0.0.0", "--port", "9191"])
        // When read as main does
        let settings = Settings(reader: ConfigReader(providers: [flags, environment]))
        // Then
        #expect(settings.port == 9191)
        #expect(settings.host == "0.0.0.0")
        #expect(settings.databasePath == "/var/lib/beaconfix.sqlite")
        #expect(settings.logLevel == .debug)
        #expect(settings.maximumSamples == 12)
        #expect(settings.revisionPollInterval == .milliseconds(500))
        #expect(!settings.isLoopback)
        #expect(settings.problems().isEmpty)
    }

    @Test("defaults, and unusable values are reported")
    func defaultsAndProblems() {
        let defaults = Settings(reader: ConfigReader(providers: [InMemoryProvider(values: [:])]))
        #expect(defaults.port == 8080)
        #expect(defaults.host == "127.0.0.1")
        #expect(defaults.databasePath == "beaconfix.sqlite")
        #expect(defaults.isLoopback)
        let broken = Settings(reader: ConfigReader(providers: [InMemoryProvider(values: ["port": 70000, "devices.max": 0])]))
        #expect(broken.problems().contains { $0.contains("70000") })
        #expect(broken.problems().contains { $0.contains("devices.max") })
    }

    @Test("--help names every setting's flag and variable whole, each in its column")
    func helpColumns() {
        // Given the help text
        let rows = Settings.help.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2).map(String.init)
        // Then each setting has a row that holds its flag, its variable and its default, each followed by a space
        #expect(rows.count == Settings.documentation.count)
        for (row, setting) in zip(rows, Settings.documentation) {
            let words = row.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            #expect(words.prefix(3) == [Settings.flag(of: setting.key), Settings.environmentVariable(of: setting.key), setting.defaultValue], "\(row)")
        }
        // And the columns line up: every variable starts at the same offset
        let starts = Set(zip(rows, Settings.documentation).compactMap { row, setting in row.range(of: Settings.environmentVariable(of: setting.key))?.lowerBound.utf16Offset(in: row) })
        #expect(starts.count == 1)
    }
}
