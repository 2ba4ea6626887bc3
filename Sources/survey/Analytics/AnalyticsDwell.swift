import ArgumentParser
import FingerprintStore
import Foundation

extension Survey.Analytics {
    struct Dwell: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Dwell per zone: finished visits that entered in the period, their median, 90th percentile and mean stay.")

        @OptionGroup var store: StoreOptions
        @Option(name: .long, help: "The venue.") var venue: String
        @OptionGroup var period: PeriodOptions
        @Option(name: .long, help: "Seconds: shorter visits are not counted (positiond's analytics.min.visit.seconds is 10).")
        var minVisit: Double = 10
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard minVisit >= 0 else { throw ValidationError("--min-visit must be 0 seconds or more.") }
        }

        func run() async throws {
            let (from, to) = try period.seconds()
            let report = try await AnalyticsText.run { try await store.open().dwell(of: venue, from: from, to: to, minimumVisit: minVisit) }
            if output.json { return try Output.json(report) }
            print("Venue '\(report.venue)', visits entered \(AnalyticsText.time(report.from)) to \(AnalyticsText.time(report.to)), at least \(AnalyticsText.duration(report.minimumVisit)):")
            guard !report.zones.isEmpty else { return print("  no finished visit") }
            print("  zone                      visits    median       p90        mean")
            for zone in report.zones {
                print("  \(zone.zone.padding(toLength: 24, withPad: " ", startingAt: 0)) \(String(zone.visits).leftPadded(7))  \(AnalyticsText.duration(zone.median).leftPadded(10))  \(AnalyticsText.duration(zone.p90).leftPadded(10))  \(AnalyticsText.duration(zone.mean).leftPadded(10))")
            }
        }
    }
}

