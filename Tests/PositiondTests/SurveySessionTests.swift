import BeaconfixClient
import FingerprintStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Positioning
import PositioningTuning
import positiond
import ScanFormats
import TestSupport
import Testing
import VenueSimulator

/// Survey sessions over HTTP, end to end: a surveyor's app (through the generated client) records the demo
/// venue's survey into a real positiond on PostgreSQL, and a second replica on the same database serves
/// the new revision.
@Suite("positiond: survey sessions over HTTP")
struct SurveySessionTests {
    /// demo-hall imported into `store` (floors, beacons, spots, plans), without a survey.
    static func importDemoVenue(into store: FingerprintStore) async throws {
        let definition = try JSONDecoder().decode(VenueDefinition.self, from: TestEnvironment.demoFile("venue.json"))
        var plans: [Int: FloorPlanImage] = [:]
        for floor in definition.floors {
            guard let plan = floor.plan else { continue }
            plans[floor.level] = try FloorPlanImage(data: TestEnvironment.demoFile(plan.image), path: plan.image)
        }
        _ = try await store.importVenue(definition, plans: plans)
    }

    static func samples(_ lines: some Sequence<ScanLine>) -> [BeaconfixClient.Components.Schemas.SurveySample] {
        lines.map { line in
            .init(
                t: line.t, device: line.device, spot: line.spot, x: line.x, y: line.y, floor: line.floor,
                beacons: line.beacons.map { .init(uuid: $0.uuid, major: $0.major, minor: $0.minor, rssi: $0.rssi) })
        }
    }

