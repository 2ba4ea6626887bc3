import FingerprintStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Positioning
import positiond
import ScanFormats
import Testing
import TestSupport
import VenueSimulator

/// `survey upload`, the real binary, against a real positiond on a real socket: a scan log sent as a
/// survey session through the generated client, stopped half way and resumed.
@Suite("survey upload against a running positiond")
struct SurveyUploadCommandTests {
    /// The journal's acknowledged batch ids, or none while it is not written yet.
    static func acknowledged(_ journal: URL) -> [String] {
        guard let data = FileManager.default.contents(atPath: journal.path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [] }
        return object["acknowledged"] as? [String] ?? []
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test("an upload stopped half way resumes with only the unacknowledged batches, lost answers are not stored twice, the commit records what survey record records, and a re-run sends nothing")
    func resumedUpload() async throws {
        // Given positiond on the demo venue with a survey key, and the demo survey log in a folder
        let store = try await TestEnvironment.demoStore()
        let key = try await store.createKey(name: "rig", scope: .survey)
        let folder = try ScratchSpace.directory("upload")
        let log = folder.appendingPathComponent("survey.jsonl")
        try TestEnvironment.demoFile("survey.jsonl").write(to: log)
        let journal = folder.appendingPathComponent("survey.jsonl.upload.json")
        let lines = try TestEnvironment.demoFile("survey.jsonl").split(separator: UInt8(ascii: "\n")).count
        // And what survey record stores from the same log (a copy of the store before the upload)
        let configuration = PositioningConfiguration()
        let expected = try await TestEnvironment.untunedDemoStore().record(
            from: ScanLogSamples(try Data(contentsOf: log), skipBad: false), into: "demo-hall",
            options: RecordOptions(windowSize: configuration.surveyWindow, builder: configuration.builder))
        let revisionBefore = try await store.venue("demo-hall").revision
        let app = try await TestEnvironment.app(store: store)
        try await app.test(.live) { client in
            let server = "http://127.0.0.1:\(try #require(client.port))"
            let command = ["upload", "--to", server, "--venue", "demo-hall", "--operator", "ana", "--json", log.path]
            // When an upload of two samples a batch is interrupted once the server has acknowledged some
            let stopped = try await SurveyProcess.run(command + ["--batch", "2"], environment: ["BEACONFIX_KEY": key.token]) { process in
                while process.isRunning, Self.acknowledged(journal).count < 10 { try await Task.sleep(for: .milliseconds(5)) }
                process.interrupt()
            }
            #expect(stopped.status != 0, "the upload must have been stopped before it finished: \(stopped.stdout)")
            let acknowledgedBefore = Self.acknowledged(journal)
            #expect(acknowledgedBefore.count >= 10)
            // And the answers to its last two batches are lost (the journal never heard of them)
            var stored = try Self.json(String(decoding: try Data(contentsOf: journal), as: UTF8.self))
            let session = try #require(stored["session"] as? String)
            stored["acknowledged"] = Array(acknowledgedBefore.dropLast(2))
            try JSONSerialization.data(withJSONObject: stored).write(to: journal)
            // And the same command is run again (its --batch differs: the journal's size is kept)
            let resumed = try await SurveyProcess.run(command + ["--batch", "50"], environment: ["BEACONFIX_KEY": key.token])
            // Then it sends only what had not been stored, into the same session, and commits it
            #expect(resumed.status == 0, "\(resumed.stderr)")
            let summary = try Self.json(resumed.stdout)
            let batches = (lines + 1) / 2
            #expect(summary["batches"] as? Int == batches)
            // (the server may hold more than the journal says: a batch in flight when the upload was stopped)
            let alreadyStored = try #require(summary["batches_already_stored"] as? Int)
            #expect(alreadyStored >= acknowledgedBefore.count, "the journal's, and those the server recognised")
            #expect(summary["batches_sent"] as? Int == batches - alreadyStored)
            #expect(summary["committed"] as? Bool == true)
            #expect(summary["session"] as? String == session)
            // And the session holds every line once, recorded as survey record records them
            let upload = try await store.surveyUpload(session, of: "demo-hall")
            #expect(upload.samples == lines && upload.batches == batches && upload.state == .committed && upload.operator == "ana")
            #expect(upload.fingerprints == expected.fingerprints && summary["fingerprints"] as? Int == expected.fingerprints)
            #expect(try #require(upload.revision) > revisionBefore)
            // When it is run a third time
            let again = try await SurveyProcess.run(command + [], environment: ["BEACONFIX_KEY": key.token])
            // Then nothing is sent
            #expect(again.status == 0, "\(again.stderr)")
            let repeated = try Self.json(again.stdout)
            #expect(repeated["already_committed"] as? Bool == true && repeated["batches_sent"] as? Int == 0)
            #expect(try await store.surveyUpload(session, of: "demo-hall").samples == lines)
        }
    }

    @Test("refusals are one sentence and send nothing: a key without the survey scope, an unknown venue, a server that is not there, a log changed since its upload began")
    func refusals() async throws {
        // Given positiond on the demo venue, a locate key and a survey key, and a log
        let store = try await TestEnvironment.demoStore()
        let locateKey = try await store.createKey(name: "app", scope: .locate)
        let surveyKey = try await store.createKey(name: "rig", scope: .survey)
        let folder = try ScratchSpace.directory("upload")
        let log = folder.appendingPathComponent("survey.jsonl")
        let survey = try TestEnvironment.demoFile("survey.jsonl").split(separator: UInt8(ascii: "\n"))
        let shortLog = Data(survey.prefix(40).joined(separator: [UInt8(ascii: "\n")])), longerLog = Data(survey.prefix(60).joined(separator: [UInt8(ascii: "\n")]))
        try shortLog.write(to: log)
        let app = try await TestEnvironment.app(store: store)
        try await app.test(.live) { client in
            let server = "http://127.0.0.1:\(try #require(client.port))"
            // When the key may only locate
            let forbidden = try await SurveyProcess.run(
                ["upload", "--to", server, "--venue", "demo-hall", "--key", locateKey.token, log.path], environment: [:])
            // Then the refusal names the scope it needs, and no journal is written
            #expect(forbidden.status == 1 && forbidden.stderr.contains("403") && forbidden.stderr.contains("survey scope"), "\(forbidden.stderr)")
            #expect(!forbidden.stderr.contains(locateKey.token))
            #expect(!FileManager.default.fileExists(atPath: log.path + ".upload.json"))
            // When the venue is unknown
            let unknown = try await SurveyProcess.run(
                ["upload", "--to", server, "--venue", "nowhere", log.path], environment: ["BEACONFIX_KEY": surveyKey.token])
            #expect(unknown.status == 1 && unknown.stderr.contains("404") && unknown.stderr.contains("nowhere"), "\(unknown.stderr)")
            // When no server listens at the address (one try)
            let absent = try await SurveyProcess.run(
                ["upload", "--to", "http://127.0.0.1:9", "--venue", "demo-hall", "--attempts", "1", "--timeout", "1", log.path],
                environment: ["BEACONFIX_KEY": surveyKey.token])
            #expect(absent.status == 1 && absent.stderr.contains("cannot reach http://127.0.0.1:9"), "\(absent.stderr)")
            // When an upload left open is resumed after its log changed
            let open = try await SurveyProcess.run(
                ["upload", "--to", server, "--venue", "demo-hall", "--no-commit", "--json", log.path], environment: ["BEACONFIX_KEY": surveyKey.token])
            #expect(open.status == 0, "\(open.stderr)")
            // And survey stats reads what the open session holds, as the store says it
            let openSession = try #require(try Self.json(open.stdout)["session"] as? String)
            let stats = try await SurveyProcess.run(
                ["stats", "--db", store.path, "--venue", "demo-hall", "--session", openSession, "--json"], environment: [:])
            #expect(stats.status == 0, "\(stats.stderr)")
            let statsJSON = try Self.json(stats.stdout)
            let expected = try await store.surveyUploadCoverage(openSession, of: "demo-hall")
            #expect((statsJSON["session"] as? [String: Any])?["samples"] as? Int == 40 && statsJSON["path_points"] as? Int == 40)
            #expect(statsJSON["thin_spots"] as? [String] == expected.thinSpots.map(\.spot))
            #expect((statsJSON["spots"] as? [[String: Any]])?.map { $0["samples"] as? Int } == expected.spots.map(\.samples))
            try longerLog.write(to: log)
            let changed = try await SurveyProcess.run(
                ["upload", "--to", server, "--venue", "demo-hall", log.path], environment: ["BEACONFIX_KEY": surveyKey.token])
            // Then it is refused, naming the journal to delete, and the open session is untouched
            #expect(changed.status == 1 && changed.stderr.contains("has changed since its upload began"), "\(changed.stderr)")
            let journal = try Self.json(String(decoding: try Data(contentsOf: URL(fileURLWithPath: log.path + ".upload.json")), as: UTF8.self))
            let session = try await store.surveyUpload(try #require(journal["session"] as? String), of: "demo-hall")
            #expect(session.state == .open && session.samples > 0)
        }
    }

    @Test("a walking survey uploaded with --path: the checkpoints go first, a bad one is named by its line in the path file, and the commit places the lines as survey record --path does")
    func walkingUpload() async throws {
        // Given positiond on the demo venue with a survey key, and ten minutes of a simulated walk as a log without coordinates and a path file
        let store = try await TestEnvironment.demoStore()
        let key = try await store.createKey(name: "rig", scope: .survey)
        let folder = try ScratchSpace.directory("walk-upload")
        let venue = try SimulatedVenues.demoHall(seed: 7)
        var generator = SeededGenerator(seed: 11)
        let stops = venue.definition.spots.map { SimulatedStop(name: $0.name, x: $0.x, y: $0.y, floor: $0.floor) }
        let walk = venue.walkingSurvey(stops: stops, device: SimulatedVenues.surveyDevices[0], seconds: 600, startTime: 1_795_000_000, using: &generator)
        let log = folder.appendingPathComponent("walk.jsonl")
        try ScanLine.jsonLines(walk.lines).write(to: log)
        let spots = try await store.venue("demo-hall").spots
        let entries = walk.checkpoints.map { checkpoint in
            let via = checkpoint.via.isEmpty ? nil : checkpoint.via.map { [$0.x, $0.y] }
            if let spot = spots.first(where: { $0.x == checkpoint.position.x && $0.y == checkpoint.position.y && $0.floor == checkpoint.position.floor }) {
                return WalkPathFile.Entry(t: checkpoint.time, spot: spot.name, via: via)
            }
            return WalkPathFile.Entry(t: checkpoint.time, x: checkpoint.position.x, y: checkpoint.position.y, floor: checkpoint.position.floor, via: via)
        }
        let pathFile = folder.appendingPathComponent("path.jsonl")
        try WalkPathFile.jsonLines(entries).write(to: pathFile)
        var wrong = entries
        wrong[2] = WalkPathFile.Entry(t: entries[2].t, spot: "G-Z9")
        let wrongPathFile = folder.appendingPathComponent("wrong-path.jsonl")
        try WalkPathFile.jsonLines(wrong).write(to: wrongPathFile)
        // And what survey record --path stores from the same files
        let configuration = PositioningConfiguration()
        let reference = try await TestEnvironment.untunedDemoStore()
        let source = ScanLogSamples(
            try Data(contentsOf: log), skipBad: false,
            walk: WalkingSurvey(
                path: try WalkPathFile.path(from: try Data(contentsOf: pathFile), spots: spots),
                spots: WalkSpotAssignment(spots: spots, cellSize: 1, snapDistance: 0.5)))
        let expected = try await reference.record(
            from: source, into: "demo-hall", options: RecordOptions(windowSize: configuration.surveyWindow, builder: configuration.builder))
        let app = try await TestEnvironment.app(store: store)
        try await app.test(.live) { client in
            let server = "http://127.0.0.1:\(try #require(client.port))"
            let command = ["upload", "--to", server, "--venue", "demo-hall", "--batch", "50", log.path]
            // When the path file names a spot the venue lacks
            let refused = try await SurveyProcess.run(
                command + ["--path", wrongPathFile.path, "--journal", folder.appendingPathComponent("wrong.json").path], environment: ["BEACONFIX_KEY": key.token])
            // Then the upload stops naming its line in the path file
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("\(wrongPathFile.path):3: the venue has no spot 'G-Z9'"), "\(refused.stderr)")
            // When the right path file is given
            let uploaded = try await SurveyProcess.run(command + ["--path", pathFile.path, "--json"], environment: ["BEACONFIX_KEY": key.token])
            // Then the lines are placed and recorded as survey record --path places and records them
            #expect(uploaded.status == 0, "\(uploaded.stderr)")
            let summary = try Self.json(uploaded.stdout)
            let placement = try #require(summary["placement"] as? [String: Any])
            #expect(placement["placed"] as? Int == source.walkPlacements.placed)
            #expect(placement["after_last_checkpoint"] as? Int == source.walkPlacements.afterLastCheckpoint)
            #expect(summary["fingerprints"] as? Int == expected.fingerprints)
            #expect(summary["batches"] as? Int == (walk.lines.count + 49) / 50 + (entries.count + 49) / 50)
            let session = try await store.surveyUpload(try #require(summary["session"] as? String), of: "demo-hall")
            #expect(session.walk == SurveyWalkSettings() && session.checkpoints == entries.count && session.state == .committed)
        }
    }
}
