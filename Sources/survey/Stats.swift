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

        func run() async throws {
            let stats = try store.open().stats(of: venue)
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
    }
}