    @Test("a session posted in batches (one re-sent, one refused) and committed records what survey record records, is re-tuned, and reaches a second replica on PostgreSQL")
    func endToEnd() async throws {
        // Given demo-hall without a survey on PostgreSQL, two positiond replicas on it, and a survey key
        let (primaryStore, replicaStore) = try await TestEnvironment.postgresReplicaStores()
        try await Self.importDemoVenue(into: primaryStore)
        let key = try await primaryStore.createKey(name: "surveyor", scope: .survey)
        let app = try await TestEnvironment.app(store: primaryStore)
        let replica = try await TestEnvironment.app(store: replicaStore)
        let lines = ScanLogDecoder().decode(try TestEnvironment.demoFile("survey.jsonl")).lines.map(\.line)
        try await replica.test(.live) { replicaClient in
            let replicaPort = try #require(replicaClient.port)
            let onReplica = Client(serverURL: URL(string: "http://127.0.0.1:\(replicaPort)")!, apiKey: key.token)
            try await app.test(.live) { raw in
                let beaconfix = Client(serverURL: URL(string: "http://127.0.0.1:\(try #require(raw.port))")!, apiKey: key.token)
                let before = try await onReplica.getVenue(path: .init(venue: "demo-hall")).ok.body.json.revision
                // When the surveyor's app opens a session
                let opened = try await beaconfix.openSurveySession(
                    path: .init(venue: "demo-hall"), body: .json(.init(_operator: "ana", deviceModel: "iPhone 13", notes: "both floors"))).created.body.json
                #expect(opened.state == .open && opened.samples == 0)
                let session = opened.id
                // And posts the survey in batches of 20 (the test server takes bodies of 64 KiB), one of them twice (its answer was lost)
                var batches = 0
                for start in stride(from: 0, to: lines.count, by: 20) {
                    let batch = Array(lines[start..<min(start + 20, lines.count)])
                    let receipt = try await beaconfix.postSurveyBatch(
                        path: .init(venue: "demo-hall", session: session), body: .json(.init(batchId: "b\(batches)", samples: Self.samples(batch)))).ok.body.json
                    #expect(!receipt.duplicate)
                    batches += 1
                }
                let resent = try await beaconfix.postSurveyBatch(
                    path: .init(venue: "demo-hall", session: session), body: .json(.init(batchId: "b1", samples: Self.samples(lines[20..<40])))).ok.body.json
                #expect(resent.duplicate && resent.session.samples == lines.count && resent.session.batches == batches)
                // And one batch with an RSSI no radio reports
                var bad = Self.samples(lines[0..<3])
                bad[2].beacons[0].rssi = 40
                let refused = try await beaconfix.postSurveyBatch(
                    path: .init(venue: "demo-hall", session: session), body: .json(.init(batchId: "bad", samples: bad)))
                // Then that batch is a 422 naming the sample, and nothing of it is stored
                guard case .unprocessableContent(let problem) = refused else {
                    Issue.record("expected a 422, got \(refused)")
                    return
                }
                #expect(try problem.body.json.error.message.contains("samples[2]"), "\(problem)")
                #expect(try await beaconfix.getSurveySession(path: .init(venue: "demo-hall", session: session)).ok.body.json.samples == lines.count)
                // And until the commit, the venue has no fingerprint
                await #expect(try primaryStore.venue("demo-hall").fingerprints == 0)
                // When the session is committed
                let committed = try await beaconfix.commitSurveySession(path: .init(venue: "demo-hall", session: session)).ok.body.json
                #expect(committed.state == .committed && committed.tuning == .started)
                // Then the venue holds exactly what survey record makes of the same lines
                let reference = try FingerprintStore.inMemory(logger: TestEnvironment.logger)
                try await Self.importDemoVenue(into: reference)
                let configuration = PositioningConfiguration()
                let expected = try await reference.record(
                    lines.map { LabelledSample(sample: try $0.sample(), truth: $0.groundTruth!) }, into: "demo-hall",
                    options: RecordOptions(windowSize: configuration.surveyWindow, builder: configuration.builder))
                #expect(committed.fingerprints == expected.fingerprints && committed.revision == expected.revision)
                let stored = try await primaryStore.survey(of: "demo-hall", scale: PositioningConfiguration.defaultScale)
                let recorded = try await reference.survey(of: "demo-hall", scale: PositioningConfiguration.defaultScale)
                #expect(stored.surveyed.map(\.fingerprint) == recorded.surveyed.map(\.fingerprint))
                // And a second commit is a conflict
                guard case .conflict = try await beaconfix.commitSurveySession(path: .init(venue: "demo-hall", session: session)) else {
                    Issue.record("committing twice must be a 409")
                    return
                }
                // And the venue is re-tuned in the background: a tuning stored at the recorded revision, and the
                // replica serves the revision after it
                let tuned = try #require(committed.revision).advanced(by: 1)
                try await eventually("the re-tuned revision served", timeout: .seconds(120), every: .milliseconds(200)) {
                    try await onReplica.getVenue(path: .init(venue: "demo-hall")).ok.body.json.revision >= tuned
                }
                await #expect(try primaryStore.tuning(of: "demo-hall")?.result != nil)
                #expect(before < tuned)
                // And the replica locates with it
                let walk = try TestEnvironment.walk
                let located = try await onReplica.locate(
                    path: .init(venue: "demo-hall"), body: .json(.init(samples: ClientLibraryTests.samples(walk[0..<5])))).ok.body.json
                #expect(located.position != nil && located.revision >= tuned)
            }
        }
    }

