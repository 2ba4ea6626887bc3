import FingerprintStore
import Foundation
import Positioning
import ScanFormats
import Testing

/// Survey sessions uploaded in batches (what positiond's survey routes store), on both engines.
@Suite("FingerprintStore: survey sessions uploaded in batches")
struct SurveyUploadTests {
    /// `store` with demo-hall imported, as `survey venue import` does.
    static func withDemoVenue(_ store: FingerprintStore) async throws -> FingerprintStore {
        let venue = try JSONDecoder().decode(
            VenueDefinition.self, from: Data(contentsOf: ScanLogSamplesTests.demoHall.appendingPathComponent("venue.json")))
        var plans: [Int: FloorPlanImage] = [:]
        for floor in venue.floors {
            guard let plan = floor.plan else { continue }
            plans[floor.level] = try FloorPlanImage(data: Data(contentsOf: ScanLogSamplesTests.demoHall.appendingPathComponent(plan.image)), path: plan.image)
        }
        _ = try await store.importVenue(venue, plans: plans)
        return store
    }

    static var demoSurvey: [ScanLine] {
        get throws { ScanLogDecoder().decode(try Data(contentsOf: ScanLogSamplesTests.demoHall.appendingPathComponent("survey.jsonl"))).lines.map(\.line) }
    }

