@testable import FingerprintStore
import Foundation
import Positioning
import ScanFormats
import Testing

/// Survey sessions uploaded in batches (what positiond's survey routes store), on both engines.
@Suite("FingerprintStore: survey sessions uploaded in batches")
struct SurveyUploadTests {
    /// `store` with demo-hall imported, as `survey venue import` does.
    static func withDemoVenue(_ store: FingerprintStore) throws -> FingerprintStore {
        let venue = try JSONDecoder().decode(
            VenueDefinition.self, from: Data(contentsOf: ScanLogSamplesTests.demoHall.appendingPathComponent("venue.json")))
        var plans: [Int: FloorPlanImage] = [:]
        for floor in venue.floors {
            guard let plan = floor.plan else { continue }
            plans[floor.level] = try FloorPlanImage(data: Data(contentsOf: ScanLogSamplesTests.demoHall.appendingPathComponent(plan.image)), path: plan.image)
        }
        _ = try store.importVenue(venue, plans: plans)
        return store
    }

    static var demoSurvey: [ScanLine] {
        get throws { ScanLogDecoder().decode(try Data(contentsOf: ScanLogSamplesTests.demoHall.appendingPathComponent("survey.jsonl"))).lines.map(\.line) }
    }

    @Test("batches stored as they come, one re-sent and one refused, then committed: the venue gets what survey record makes of the same lines", arguments: BackendTests.engines)
    func commitEqualsRecord(engine: StoreEngine) throws {
        // Given demo-hall on the engine, and its survey
        let store = try Self.withDemoVenue(try BackendTests.store(engine))
        let lines = try Self.demoSurvey
        // When a session is opened and the survey posted in batches of 100
        let opened = try store.openSurveyUpload(venue: "demo-hall", operator: "ana", deviceModel: "iPhone 13", notes: "ground floor first")
        #expect(opened.state == .open && opened.samples == 0 && opened.id.hasPrefix("ses_"))
        var batches = 0
        for start in stride(from: 0, to: lines.count, by: 100) {
            let receipt = try store.addSurveyBatch(Array(lines[start..<min(start + 100, lines.count)]), id: "b\(batches)", to: opened.id, of: "demo-hall")
            #expect(!receipt.duplicate)
            batches += 1
        }
        // And one batch is sent again, as after a lost answer
        let resent = try store.addSurveyBatch(Array(lines[100..<200]), id: "b1", to: opened.id, of: "demo-hall")
        // Then it is recognised and not stored twice
        #expect(resent.duplicate && resent.upload.samples == lines.count && resent.upload.batches == batches)
        // When a batch holds an RSSI no radio reports and a sample without ground truth
        var bad = Array(lines[0..<3])
        bad[1].beacons[0].rssi = 40
        bad[2].x = nil
        bad[2].y = nil
        bad[2].spot = nil
        #expect {
            try store.addSurveyBatch(bad, id: "bad", to: opened.id, of: "demo-hall")
        } throws: { error in
            // Then both are named by their index, and nothing of the batch is stored
            let problems = (error as? InvalidSurveyBatch)?.problems ?? []
            return problems.map(\.index) == [1, 2] && problems[0].message.contains("rssi") && problems[1].message.contains("ground truth")
        }
        #expect(try store.surveyUpload(opened.id, of: "demo-hall").samples == lines.count)
        // And its coverage so far holds every line once, in order, each spot with its own lines
        let coverage = try store.surveyUploadCoverage(opened.id, of: "demo-hall")
        #expect(coverage.path.map(\.t) == lines.map(\.t))
        let perSpot = Dictionary(grouping: lines) { $0.groundTruth!.spotName }
        #expect(coverage.spots.map(\.spot) == perSpot.keys.sorted())
        #expect(coverage.spots.allSatisfy { $0.samples == perSpot[$0.spot]?.count })
        #expect(coverage.thinSpots.allSatisfy { $0.samples < 3 || $0.medianBeacons < 3 })
        // And a batch id reused for other samples is refused
        #expect(throws: StoreError.self) { try store.addSurveyBatch(Array(lines[0..<5]), id: "b1", to: opened.id, of: "demo-hall") }
        // When the session is committed
        let (committed, summary) = try store.commitSurveyUpload(opened.id, of: "demo-hall", options: ScanLogSamplesTests.options)
        // Then it recorded exactly what survey record records from the same lines in a fresh store
        let reference = try ScanLogSamplesTests.demoStore()
        let encoder = JSONEncoder()
        let log = try lines.reduce(into: Data()) { data, line in data.append(try encoder.encode(line)); data.append(UInt8(ascii: "\n")) }
        let expected = try reference.record(from: ScanLogSamples(log, skipBad: false), into: "demo-hall", options: ScanLogSamplesTests.options)
        #expect(summary == expected)
        #expect(try store.venue("demo-hall").fingerprints == reference.venue("demo-hall").fingerprints)
        #expect(committed.state == .committed && committed.fingerprints == summary.fingerprints && committed.revision == summary.revision)
        #expect(try store.surveyUpload(opened.id, of: "demo-hall") == committed)
        // And a committed session's coverage is empty: its samples are the venue's survey now
        #expect(try store.surveyUploadCoverage(opened.id, of: "demo-hall").path.isEmpty)
        // And the session takes nothing more, and cannot be committed or abandoned again
        #expect(throws: StoreError.self) { try store.addSurveyBatch(Array(lines[0..<5]), id: "late", to: opened.id, of: "demo-hall") }
        #expect(throws: StoreError.self) { try store.commitSurveyUpload(opened.id, of: "demo-hall", options: ScanLogSamplesTests.options) }
        #expect(throws: StoreError.self) { try store.abandonSurveyUpload(opened.id, of: "demo-hall") }
    }

    @Test("an abandoned session records nothing; unknown sessions and venues are named; a session of another venue is not found", arguments: BackendTests.engines)
    func abandonAndRefusals(engine: StoreEngine) throws {
        // Given demo-hall with a session holding one batch
        let store = try Self.withDemoVenue(try BackendTests.store(engine))
        let revision = try store.venue("demo-hall").revision
        let session = try store.openSurveyUpload(venue: "demo-hall", operator: nil, deviceModel: nil, notes: nil)
        _ = try store.addSurveyBatch(Array(try Self.demoSurvey.prefix(10)), id: "only", to: session.id, of: "demo-hall")
        // When it is abandoned
        let abandoned = try store.abandonSurveyUpload(session.id, of: "demo-hall")
        // Then nothing was recorded and the venue's revision did not move
        #expect(abandoned.state == .abandoned && abandoned.closedAt != nil)
        #expect(try store.venue("demo-hall").revision == revision && store.venue("demo-hall").fingerprints == 0)
        #expect(throws: StoreError.self) { try store.commitSurveyUpload(session.id, of: "demo-hall", options: ScanLogSamplesTests.options) }
        // And an unknown session, an unknown venue and an empty session are refused with a sentence
        #expect(throws: StoreError.unknownSurveyUpload(venue: "demo-hall", id: "ses_nope")) { try store.surveyUpload("ses_nope", of: "demo-hall") }
        #expect(throws: StoreError.unknownVenue("nowhere")) { try store.openSurveyUpload(venue: "nowhere", operator: nil, deviceModel: nil, notes: nil) }
        let empty = try store.openSurveyUpload(venue: "demo-hall", operator: nil, deviceModel: nil, notes: nil)
        #expect(throws: StoreError.invalidInput("survey session \(empty.id) holds no sample: nothing to record")) {
            try store.commitSurveyUpload(empty.id, of: "demo-hall", options: ScanLogSamplesTests.options)
        }
        #expect(throws: StoreError.self) { try store.addSurveyBatch([], id: "none", to: empty.id, of: "demo-hall") }
        #expect(throws: StoreError.self) { try store.addSurveyBatch(Array(try Self.demoSurvey.prefix(1)), id: "", to: empty.id, of: "demo-hall") }
    }

    @Test("the survey key scope: stored on both engines, and it permits locate and survey but not admin", arguments: BackendTests.engines)
    func surveyScope(engine: StoreEngine) throws {
        let store = try BackendTests.store(engine)
        let key = try store.createKey(name: "surveyor", scope: .survey)
        #expect(try store.keys().map(\.scope) == [.survey])
        #expect(try store.activeKeyHashes()[FingerprintStore.hash(token: key.token)] == .survey)
        #expect(APIKeyScope.survey.permits(.survey) && APIKeyScope.survey.permits(.locate) && !APIKeyScope.survey.permits(.admin))
        #expect(!APIKeyScope.locate.permits(.survey) && APIKeyScope.admin.permits(.survey))
    }
}
