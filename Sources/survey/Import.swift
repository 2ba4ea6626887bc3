import ScanFormats
import ArgumentParser
import FingerprintStore
import Foundation
import Positioning

extension Survey {
    /// `survey import`: read back what `survey export` wrote.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import an exported venue (venue.json, its floor plans and fingerprints.jsonl from 'survey export').")

        @OptionGroup var store: StoreOptions

        @Argument(help: ArgumentHelp("The directory 'survey export' wrote.", valueName: "dir"))
        var directory: String

        func run() async throws {
            let folder = URL(fileURLWithPath: directory, isDirectory: true)
            func read(_ name: String) throws -> Data {
                guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else {
                    throw CLIError("cannot read \(directory)/\(name): is this a directory written by 'survey export'?")
                }
                return data
            }
            let definition: VenueDefinition
            do {
                definition = try JSONDecoder().decode(VenueDefinition.self, from: try read("venue.json"))
            } catch let error as DecodingError {
                throw CLIError("\(directory)/venue.json: \(ScanLogDecoder.explain(error))")
            }
            let plans = try PlanFiles.read(for: definition, in: folder)
            var fingerprints: [ExportedFingerprint] = []
            let decoder = JSONDecoder()
            for (index, line) in try read("fingerprints.jsonl").split(separator: UInt8(ascii: "\n")).enumerated() {
                do {
                    fingerprints.append(try decoder.decode(ExportedFingerprint.self, from: line))
                } catch let error as DecodingError {
                    throw CLIError("\(directory)/fingerprints.jsonl:\(index + 1): \(ScanLogDecoder.explain(error)); nothing was written")
                }
            }
            let fingerprintStore = try await store.open(creating: true)
            // Venue and fingerprints in one transaction: on any failure nothing is written.
            let summary: FingerprintImportSummary
            do {
                summary = try await fingerprintStore.importExport(venue: definition, plans: plans, fingerprints: fingerprints)
            } catch let error as StoreError {
                throw CLIError("\(error); nothing was written")
            }
            print("Imported venue '\(summary.venue)' (revision \(summary.revision)): \(summary.fingerprints) fingerprints, \(summary.entries) entries, \(summary.sessions) sessions.")
        }
    }
}