    @Test("scopes: a locate key cannot open a session; a survey key can, and can still locate; an unknown session is a 404; an abandoned one takes no batch")
    func scopesAndStates() async throws {
        // Given the demo store with a locate key and a survey key, opened read-only as positiond opens a file
        let writer = try await TestEnvironment.demoStore()
        let locateKey = try await writer.createKey(name: "app", scope: .locate)
        let surveyKey = try await writer.createKey(name: "surveyor", scope: .survey)
        let store = try FingerprintStore.open(path: writer.path, role: .daemon, logger: TestEnvironment.logger)
        let app = try await TestEnvironment.app(store: store)
        try await app.test(.live) { raw in
            let server = URL(string: "http://127.0.0.1:\(try #require(raw.port))")!
            let asApp = Client(serverURL: server, apiKey: locateKey.token)
            let asSurveyor = Client(serverURL: server, apiKey: surveyKey.token)
            // Then the app's key is refused, naming the scope
            guard case .forbidden(let refusal) = try await asApp.openSurveySession(path: .init(venue: "demo-hall"), body: .json(.init())) else {
                Issue.record("a locate key must not open a survey session")
                return
            }
            #expect(try refusal.body.json.error.message.contains("needs 'survey'"))
            // And the surveyor's key opens one, and may locate too
            let session = try await asSurveyor.openSurveySession(path: .init(venue: "demo-hall"), body: .json(.init())).created.body.json
            let walk = try TestEnvironment.walk
            _ = try await asSurveyor.locate(path: .init(venue: "demo-hall"), body: .json(.init(samples: ClientLibraryTests.samples(walk[0..<5])))).ok
            // And a batch is stored through the daemon's own connection (the survey itself is read-only to it)
            let surveyLines = ScanLogDecoder().decode(try TestEnvironment.demoFile("survey.jsonl")).lines.map(\.line)
            let receipt = try await asSurveyor.postSurveyBatch(
                path: .init(venue: "demo-hall", session: session.id), body: .json(.init(batchId: "first", samples: SurveySessionTests.samples(surveyLines[0..<2])))).ok.body.json
            #expect(receipt.session.samples == 2)
            // When the session is abandoned
            let abandoned = try await asSurveyor.abandonSurveySession(path: .init(venue: "demo-hall", session: session.id)).ok.body.json
            #expect(abandoned.state == .abandoned)
            // Then it takes no batch (409), an unknown session is a 404, and an unknown venue too
            let lines = ScanLogDecoder().decode(try TestEnvironment.demoFile("survey.jsonl")).lines.map(\.line)
            let late = try await asSurveyor.postSurveyBatch(
                path: .init(venue: "demo-hall", session: session.id), body: .json(.init(batchId: "late", samples: SurveySessionTests.samples(lines[0..<2]))))
            guard case .conflict = late else {
                Issue.record("an abandoned session must refuse batches with a 409, got \(late)")
                return
            }
            guard case .notFound = try await asSurveyor.getSurveySession(path: .init(venue: "demo-hall", session: "ses_nope")) else {
                Issue.record("an unknown session must be a 404")
                return
            }
            guard case .notFound = try await asSurveyor.openSurveySession(path: .init(venue: "nowhere"), body: .json(.init())) else {
                Issue.record("an unknown venue must be a 404")
                return
            }
            // When another session is committed on this read-only file
            let second = try await asSurveyor.openSurveySession(path: .init(venue: "demo-hall"), body: .json(.init(_operator: "ana"))).created.body.json
            _ = try await asSurveyor.postSurveyBatch(
                path: .init(venue: "demo-hall", session: second.id), body: .json(.init(batchId: "1", samples: SurveySessionTests.samples(surveyLines[0..<12])))).ok
            let committed = try await asSurveyor.commitSurveySession(path: .init(venue: "demo-hall", session: second.id)).ok.body.json
            // Then it is recorded, and the daemon serves the re-tuned revision after it
            #expect(committed.fingerprints == 12)
            let tuned = try #require(committed.revision) + 1
            try await eventually("the re-tuned revision served", timeout: .seconds(120), every: .milliseconds(200)) {
                try await asSurveyor.getVenue(path: .init(venue: "demo-hall")).ok.body.json.revision >= tuned
            }
            await #expect(try writer.tuning(of: "demo-hall")?.revision == tuned)
        }
    }

