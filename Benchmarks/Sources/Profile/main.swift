// Loops for a profiler (callgrind counts instructions reliably; perf samples time):
//   .build/release/Profile locate [fingerprints] [iterations]
//   .build/release/Profile record VENUE.json SURVEY.jsonl       (decode, build and store, phase by phase)
//   valgrind --tool=callgrind .build/release/Profile locate 100000 20
import FingerprintStore
import Foundation
import Positioning
import ScanFormats
import SyntheticVenues

let arguments = CommandLine.arguments
let clock = ContinuousClock()

switch arguments.count > 1 ? arguments[1] : "locate" {
case "record":
    let venue = try JSONDecoder().decode(VenueDefinition.self, from: Data(contentsOf: URL(fileURLWithPath: arguments[2])))
    let data = try Data(contentsOf: URL(fileURLWithPath: arguments[3]))
    var lines: [(number: Int, line: ScanLine)] = []
    let decoding = clock.measure { lines = ScanLogDecoder().decode(data).lines }
    var samples: [LabelledSample] = []
    let converting = try clock.measure {
        samples = try lines.map { LabelledSample(sample: try $0.line.sample(), truth: $0.line.groundTruth!) }
    }
    let configurationForBuild = PositioningConfiguration()
    let buildingOnly = clock.measure {
        var report = CleaningReport()
        for window in SampleWindows.windows(of: samples, size: configurationForBuild.surveyWindow) {
            _ = try? configurationForBuild.builder.fingerprint(of: window.map(\.sample), report: &report)
        }
    }
    print("fingerprints alone (windows, cleaning, building): \(buildingOnly)")
    let store = try FingerprintStore.inMemory()
    _ = try store.importVenue(venue)
    let configuration = PositioningConfiguration()
    let recording = try clock.measure {
        _ = try store.record(samples, into: venue.id, options: RecordOptions(windowSize: configuration.surveyWindow, builder: configuration.builder))
    }
    var survey: VenueSurvey?
    let loading = try clock.measure { survey = try store.survey(of: venue.id, scale: configuration.builder.scale) }
    var map: RadioMap?
    let building = try clock.measure { map = try survey!.radioMap() }
    let total = decoding + converting + recording
    print("""
        \(lines.count) lines: decode \(decoding), to samples \(converting), build and store \(recording); \
        \(Int(Double(lines.count) / (Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18))) lines/s
        radio map of \(map!.count) fingerprints: read from the store \(loading), laid out \(building)
        """)
default:
    let size = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
    let iterations = arguments.count > 3 ? Int(arguments[3]) ?? 100 : 100
    let venue = SyntheticVenue(fingerprints: size)
    let locator = PositioningConfiguration().locator
    let queries = venue.queries.map { venue.map.query(for: $0) }
    var located = 0
    let elapsed = clock.measure {
        for iteration in 0..<iterations {
            if locator.locate(queries[iteration % queries.count], in: venue.map).position != nil { located += 1 }
        }
    }
    print("\(iterations) locates on \(venue.map.count) fingerprints: \(elapsed / iterations) each, \(located) located")
}
