import ArgumentParser
import FingerprintStore
import Foundation

extension Survey.Analytics {
    struct Funnel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Of the devices that entered the first zone, how many then reached each next zone, and how fast.",
            discussion: """
                A device's first entry into the first zone within the period starts its funnel; each next step is \
                its first entry into the next zone within --within seconds of the previous step.
                """)

        @OptionGroup var store: StoreOptions
        @Option(name: .long, help: ArgumentHelp("2 to 10 zone names, comma-separated, in order.", valueName: "zone,zone,..."))
        var zones: String
        @Option(name: .long, help: "The venue.") var venue: String
        @OptionGroup var period: PeriodOptions
        @Option(name: .long, help: "Seconds allowed between one step and the next.") var within: Double = 3600
        @OptionGroup var output: OutputOptions

        var zoneList: [String] { zones.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) } }

        func validate() throws {
            guard (2...10).contains(zoneList.count), !zoneList.contains(where: \.isEmpty) else {
                throw ValidationError("--zones takes 2 to 10 zone names, comma-separated, none empty.")
            }
            guard within > 0 else { throw ValidationError("--within must be more than 0 seconds.") }
        }

        func run() async throws {
            let (from, to) = try period.seconds()
            let report = try await AnalyticsText.run { try await store.open().funnel(of: venue, zones: zoneList, from: from, to: to, within: within) }
            if output.json { return try Output.json(report) }
            print("Venue '\(report.venue)', funnel from \(AnalyticsText.time(report.from)) to \(AnalyticsText.time(report.to)), each step within \(AnalyticsText.duration(report.within)):")
            for (index, step) in report.steps.enumerated() {
                let conversion = index == 0 ? "" : String(format: "  %5.1f%% of the previous step", 100 * step.conversion)
                let median = step.medianSeconds.map { ", median \(AnalyticsText.duration($0)) after it" } ?? ""
                print("  \(index + 1). \(step.zone.padding(toLength: 22, withPad: " ", startingAt: 0)) \(String(step.devices).leftPadded(6)) devices\(conversion)\(median)")
            }
        }
    }
}
