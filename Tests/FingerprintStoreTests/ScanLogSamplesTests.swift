import ScanFormats
import FingerprintStore
import Foundation
import Positioning
import PositioningTuning
import Testing

@Suite("Recording a scan log piece by piece")
struct ScanLogSamplesTests {
    static let demoHall = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("venues/demo-hall")

    static func demoStore() async throws -> FingerprintStore {
        let store = try FingerprintStore.inMemory()
        let venue = try JSONDecoder().decode(
            VenueDefinition.self, from: Data(contentsOf: demoHall.appendingPathComponent("venue.json")))
        var plans: [Int: FloorPlanImage] = [:]
        for floor in venue.floors {
            guard let plan = floor.plan else { continue }
            plans[floor.level] = try FloorPlanImage(data: Data(contentsOf: demoHall.appendingPathComponent(plan.image)), path: plan.image)
        }
        _ = try await store.importVenue(venue, plans: plans)
        return store
    }

    static var options: RecordOptions { RecordOptions(windowSize: 3, builder: PositioningConfiguration().builder) }

    @Test("the demo survey streamed in small pieces stores what it stores decoded whole", arguments: [2_000, 1 << 20])
    func streamedEqualsWhole(pieceBytes: Int) async throws {
        // Given the demo survey, and two empty stores
        let data = try Data(contentsOf: Self.demoHall.appendingPathComponent("survey.jsonl"))
        let whole = try await Self.demoStore()
        let streamed = try await Self.demoStore()
        let samples = ScanLogDecoder().decode(data).lines.map { LabelledSample(sample: try! $0.line.sample(), truth: $0.line.groundTruth!) }
        // When one records the decoded log and the other streams it
        let expected = try await whole.record(samples, into: "demo-hall", options: Self.options)
        let reported = ProgressLog()
        let source = ScanLogSamples(data, skipBad: false, pieceBytes: pieceBytes) { done, total in reported.append(done, total) }
        let summary = try await streamed.record(from: source, into: "demo-hall", options: Self.options)
        // Then the summaries agree, nothing was skipped, and progress reached the end
        #expect(summary == expected)
        #expect(summary.fingerprints > 200)
        #expect(source.skipped == 0)
        let last = try #require(reported.last)
        #expect(last == (data.count, data.count))
        #expect(pieceBytes >= data.count ? reported.count == 1 : reported.count > 10)
    }

    @Test("bad lines: refused with every one listed and nothing written, or skipped and counted")
    func badLines() async throws {
        // Given the demo survey with a broken line early and one without ground truth late
        var lines = try String(decoding: Data(contentsOf: Self.demoHall.appendingPathComponent("survey.jsonl")), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        lines[3] = "{broken"
        lines[600] = #"{"t": 1, "device": "d", "beacons": []}"#
        let data = Data(lines.joined(separator: "\n").utf8)
        let store = try await Self.demoStore()
        // When recorded strictly, in small pieces
        do {
            _ = try await store.record(from: ScanLogSamples(data, skipBad: false, pieceBytes: 4_000), into: "demo-hall", options: Self.options)
            Issue.record("a log with bad lines must be refused")
        } catch let error as MalformedLines {
            // Then both lines are named, in order
            #expect(error.errors.map(\.line) == [4, 601])
            #expect(error.errors[1].message.contains("ground truth"))
        }
        await #expect(try store.venue("demo-hall").revision == 1)
        // When skipping them
        let source = ScanLogSamples(data, skipBad: true, pieceBytes: 4_000)
        let summary = try await store.record(from: source, into: "demo-hall", options: Self.options)
        // Then the rest is recorded and the two are counted
        #expect(source.skipped == 2)
        #expect(summary.samples == lines.count - 2)
    }
}

/// Progress reports from the recording.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [(Int, Int)] = []

    func append(_ done: Int, _ total: Int) {
        lock.withLock { reports.append((done, total)) }
    }

    var count: Int { lock.withLock { reports.count } }
    var last: (Int, Int)? { lock.withLock { reports.last } }
}