    @Test("a walking session over HTTP: lines without coordinates and checkpoints in batches, one refused; the coverage places them, and the commit records what survey record --path records")
    func walkingSession() async throws {
        // Given demo-hall without a survey in a file positiond opens read-only, a survey key, and ten minutes of a simulated walk
        let scratch = try ScratchSpace.directory("walking-session")
        let writer = try FingerprintStore.open(path: scratch.appendingPathComponent("venue.sqlite").path, logger: TestEnvironment.logger)
        try await Self.importDemoVenue(into: writer)
        let key = try await writer.createKey(name: "surveyor", scope: .survey)
        let store = try FingerprintStore.open(path: writer.path, role: .daemon, logger: TestEnvironment.logger)
        let venue = try SimulatedVenues.demoHall(seed: 7)
        var generator = SeededGenerator(seed: 11)
        let stops = venue.definition.spots.map { SimulatedStop(name: $0.name, x: $0.x, y: $0.y, floor: $0.floor) }
        let walk = venue.walkingSurvey(stops: stops, device: SimulatedVenues.surveyDevices[0], seconds: 600, startTime: 1_795_000_000, using: &generator)
        let spots = try await writer.venue("demo-hall").spots
        let checkpoints: [BeaconfixClient.Components.Schemas.SurveyCheckpoint] = walk.checkpoints.map { checkpoint in
            let via = checkpoint.via.isEmpty ? nil : checkpoint.via.map { [$0.x, $0.y] }
            if let spot = spots.first(where: { $0.x == checkpoint.position.x && $0.y == checkpoint.position.y && $0.floor == checkpoint.position.floor }) {
                return .init(t: checkpoint.time, spot: spot.name, via: via)
            }
            return .init(t: checkpoint.time, x: checkpoint.position.x, y: checkpoint.position.y, floor: checkpoint.position.floor, via: via)
        }
        let app = try await TestEnvironment.app(store: store)
        try await app.test(.live) { raw in
            let beaconfix = Client(serverURL: URL(string: "http://127.0.0.1:\(try #require(raw.port))")!, apiKey: key.token)
            // When the surveyor's app opens a walking session
            let opened = try await beaconfix.openSurveySession(
                path: .init(venue: "demo-hall"), body: .json(.init(_operator: "ana", walk: .init(cellM: 1, snapM: 0.5)))).created.body.json
            #expect(opened.walk?.cellM == 1 && opened.checkpoints == 0)
            // And posts the lines in batches of 20, each with the checkpoints tapped up to its last line, the last two alone at the end
            var sent = 0
            for (batch, start) in stride(from: 0, to: walk.lines.count, by: 20).enumerated() {
                let lines = walk.lines[start..<min(start + 20, walk.lines.count)]
                let due = checkpoints[sent..<(checkpoints.count - 2)].prefix { $0.t <= lines.last!.t }
                let receipt = try await beaconfix.postSurveyBatch(
                    path: .init(venue: "demo-hall", session: opened.id),
                    body: .json(.init(batchId: "w\(batch)", samples: Self.samples(lines), checkpoints: Array(due)))).ok.body.json
                #expect(receipt.checkpoints == due.count)
                sent += due.count
            }
            _ = try await beaconfix.postSurveyBatch(
                path: .init(venue: "demo-hall", session: opened.id), body: .json(.init(batchId: "rest", checkpoints: Array(checkpoints[sent...])))).ok
            // And one batch holds a checkpoint at a spot the venue lacks
            let refused = try await beaconfix.postSurveyBatch(
                path: .init(venue: "demo-hall", session: opened.id),
                body: .json(.init(batchId: "bad", samples: Self.samples(walk.lines[0..<1]), checkpoints: [.init(t: walk.lines[0].t, spot: "G-Z9")])))
            // Then it is a 422 naming the checkpoint, and nothing of it is stored
            guard case .unprocessableContent(let problem) = refused else {
                Issue.record("a checkpoint at an unknown spot must be a 422, got \(refused)")
                return
            }
            #expect(try problem.body.json.error.message.contains("checkpoints[0]: the venue has no spot 'G-Z9'"))
            // And the coverage route places every line the checkpoints enclose
            let reference = try FingerprintStore.inMemory()
            try await Self.importDemoVenue(into: reference)
            let path = try WalkedPath(checkpoints: walk.checkpoints)
            let enclosed = walk.lines.filter { if case .placed = path.placement(at: $0.t) { true } else { false } }
            let coverage = try await beaconfix.getSurveySessionCoverage(path: .init(venue: "demo-hall", session: opened.id)).ok.body.json
            #expect(coverage.path.map(\.t) == enclosed.map(\.t) && coverage.session.checkpoints == checkpoints.count)
            // When the session is committed
            let committed = try await beaconfix.commitSurveySession(path: .init(venue: "demo-hall", session: opened.id)).ok.body.json
            // Then it recorded what survey record --path records from the same log and checkpoints
            let configuration = PositioningConfiguration()
            let source = ScanLogSamples(
                try ScanLine.jsonLines(walk.lines), skipBad: false,
                walk: WalkingSurvey(path: path, spots: WalkSpotAssignment(spots: spots, cellSize: 1, snapDistance: 0.5)))
            let expected = try await reference.record(
                from: source, into: "demo-hall", options: RecordOptions(windowSize: configuration.surveyWindow, builder: configuration.builder))
            #expect(committed.fingerprints == expected.fingerprints && committed.placement?.placed == source.walkPlacements.placed)
            #expect(committed.placement?.afterLastCheckpoint == source.walkPlacements.afterLastCheckpoint)
            await #expect(try writer.venue("demo-hall").fingerprints == reference.venue("demo-hall").fingerprints)
        }
    }
}
