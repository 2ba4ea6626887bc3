import FingerprintStore
import Foundation
import Logging
import Positioning
import Testing
import TestSupport

/// `survey beacons`, `survey evaluate --adapt` with faults, and `replace-beacon accept`, end to end on
/// demo-hall, as separate processes on a real SQLite database.
@Suite("survey: beacon health commands end to end")
struct BeaconsCommandTests {
    let directory: URL
    let db: String
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("venues/demo-hall")

    init() throws {
        directory = try SurveyProcess.temporaryDirectory()
        db = directory.appendingPathComponent("test.sqlite").path
    }

    func survey(_ arguments: String...) throws -> SurveyProcess.Result {
        try SurveyProcess.run(arguments + ["--db", db])
    }

    /// demo-hall imported and recorded, tuned as `make run` leaves it (`tuned: false` skips the tuning).
    func demoHall(tuned: Bool = true) throws {
        #expect(try survey("venue", "import", Self.demo.appendingPathComponent("venue.json").path).status == 0)
        let record = tuned
            ? try survey("record", "--venue", "demo-hall", Self.demo.appendingPathComponent("survey.jsonl").path)
            : try survey("record", "--venue", "demo-hall", "--no-tune", Self.demo.appendingPathComponent("survey.jsonl").path)
        #expect(record.status == 0, "\(record.stderr)")
    }

