import ArgumentParser
import FingerprintStore

extension Survey {
    /// `survey stats`.
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Counts of a venue's survey and where it is thin: beacons never or rarely seen, spots to revisit.")

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        @Option(name: .long, help: "The venue.")
        var venue: String

        @Option(name: .long, help: ArgumentHelp("An open survey session of the venue (as positiond answered its opening): what it holds so far instead.", valueName: "id"))
        var session: String?

        func validate() throws {
            guard !venue.isEmpty else { throw ValidationError("--venue must name a venue.") }
            if let session, session.isEmpty { throw ValidationError("--session must name a survey session.") }
        }

        func run() async throws {
            if let session { return try await sessionStats(session) }
            let stats = try await store.open().stats(of: venue)
            if output.json { return try Output.json(stats) }
            print("""
                Venue '\(stats.venue)', revision \(stats.revision): \(stats.floors) floors, \(stats.spots) spots, \
                \(stats.activeBeacons) active and \(stats.retiredBeacons) retired beacons, \(stats.sessions) survey sessions, \
                \(stats.fingerprints) fingerprints, \(stats.entries) beacon entries.
                """)
            print(stats.beaconsNeverSeen.isEmpty
                ? "Every active beacon is seen by the survey."
                : "Beacons never seen (\(stats.beaconsNeverSeen.count)): \(stats.beaconsNeverSeen.joined(separator: ", "))")
            if !stats.beaconsSeenAtFewSpots.isEmpty {
                print("Beacons seen at fewer than 3 spots:")
                for beacon in stats.beaconsSeenAtFewSpots {
                    print("  \(beacon.beacon) \(beacon.label ?? ""): \(beacon.spots) spots, \(beacon.fingerprints) fingerprints")
                }
            }
            print(stats.thinSpots.isEmpty
                ? "No thin spot: every spot has at least 3 fingerprints seeing at least 3 beacons."
                : "Thin spots (\(stats.thinSpots.count)): " + stats.thinSpots.map { "\($0.spot) (\($0.total) fingerprints, \($0.medianBeacons) beacons)" }.joined(separator: ", "))
        }

        /// What an open survey session holds, by the thin-spot rule on its samples alone.
        private func sessionStats(_ id: String) async throws {
            let coverage: SurveyUploadCoverage
            do {
                coverage = try await store.open().surveyUploadCoverage(id, of: venue)
            } catch let error as StoreError {
                throw CLIError("\(error)")
            }
            if output.json { return try Output.json(SessionStatsOutput(coverage)) }
            let upload = coverage.upload
            print("""
                Survey session \(upload.id) of '\(upload.venue)' (\(upload.state.rawValue)\(upload.operator.map { ", " + $0 } ?? "")): \
                \(upload.samples) samples in \(upload.batches) batches at \(coverage.spots.count) spots.
                """)
            if upload.state != .open {
                print("It is \(upload.state.rawValue): its samples are \(upload.state == .committed ? "in the venue's survey ('survey stats --venue \(venue)')" : "deleted").")
                return
            }
            for spot in coverage.spots {
                print("  \(spot.spot): \(spot.samples) samples, \(spot.medianBeacons) beacons\(spot.isThin ? " (thin)" : "")")
            }
            print(coverage.thinSpots.isEmpty
                ? "No thin spot: every spot of the session has at least 3 samples seeing at least 3 beacons."
                : "Thin spots (\(coverage.thinSpots.count)): " + coverage.thinSpots.map(\.spot).joined(separator: ", "))
        }
    }
}

/// `stats --session --json`: the session's coverage with each spot's thin flag.
struct SessionStatsOutput: Encodable {
    struct Spot: Encodable {
        var spot: String
        var x: Double
        var y: Double
        var floor: Int
        var samples: Int
        var medianBeacons: Int
        var thin: Bool
    }

    var session: SurveyUpload
    var spots: [Spot]
    var thinSpots: [String]
    var pathPoints: Int

    init(_ coverage: SurveyUploadCoverage) {
        session = coverage.upload
        spots = coverage.spots.map {
            Spot(spot: $0.spot, x: $0.x, y: $0.y, floor: $0.floor, samples: $0.samples, medianBeacons: $0.medianBeacons, thin: $0.isThin)
        }
        thinSpots = coverage.thinSpots.map(\.spot)
        pathPoints = coverage.path.count
    }
}