    @Test("batches stored as they come, one re-sent and one refused, then committed: the venue gets what survey record makes of the same lines", arguments: BackendTests.engines)
    func commitEqualsRecord(engine: StoreEngine) async throws {
        // Given demo-hall on the engine, and its survey
        let store = try await Self.withDemoVenue(try BackendTests.store(engine))
        let lines = try Self.demoSurvey
        // When a session is opened and the survey posted in batches of 100
        let opened = try await store.openSurveyUpload(venue: "demo-hall", operator: "ana", deviceModel: "iPhone 13", notes: "ground floor first")
        #expect(opened.state == .open && opened.samples == 0 && opened.id.hasPrefix("ses_"))
        var batches = 0
        for start in stride(from: 0, to: lines.count, by: 100) {
            let receipt = try await store.addSurveyBatch(Array(lines[start..<min(start + 100, lines.count)]), id: "b\(batches)", to: opened.id, of: "demo-hall")
            #expect(!receipt.duplicate)
            batches += 1
        }
        // And one batch is sent again, as after a lost answer
        let resent = try await store.addSurveyBatch(Array(lines[100..<200]), id: "b1", to: opened.id, of: "demo-hall")
        // Then it is recognised and not stored twice
        #expect(resent.duplicate && resent.upload.samples == lines.count && resent.upload.batches == batches)
        // When a batch holds an RSSI no radio reports and a sample without ground truth
        var bad = Array(lines[0..<3])
        bad[1].beacons[0].rssi = 40
        bad[2].x = nil
        bad[2].y = nil
        bad[2].spot = nil
        await #expect {
            try await store.addSurveyBatch(bad, id: "bad", to: opened.id, of: "demo-hall")
        } throws: { error in
            // Then both are named by their index, and nothing of the batch is stored
            let problems = (error as? InvalidSurveyBatch)?.problems ?? []
            return problems.map(\.index) == [1, 2] && problems[0].message.contains("rssi") && problems[1].message.contains("ground truth")
        }
        #expect(try await store.surveyUpload(opened.id, of: "demo-hall").samples == lines.count)
        // And its coverage so far holds every line once, in order, each spot with its own lines
        let coverage = try await store.surveyUploadCoverage(opened.id, of: "demo-hall")
        #expect(coverage.path.map(\.t) == lines.map(\.t))
        let perSpot = Dictionary(grouping: lines) { $0.groundTruth!.spotName }
        #expect(coverage.spots.map(\.spot) == perSpot.keys.sorted())
        #expect(coverage.spots.allSatisfy { $0.samples == perSpot[$0.spot]?.count })
        #expect(coverage.thinSpots.allSatisfy { $0.samples < 3 || $0.medianBeacons < 3 })
        // And a batch id reused for other samples is refused
        await #expect(throws: StoreError.self) { try await store.addSurveyBatch(Array(lines[0..<5]), id: "b1", to: opened.id, of: "demo-hall") }
        // When the session is committed
        let commit = try await store.commitSurveyUpload(opened.id, of: "demo-hall", options: ScanLogSamplesTests.options)
        let (committed, summary) = (commit.upload, commit.summary)
        #expect(commit.walk == nil)
        // Then it recorded exactly what survey record records from the same lines in a fresh store
        let reference = try await ScanLogSamplesTests.demoStore()
        let encoder = JSONEncoder()
        let log = try lines.reduce(into: Data()) { data, line in data.append(try encoder.encode(line)); data.append(UInt8(ascii: "\n")) }
        let expected = try await reference.record(from: ScanLogSamples(log, skipBad: false), into: "demo-hall", options: ScanLogSamplesTests.options)
        #expect(summary == expected)
        await #expect(try store.venue("demo-hall").fingerprints == reference.venue("demo-hall").fingerprints)
        #expect(committed.state == .committed && committed.fingerprints == summary.fingerprints && committed.revision == summary.revision)
        #expect(try await store.surveyUpload(opened.id, of: "demo-hall") == committed)
        // And a committed session's coverage is empty: its samples are the venue's survey now
        #expect(try await store.surveyUploadCoverage(opened.id, of: "demo-hall").path.isEmpty)
        // And the session takes nothing more, and cannot be committed or abandoned again
        await #expect(throws: StoreError.self) { try await store.addSurveyBatch(Array(lines[0..<5]), id: "late", to: opened.id, of: "demo-hall") }
        await #expect(throws: StoreError.self) { try await store.commitSurveyUpload(opened.id, of: "demo-hall", options: ScanLogSamplesTests.options) }
        await #expect(throws: StoreError.self) { try await store.abandonSurveyUpload(opened.id, of: "demo-hall") }
    }

    @Test("an abandoned session records nothing; unknown sessions and venues are named; a session of another venue is not found", arguments: BackendTests.engines)
    func abandonAndRefusals(engine: StoreEngine) async throws {
        // Given demo-hall with a session holding one batch
        let store = try await Self.withDemoVenue(try BackendTests.store(engine))
        let revision = try await store.venue("demo-hall").revision
        let session = try await store.openSurveyUpload(venue: "demo-hall", operator: nil, deviceModel: nil, notes: nil)
        _ = try await store.addSurveyBatch(Array(try Self.demoSurvey.prefix(10)), id: "only", to: session.id, of: "demo-hall")
        // When it is abandoned
        let abandoned = try await store.abandonSurveyUpload(session.id, of: "demo-hall")
        // Then nothing was recorded and the venue's revision did not move
        #expect(abandoned.state == .abandoned && abandoned.closedAt != nil)
        let venue = try await store.venue("demo-hall")
        #expect(venue.revision == revision && venue.fingerprints == 0)
        await #expect(throws: StoreError.self) { try await store.commitSurveyUpload(session.id, of: "demo-hall", options: ScanLogSamplesTests.options) }
        // And an unknown session, an unknown venue and an empty session are refused with a sentence
        await #expect(throws: StoreError.unknownSurveyUpload(venue: "demo-hall", id: "ses_nope")) { try await store.surveyUpload("ses_nope", of: "demo-hall") }
        await #expect(throws: StoreError.unknownVenue("nowhere")) { try await store.openSurveyUpload(venue: "nowhere", operator: nil, deviceModel: nil, notes: nil) }
        let empty = try await store.openSurveyUpload(venue: "demo-hall", operator: nil, deviceModel: nil, notes: nil)
        await #expect(throws: StoreError.invalidInput("survey session \(empty.id) holds no sample: nothing to record")) {
            try await store.commitSurveyUpload(empty.id, of: "demo-hall", options: ScanLogSamplesTests.options)
        }
        await #expect(throws: StoreError.self) { try await store.addSurveyBatch([], id: "none", to: empty.id, of: "demo-hall") }
        await #expect(throws: StoreError.self) { try await store.addSurveyBatch(Array(try Self.demoSurvey.prefix(1)), id: "", to: empty.id, of: "demo-hall") }
    }

    /// `checkpoints` as a path file's entries; those standing exactly at a venue's spot are named by it.
    static func entries(_ checkpoints: [Checkpoint], spots: [Spot]) -> [WalkPathFile.Entry] {
        checkpoints.map { checkpoint in
            let position = checkpoint.position
            let via = checkpoint.via.isEmpty ? nil : checkpoint.via.map { [$0.x, $0.y] }
            if let spot = spots.first(where: { $0.x == position.x && $0.y == position.y && $0.floor == position.floor }) {
                return WalkPathFile.Entry(t: checkpoint.time, spot: spot.name, via: via)
            }
            return WalkPathFile.Entry(t: checkpoint.time, x: position.x, y: position.y, floor: position.floor, via: via)
        }
    }

    @Test("a walking session: lines without coordinates and checkpoints in batches, placed live and committed as survey record --path records the walk", arguments: BackendTests.engines)
    func walkingSession(engine: StoreEngine) async throws {
        // Given demo-hall on the engine, and ten minutes of a simulated walk with the surveyor's checkpoints
        let store = try await Self.withDemoVenue(try BackendTests.store(engine))
        let walk = try WalkingSurveyTests.simulatedWalk()
        let spots = try await store.venue("demo-hall").spots
        let entries = Self.entries(walk.checkpoints, spots: spots)
        #expect(entries.contains { $0.spot != nil })
        // When a walking session gets the lines in batches of 100, each with the checkpoints tapped up to its last line (but the last three)
        let opened = try await store.openSurveyUpload(venue: "demo-hall", operator: "ana", deviceModel: nil, notes: nil, walk: SurveyWalkSettings())
        #expect(opened.walk == SurveyWalkSettings(cellSize: 1, snapDistance: 0.5))
        var sentCheckpoints = 0
        var batch = 0
        for start in stride(from: 0, to: walk.lines.count, by: 100) {
            let lines = Array(walk.lines[start..<min(start + 100, walk.lines.count)])
            let due = entries[sentCheckpoints..<(entries.count - 3)].prefix { $0.t <= lines.last!.t }
            let receipt = try await store.addSurveyBatch(lines, checkpoints: Array(due), id: "b\(batch)", to: opened.id, of: "demo-hall")
            #expect(receipt.checkpoints == due.count && !receipt.duplicate)
            sentCheckpoints += due.count
            batch += 1
            // Then after the third batch the coverage places exactly the lines the checkpoints so far enclose
            if batch == 3 {
                let partial = try WalkedPath(checkpoints: Array(walk.checkpoints.prefix(sentCheckpoints)))
                let enclosed = walk.lines.prefix(start + lines.count).filter { line in
                    if case .placed = partial.placement(at: line.t) { true } else { false }
                }
                let coverage = try await store.surveyUploadCoverage(opened.id, of: "demo-hall")
                #expect(!enclosed.isEmpty && coverage.path.map(\.t) == enclosed.map(\.t))
            }
        }
        // And the last three checkpoints come alone, in reverse order
        #expect(sentCheckpoints == entries.count - 3)
        let rest = Array(entries[sentCheckpoints...].reversed())
        let last = try await store.addSurveyBatch([], checkpoints: rest, id: "last checkpoints", to: opened.id, of: "demo-hall")
        #expect(last.upload.checkpoints == entries.count && last.upload.samples == walk.lines.count)
        // And sent again, it is recognised
        #expect(try await store.addSurveyBatch([], checkpoints: rest, id: "last checkpoints", to: opened.id, of: "demo-hall").duplicate)
        // When a batch holds a checkpoint at an unknown spot, one without a place, and a sample with an RSSI no radio reports
        var bad = Array(walk.lines.prefix(2))
        bad[1].beacons[0].rssi = 40
        await #expect {
            try await store.addSurveyBatch(
                bad, checkpoints: [.init(t: walk.lines[0].t, spot: "nowhere"), .init(t: walk.lines[1].t)], id: "bad", to: opened.id, of: "demo-hall")
        } throws: { error in
            // Then each is named in its list, and nothing of the batch is stored
            let text = "\(error)"
            return text.contains("samples[1]") && text.contains("checkpoints[0]: the venue has no spot 'nowhere'") && text.contains("checkpoints[1]")
        }
        #expect(try await store.surveyUpload(opened.id, of: "demo-hall").checkpoints == entries.count)
        // When the session is committed
        let commit = try await store.commitSurveyUpload(opened.id, of: "demo-hall", options: ScanLogSamplesTests.options)
        // Then it recorded what survey record --path records from the same log and path file
        let reference = try await ScanLogSamplesTests.demoStore()
        let path = try WalkPathFile.path(from: try WalkPathFile.jsonLines(entries), spots: spots)
        let source = ScanLogSamples(
            try WalkingSurveyTests.jsonLines(walk.lines), skipBad: false,
            walk: WalkingSurvey(path: path, spots: WalkSpotAssignment(spots: spots, cellSize: 1, snapDistance: 0.5)))
        let expected = try await reference.record(from: source, into: "demo-hall", options: ScanLogSamplesTests.options)
        #expect(commit.summary == expected && commit.walk == source.walkPlacements)
        #expect(commit.walk!.placed > walk.lines.count * 8 / 10 && commit.walk!.leftOut > 0)
        await #expect(try store.venue("demo-hall").fingerprints == reference.venue("demo-hall").fingerprints)
        #expect(commit.upload.state == .committed && commit.upload.walk != nil)
    }

    @Test("walking refusals: checkpoints to a standing session, placement settings out of range, a walk committed without a checkpoint", arguments: BackendTests.engines)
    func walkingRefusals(engine: StoreEngine) async throws {
        // Given demo-hall with a standing session and a walking one, and a walk
        let store = try await Self.withDemoVenue(try BackendTests.store(engine))
        let walk = try WalkingSurveyTests.simulatedWalk()
        let standing = try await store.openSurveyUpload(venue: "demo-hall", operator: nil, deviceModel: nil, notes: nil)
        let walking = try await store.openSurveyUpload(venue: "demo-hall", operator: nil, deviceModel: nil, notes: nil, walk: SurveyWalkSettings(cellSize: 2, snapDistance: 0))
        // Then a standing session refuses checkpoints, and lines without coordinates
        await #expect {
            try await store.addSurveyBatch([], checkpoints: [.init(t: 1, x: 1, y: 1)], id: "c", to: standing.id, of: "demo-hall")
        } throws: { error in "\(error)".contains("checkpoints[0]: survey session \(standing.id) is not a walking survey") }
        await #expect(throws: InvalidSurveyBatch.self) { try await store.addSurveyBatch(Array(walk.lines.prefix(1)), id: "l", to: standing.id, of: "demo-hall") }
        // And settings out of range are refused with their field
        await #expect(throws: StoreError.invalidInput("walk.cell_m must be from 0.05 to 100 metres (got 0.0)")) {
            try await store.openSurveyUpload(venue: "demo-hall", operator: nil, deviceModel: nil, notes: nil, walk: SurveyWalkSettings(cellSize: 0))
        }
        await #expect(throws: StoreError.self) {
            try await store.openSurveyUpload(venue: "demo-hall", operator: nil, deviceModel: nil, notes: nil, walk: SurveyWalkSettings(snapDistance: .nan))
        }
        // And a walk with lines but no checkpoint cannot be committed, nor one whose checkpoints share a time; the session stays open
        _ = try await store.addSurveyBatch(Array(walk.lines.prefix(10)), id: "lines", to: walking.id, of: "demo-hall")
        #expect(try await store.surveyUploadCoverage(walking.id, of: "demo-hall").path.isEmpty)
        await #expect(throws: StoreError.invalidInput("walking survey session \(walking.id) holds no checkpoint: send the places walked through before committing")) {
            try await store.commitSurveyUpload(walking.id, of: "demo-hall", options: ScanLogSamplesTests.options)
        }
        let t0 = walk.lines[0].t - 1
        _ = try await store.addSurveyBatch([], checkpoints: [.init(t: t0, x: 1, y: 1), .init(t: t0, x: 2, y: 2)], id: "twice", to: walking.id, of: "demo-hall")
        await #expect {
            try await store.commitSurveyUpload(walking.id, of: "demo-hall", options: ScanLogSamplesTests.options)
        } throws: { error in "\(error)".contains("cannot make a path") }
        // And one whose checkpoints enclose none of its lines records nothing
        let late = try await store.openSurveyUpload(venue: "demo-hall", operator: nil, deviceModel: nil, notes: nil, walk: SurveyWalkSettings())
        _ = try await store.addSurveyBatch(Array(walk.lines.prefix(10)), checkpoints: [.init(t: walk.lines[20].t, x: 1, y: 1)], id: "1", to: late.id, of: "demo-hall")
        await #expect {
            try await store.commitSurveyUpload(late.id, of: "demo-hall", options: ScanLogSamplesTests.options)
        } throws: { error in "\(error)".contains("no sample of survey session \(late.id) lies on its walked path (10 before the first checkpoint") }
        #expect(try await store.surveyUpload(walking.id, of: "demo-hall").state == .open)
        #expect(try await store.venue("demo-hall").fingerprints == 0)
    }

    @Test("the survey key scope: stored on both engines, and it permits locate and survey but not admin", arguments: BackendTests.engines)
    func surveyScope(engine: StoreEngine) async throws {
        let store = try await BackendTests.store(engine)
        let key = try await store.createKey(name: "surveyor", scope: .survey)
        await #expect(try store.keys().map(\.scope) == [.survey])
        await #expect(try store.activeKeyHashes()[FingerprintStore.hash(token: key.token)] == .survey)
        #expect(APIKeyScope.survey.permits(.survey) && APIKeyScope.survey.permits(.locate) && !APIKeyScope.survey.permits(.admin))
        #expect(!APIKeyScope.locate.permits(.survey) && APIKeyScope.admin.permits(.survey))
    }
}