    @Test("evaluate --adapt replays a walk as a live venue: a beacon killed is named, with the sample it came at", .timeLimit(.minutes(10)))
    func adaptiveReplay() throws {
        try demoHall()
        let walk = Self.demo.appendingPathComponent("walk.jsonl").path
        // When G7 dies from the start of the walk and the walk is replayed adapting
        let result = try survey("evaluate", "--venue", "demo-hall", "--test", walk, "--replay", "--adapt", "--kill", "G7@0%", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let adaptive = try #require(json["adaptive"] as? [String: Any])
        // Then G7 is named silent, and the fault's detection says after how many located samples
        let changes = adaptive["changes"] as? [[String: Any]] ?? []
        let silent = try #require(changes.first { $0["to"] as? String == "silent" })
        #expect(silent["label"] as? String == "G7")
        #expect(silent["sample"] is Int)
        let fault = try #require((adaptive["faults"] as? [[String: Any]])?.first)
        #expect((fault["samples_to_detect"] as? Int ?? 0) > 0)
        // And the text report says the same for people
        let text = try survey("evaluate", "--venue", "demo-hall", "--test", walk, "--replay", "--adapt", "--kill", "G7@0%")
        #expect(text.stdout.contains("G7 dead: named after"), "\(text.stdout)")
    }

    @Test("fault and adapt options are checked, with a sentence")
    func faultValidation() throws {
        try demoHall(tuned: false)
        let walk = Self.demo.appendingPathComponent("walk.jsonl").path
        let noTime = try survey("evaluate", "--venue", "demo-hall", "--test", walk, "--kill", "G7")
        #expect(noTime.status != 0 && noTime.stderr.contains("A fault is given as WHAT@T"))
        let unknown = try survey("evaluate", "--venue", "demo-hall", "--test", walk, "--kill", "G99@50%")
        #expect(unknown.status != 0 && unknown.stderr.contains("neither a beacon label"))
        let noWalk = try survey("evaluate", "--venue", "demo-hall", "--cross-validate", "--adapt")
        #expect(noWalk.status != 0 && noWalk.stderr.contains("--adapt needs --test FILE"))
        let badTime = try survey("evaluate", "--venue", "demo-hall", "--test", walk, "--shift", "G7:-10@noon")
        #expect(badTime.status != 0 && badTime.stderr.contains("T must be a share of the walk"))
        let selfSwap = try survey("evaluate", "--venue", "demo-hall", "--test", walk, "--swap", "G7,G7@50%")
        #expect(selfSwap.status != 0 && selfSwap.stderr.contains("cannot swap with itself"))
    }

    @Test("survey beacons lists every beacon, their states once positiond has taken evidence, and ops' actions go through", .timeLimit(.minutes(10)))
    func beaconsShowAndActions() async throws {
        try demoHall()
        // Before any evidence: every beacon listed, nothing concluded, and a reset refused with a sentence
        let empty = try survey("beacons", "--venue", "demo-hall")
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout.contains("positiond has taken none yet"))
        #expect(empty.stdout.contains("G7") && empty.stdout.contains("insufficient_evidence"))
        let early = try survey("beacons", "reset", "--venue", "demo-hall", "G7")
        #expect(early.status != 0 && early.stderr.contains("no beacon health yet"))
        // Given the evidence of the demo walk without G7, taken as positiond takes it
        let store = try FingerprintStore.open(path: db, logger: Logger(label: "test"))
        let venueSurvey = try await store.survey(of: "demo-hall", scale: PositioningConfiguration.defaultScale)
        let configuration = venueSurvey.configuration
        let map = try venueSurvey.radioMap(configuration: configuration)
        let expectations = BeaconExpectations(spots: venueSurvey.spots, survey: venueSurvey.fingerprints)
        let rules = try BeaconHealthCalibration.rules(spots: venueSurvey.spots, survey: venueSurvey.surveyed, configuration: configuration)
        let g7 = try #require(venueSurvey.venue.beacons.first { $0.label == "G7" }?.id)
        let walk = try String(contentsOf: Self.demo.appendingPathComponent("walk.jsonl"), encoding: .utf8).split(separator: "\n")
        var evidence = ScanEvidence(expectations: expectations, minimumPresence: rules.minimumPresence)
        var tracker = DeviceTracker(device: "walker", configuration: configuration.tracking)
        var samples: [LocatedSample] = []
        for line in walk {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let readings = try (json["beacons"] as? [[String: Any]] ?? []).map {
                Reading(beacon: try BeaconID(uuidString: $0["uuid"] as! String, major: $0["major"] as! Int, minor: $0["minor"] as! Int), rssi: $0["rssi"] as! Double)
            }.filter { $0.beacon != g7 }
            let sample = Sample(device: "walker", time: json["t"] as! Double, readings: readings)
            guard let position = (try? tracker.update(with: sample, builder: configuration.builder, locator: configuration.locator, map: map))?.position,
                let located = evidence.evidence(
                    of: configuration.builder.cleaner.clean(sample), x: position.x, y: position.y, floor: position.floor, device: 1)
            else { continue }
            samples.append(located)
        }
        try await store.recordBeaconEvidence(venue: "demo-hall", revision: venueSurvey.revision, samples: samples)
        _ = try await store.advanceBeaconHealth(venue: "demo-hall", revision: venueSurvey.revision) { _, pending in
            var monitor = BeaconHealthMonitor(beacons: expectations.beacons, rules: rules)
            var changes: [BeaconStateChange] = []
            for sample in pending { changes += monitor.observe(sample, expectations: expectations).changes }
            return BeaconHealthStep(monitor: monitor, changes: changes, proposals: [])
        }
        // Then survey beacons shows G7 silent, as text and JSON
        let shown = try survey("beacons", "--venue", "demo-hall")
        #expect(shown.stdout.split(separator: "\n").contains { $0.contains("G7") && $0.contains("silent") }, "\(shown.stdout)")
        let json = try survey("beacons", "show", "--venue", "demo-hall", "--json")
        #expect(json.stdout.contains(#""state" : "silent""#))
        // And the history lists the change; a hold and a reset are recorded with who did them
        #expect(try survey("beacons", "history", "--venue", "demo-hall").stdout.contains("-> silent"))
        let hold = try survey("beacons", "hold", "--venue", "demo-hall", "--operator", "ana", "G7")
        #expect(hold.status == 0 && hold.stdout.contains("Held G7"), "\(hold.stderr)")
        #expect(try survey("beacons", "release", "--venue", "demo-hall", "G7").stdout.contains("Released G7"))
        let reset = try survey("beacons", "reset", "--venue", "demo-hall", "--operator", "ana", "G7")
        #expect(reset.status == 0 && reset.stdout.contains("silent -> insufficient_evidence"), "\(reset.stderr)")
        #expect(try survey("beacons", "history", "--venue", "demo-hall").stdout.contains("by ana"))
        // And a proposal number that is not there is refused with a sentence
        let missing = try survey("replace-beacon", "accept", "--venue", "demo-hall", "7")
        #expect(missing.status != 0 && missing.stderr.contains("no beacon proposal 7"))
        let zero = try survey("replace-beacon", "accept", "--venue", "demo-hall", "0")
        #expect(zero.status != 0 && zero.stderr.contains("N must be a proposal number"))
        let dismissMissing = try survey("replace-beacon", "dismiss", "--venue", "demo-hall", "--operator", "ana", "7")
        #expect(dismissMissing.status != 0 && dismissMissing.stderr.contains("no beacon proposal 7"), "\(dismissMissing.stderr)")
        let dismissZero = try survey("replace-beacon", "dismiss", "--venue", "demo-hall", "0")
        #expect(dismissZero.status != 0 && dismissZero.stderr.contains("N must be a proposal number"))
    }
}
