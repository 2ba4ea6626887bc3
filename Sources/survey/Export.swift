import ArgumentParser
import FingerprintStore
import Foundation
import Positioning

extension Survey {
    /// `survey export`: a venue and its fingerprints as files that `survey import` reads back exactly.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a venue's definition, floor plans and fingerprints to a directory (venue.json, plans, fingerprints.jsonl).",
            discussion: """
                venue.json is the definition format, with retired beacons marked "status": "retired". \
                fingerprints.jsonl holds one stored fingerprint a line: spot, device, time, samples, its survey \
                session and its per-beacon entries (relative_power, mean_rssi, dispersion, visibility). Each floor \
                plan's image is written byte for byte at the path its "plan" names, relative to venue.json. 'survey \
                import DIR' into a fresh database reproduces every value.
                """)

        @OptionGroup var store: StoreOptions

        @Option(name: .long, help: "The venue to export.")
        var venue: String

        @Option(name: .long, help: ArgumentHelp("The directory to write (created if needed).", valueName: "dir"))
        var out: String

        func run() async throws {
            let fingerprintStore = try await store.open()
            let details = try await fingerprintStore.venue(venue)
            let fingerprints = try await fingerprintStore.exportFingerprints(of: venue)
            let plans = try await fingerprintStore.floorPlans(of: venue)
            let directory = URL(fileURLWithPath: out, isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)

            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(details.definition(includingRetired: true))
                .write(to: directory.appendingPathComponent("venue.json"))
            try PlanFiles.write(plans, to: directory)
            let lineEncoder = JSONEncoder()
            lineEncoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var lines = Data()
            for fingerprint in fingerprints {
                lines.append(try lineEncoder.encode(fingerprint))
                lines.append(UInt8(ascii: "\n"))
            }
            try lines.write(to: directory.appendingPathComponent("fingerprints.jsonl"))
            print("Exported venue '\(venue)' (revision \(details.revision)): \(fingerprints.count) fingerprints, \(plans.count) floor plans to \(out)")
        }
    }
}
