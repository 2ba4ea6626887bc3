import ArgumentParser
import FingerprintStore
import Foundation
import Positioning

extension Survey {
    /// `survey locate`: positiond's answer, offline.
    struct Locate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Locate scans against a venue's survey, offline: one JSON line per window of samples.",
            discussion: "Consecutive samples of one device (and one spot, when the lines name one) form a window.")

        @OptionGroup var store: StoreOptions

        @Option(name: .long, help: "The venue to locate in.")
        var venue: String

        @Option(name: .long, help: "Consecutive samples merged into one query (at least 1).")
        var window: Int = 1

        @Flag(name: .long, help: "Skip malformed lines instead of refusing the file.")
        var skipBad = false

        @Argument(help: ArgumentHelp("Scan log (JSON Lines), or - for standard input.", valueName: "file"))
        var file: String

        func validate() throws {
            guard window >= 1 else { throw ValidationError("--window must be at least 1 (got \(window)).") }
        }

        struct Answer: Encodable {
            var device: String
            var from: Double
            var to: Double
            var samples: Int
            var result: LocationReport
        }

        func run() async throws {
            let survey = try await store.open().survey(of: venue, scale: PositioningConfiguration.defaultScale)
            let configuration = survey.configuration
            if survey.tuning == nil {
                Output.standardError("note: venue '\(venue)' was never tuned; locating with the default configuration ('survey tune' chooses one)")
            }
            let map = try survey.radioMap(configuration: configuration)
            let input = try ScanLogInput(path: file, skipBad: skipBad, requireGroundTruth: false)
            var windows: [[Sample]] = []
            var key: String?
            for entry in input.lines {
                let sample = try entry.line.sample()
                let lineKey = "\(sample.device)\u{1F}\(entry.line.spot ?? "")"
                if lineKey != key || windows[windows.count - 1].count == window {
                    windows.append([])
                    key = lineKey
                }
                windows[windows.count - 1].append(sample)
            }
            for samples in windows {
                let result: LocationResult
                do {
                    result = configuration.locator.locate(try configuration.builder.fingerprint(of: samples), in: map)
                } catch {
                    result = LocationResult(outcome: .unknown(.noKnownBeacon), candidates: [], matchedBeacons: 0, unmappedBeacons: [])
                }
                try Output.jsonLine(Answer(
                    device: samples[0].device, from: samples[0].time, to: samples[samples.count - 1].time,
                    samples: samples.count, result: LocationReport(result, revision: survey.revision)))
            }
        }
    }
}
