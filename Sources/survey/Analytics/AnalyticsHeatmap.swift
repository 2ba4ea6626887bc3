import ArgumentParser
import FingerprintStore
import Foundation

extension Survey.Analytics {
    struct Heatmap: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Device-seconds per cell of a floor over a period (widened to whole hours).")

        @OptionGroup var store: StoreOptions
        @Option(name: .long, help: "The venue.") var venue: String
        @Option(name: .long, help: "The floor's level.") var floor: Int
        @Option(name: .long, help: "The cells' side in whole metres, 1 to 100.") var cell: Int = 1
        @OptionGroup var period: PeriodOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard (1...100).contains(cell) else { throw ValidationError("--cell is a whole number of metres from 1 to 100.") }
        }

        func run() async throws {
            let (from, to) = try period.seconds()
            let report = try await AnalyticsText.run { try await store.open().heatmap(of: venue, floor: floor, cell: cell, from: from, to: to) }
            if output.json { return try Output.json(report) }
            print("Venue '\(report.venue)', floor \(report.floor), \(AnalyticsText.time(report.from)) to \(AnalyticsText.time(report.to)), \(Int(report.cell)) m cells: \(report.cells.count) cells with presence, \(AnalyticsText.duration(report.totalSeconds)) of device time in all.")
            for cell in report.cells.sorted(by: { $0.seconds > $1.seconds }).prefix(10) {
                print("  x \(Output.metres(cell.x).leftPadded(7)) y \(Output.metres(cell.y).leftPadded(7))  \(AnalyticsText.duration(cell.seconds))")
            }
            if report.cells.count > 10 { print("  … \(report.cells.count - 10) more (--json lists every cell)") }
        }
    }
}
