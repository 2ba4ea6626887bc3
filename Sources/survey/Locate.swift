import ArgumentParser
import FingerprintStore
import Foundation
import Positioning
import PositioningTuning

extension Survey {
    /// `survey locate`: positiond's answer, offline.
    struct Locate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Locate scans against a venue's survey, offline: one JSON line per window of samples.",
            discussion: """
                Consecutive samples of one device (and one spot, when the lines name one) form a window. Each \
                window goes through positiond's stateless locate: readings cleaned, frozen beacons dropped, one \
                fingerprint matched against the venue's radio map with its tuned configuration. A window with no \
                usable reading or no beacon of the venue, which positiond refuses, is answered unknown with \
                reason no_known_beacon. When the venue has a geographic anchor (venue.json's geo), each \
                position also carries lat and lon (WGS84 degrees), as positiond's do.
                """)

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
            let pipeline = LocatePipeline(configuration: configuration, map: try survey.radioMap(configuration: configuration))
            let input = try ScanLogInput(path: file, skipBad: skipBad, requireGroundTruth: false)
            let scans = try input.lines.map { SpotLabelledSample(sample: try $0.line.sample(), spot: $0.line.spot) }
            for labelled in SampleWindows.windows(of: scans, size: window) {
                let samples = labelled.map(\.sample)
                let result: LocationResult
                do {
                    result = try pipeline.locate(samples)
                } catch {
                    // Every window gets its line, so the output keeps step with the input.
                    result = LocationResult(refused: error)
                }
                try Output.jsonLine(Answer(
                    device: samples[0].device, from: samples[0].time, to: samples[samples.count - 1].time,
                    samples: samples.count, result: LocationReport(result, revision: survey.revision, anchor: survey.venue.geo)))
            }
        }
    }
}
