import ScanFormats
import FingerprintStore
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import Logging
import NIOCore
import Positioning
import positiond
import Synchronization
import Testing
import TestSupport

/// Defects found by playing a hostile client and an unlucky operator, each guarded here.
@Suite("positiond hardening: credentials, clocks, readings, watcher, live caps")
struct HardeningTests {
    /// Every log line a logger wrote: message and metadata, as text.
    final class CapturedLogs: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }

        var logger: Logger {
            var logger = Logger(label: "capture") { _ in CapturingHandler(logs: self) }
            logger.logLevel = .trace
            return logger
        }
    }

    struct CapturingHandler: LogHandler {
        let logs: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(
            level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
            function: String, line: UInt
        ) {
            let all = self.metadata.merging(metadata ?? [:]) { $1 }
            logs.add("\(level) \(message) \(all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
        }
    }

    /// What the concurrent parts of a test share.
    final class SocketGate: Sendable {
        let opened = Atomic<Int>(0)
        let release = Atomic<Bool>(false)
    }

    /// A walk sample as a body, with `t` and the first reading's RSSI replaced.
    static func body(t: Double? = nil, firstRSSI: Double? = nil) throws -> String {
        var line = try TestEnvironment.walk[3]
        if let t { line.t = t }
        if let firstRSSI { line.beacons[0].rssi = firstRSSI }
        return TestEnvironment.body([line])
    }

    @Test("no credential reaches a log line, a metric or an error message, whichever way it is sent")
    func credentialsStayOutOfLogs() async throws {
        // Given a daemon with a key, logging everything
        let store = try await TestEnvironment.demoStore()
        let key = try await store.createKey(name: "app", scope: .admin)
        let logs = CapturedLogs()
        let app = try await buildApplication(settings: TestEnvironment.settings(), store: store, metrics: TestEnvironment.metrics, logger: logs.logger)
        let bodies = CapturedLogs()
        try await app.test(.router) { client in
            // When the token is sent in the query (as WebSocket clients do), in the header, and a wrong one
            for uri in [
                "/v1/venues?access_token=\(key.token)", "/v1/venues/demo-hall/live?access_token=\(key.token)&device=phone-1",
                "/v1/venues?ACCESS_TOKEN=\(key.token)", "/v1/venues?access_token=\(key.token)x",
            ] {
                bodies.add(try await client.execute(uri: uri, method: .get).text)
            }
            bodies.add(try await client.call(.get, "/v1/venues", token: key.token + "x").text)
            bodies.add(try await client.call(.get, "/metrics").text)
        }
        // Then the requests were logged, with the credential redacted, and the token is nowhere
        let lines = logs.all
        #expect(lines.contains { $0.contains("access_token=***") }, "\(lines)")
        for line in lines { #expect(!line.contains(key.token), "a log line holds the token: \(line)") }
        for body in bodies.all { #expect(!body.contains(key.token), "a response holds the token: \(body)") }
    }

    @Test("a plain GET of the WebSocket route is told to upgrade (426), not answered 200 with nothing")
    func liveNeedsAnUpgrade() async throws {
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        try await app.test(.router) { client in
            let response = try await client.call(.get, "/v1/venues/demo-hall/live?device=phone-1")
            #expect(response.status == .upgradeRequired)
            #expect(response.errorMessage.contains("WebSocket"))
        }
    }

    @Test("a time from the future is refused on every route, naming the field; the device keeps following correct samples")
    func futureTimesAreRefused() async throws {
        let store = try await TestEnvironment.demoStore()
        let app = try await TestEnvironment.app(store: store)
        let now = Date().timeIntervalSince1970
        try await app.test(.router) { client in
            // Given a phone sending milliseconds instead of seconds
            let milliseconds = try Self.body(t: (now * 1000).rounded())
            // When it posts to any route that takes samples
            for path in ["/v1/venues/demo-hall/devices/phone-1/samples", "/v1/venues/demo-hall/locate", "/v1/venues/demo-hall/proximity"] {
                let response = try await client.call(.post, path, body: milliseconds)
                // Then it is told which field is wrong and why
                #expect(response.status == .unprocessableContent, "\(path)")
                #expect(response.errorMessage.contains("samples[0].t"), "\(response.errorMessage)")
                #expect(response.errorMessage.contains("milliseconds"), "\(response.errorMessage)")
            }
            // And the device's next correct samples are answered with their own times
            for offset in 0..<3 {
                let response = try await client.call(
                    .post, "/v1/venues/demo-hall/devices/phone-1/samples", body: try Self.body(t: now + Double(offset)))
                #expect(response.status == .ok)
                #expect((response.json["time"] as? Double).map { abs($0 - (now + Double(offset))) < 1e-3 } == true, "\(response.json)")
            }
        }
    }

    @Test("a strong real reading (-14 dBm) is accepted; only what no radio reports is refused", arguments: [
        (-14.0, HTTPResponse.Status.ok), (-1.0, .ok), (-127.0, .ok), (20.0, .ok), (-128.0, .unprocessableContent), (25.0, .unprocessableContent),
    ])
    func strongReadings(rssi: Double, status: HTTPResponse.Status) async throws {
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        try await app.test(.router) { client in
            let response = try await client.call(.post, "/v1/venues/demo-hall/locate", body: try Self.body(firstRSSI: rssi))
            #expect(response.status == status, "\(rssi) dBm: \(response.text)")
            if status != .ok { #expect(response.errorMessage.contains("beacons[0].rssi"), "\(response.errorMessage)") }
        }
    }

    @Test("errors blame the right side: a bad argument is a 422 naming it; a failure of the store is a 500 with the request id and no SQL")
    func errorsBlameTheRightSide() async throws {
        // Given a daemon on demo-hall with a survey session open
        let store = try await TestEnvironment.demoStore()
        let app = try await TestEnvironment.app(store: store)
        try await app.test(.router) { client in
            let opened = try await client.call(.post, "/v1/venues/demo-hall/survey/sessions", body: #"{"operator": "ana"}"#)
            let session = try #require(opened.json["id"] as? String)
            // When the client asks for a dwell report with a minimum visit out of range
            let refused = try await client.call(.get, "/v1/venues/demo-hall/analytics/dwell?from=0&to=3600&min_visit=-5")
            // Then it is the client's mistake, named
            #expect(refused.status == .unprocessableContent)
            #expect(refused.errorMessage.contains("minimum visit") && refused.errorMessage.contains("-5"), "\(refused.errorMessage)")

            // When the session's stored row holds a state this build does not know (a newer build, or a hand edit)
            try await store.writer.write { db in
                try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
                try db.execute(sql: "UPDATE surveyUpload SET state = 'frozen' WHERE id = ?", arguments: [session])
                try db.execute(sql: "PRAGMA ignore_check_constraints = OFF")
            }
            let unreadable = try await client.call(.get, "/v1/venues/demo-hall/survey/sessions/\(session)", headers: [RequestIDMiddleware.header: "fault-1"])
            // Then it is the server's failure: a 500 that gives the request id to find the cause in the log, and not the cause
            #expect(unreadable.status == .internalServerError)
            #expect(unreadable.errorMessage.contains("request id fault-1"), "\(unreadable.errorMessage)")
            #expect(!unreadable.errorMessage.contains("frozen") && !unreadable.errorMessage.contains("surveyUpload"), "\(unreadable.errorMessage)")

            // When a query fails inside the database (a history table is gone)
            try await store.writer.write { db in try db.execute(sql: "DROP TABLE zoneVisit") }
            let failed = try await client.call(.get, "/v1/venues/demo-hall/analytics/dwell?from=0&to=3600", headers: [RequestIDMiddleware.header: "fault-2"])
            // Then the same: a 500 with the request id, and neither the statement nor SQLite's message
            #expect(failed.status == .internalServerError)
            #expect(failed.errorMessage.contains("request id fault-2"), "\(failed.errorMessage)")
            for leak in ["SELECT", "zoneVisit", "no such table", "SQLite"] {
                #expect(!failed.errorMessage.contains(leak), "\(failed.errorMessage)")
            }
        }
    }

    @Test("a venue that fails to reload does not stop a revoked key from being refused, and the venue keeps its last good map")
    func watcherConcernsFailApart() async throws {
        // Given a daemon serving demo-hall with a key
        let store = try await TestEnvironment.demoStore()
        let key = try await store.createKey(name: "app", scope: .locate)
        let app = try await TestEnvironment.app(store: store)
        try await app.test(.router) { client in
            let revision = try #require(try await client.call(.get, "/v1/venues/demo-hall", token: key.token).json["revision"] as? Int)
            // When the venue changes into something that cannot be loaded (its stored tuning is unreadable)
            try await store.writer.write { db in
                try db.execute(sql: "UPDATE venueTuning SET report = 'not json' WHERE venueId = 'demo-hall'")
                try db.execute(sql: "UPDATE venue SET revision = revision + 1 WHERE id = 'demo-hall'")
            }
            // And the key is revoked
            _ = try await store.revokeKey(id: key.key.id)
            // Then the revocation takes effect within a few polls
            try await eventually("the revoked key refused", every: .milliseconds(100)) {
                try await client.call(.get, "/v1/venues", token: key.token).status == .unauthorized
            }
            // And a key created meanwhile is picked up, while the venue is still served at its last good revision
            let fresh = try await store.createKey(name: "ops", scope: .locate)
            let located = try await eventually("a locate with the new key", every: .milliseconds(100)) {
                let answer = try await client.call(.post, "/v1/venues/demo-hall/locate", body: try Self.body(), token: fresh.token)
                return answer.status == .ok ? answer : nil
            }
            #expect(located.json["revision"] as? Int == revision)
        }
    }

    @Test("database reads never block the threads requests run on: a stalled database delays only what needs it")
    func stalledDatabaseDoesNotStallTheDaemon() async throws {
        // Given the demo database opened with a single reader connection, as a disk that serves one read at a time
        let path = try await TestEnvironment.demoStore().writer.path
        var configuration = Configuration()
        configuration.maximumReaderCount = 1
        let store = try FingerprintStore(writer: try DatabasePool(path: path, configuration: configuration), logger: TestEnvironment.logger)
        let app = try await TestEnvironment.app(store: store, settings: TestEnvironment.settings { $0.revisionPollInterval = .seconds(60) })
        let gate = SocketGate()
        try await app.test(.router) { client in
            // And that reader held until the test lets it go (at most 30 s), outside Swift's concurrency pool:
            // `opened` is 1 while it holds the reader and 2 once it has let go
            let holder = Thread {
                _ = try? store.writer.read { _ in
                    gate.opened.store(1, ordering: .sequentiallyConsistent)
                    let deadline = Date().addingTimeInterval(30)
                    while !gate.release.load(ordering: .sequentiallyConsistent), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
                }
                gate.opened.store(2, ordering: .sequentiallyConsistent)
            }
            holder.start()
            try await eventually("the reader held", timeout: .seconds(30), every: .milliseconds(10)) {
                gate.opened.load(ordering: .sequentiallyConsistent) != 0
            }
            // When many requests that read the database arrive, then a liveness check
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        _ = try await client.execute(uri: "/readyz", method: .get)
                        _ = try await client.execute(uri: "/v1/venues", method: .get)
                    }
                }
                try await Task.sleep(for: .milliseconds(100))
                let alive = try await client.execute(uri: "/healthz", method: .get)
                // Then the liveness check is answered while the database is still stalled (a check that waited
                // for the database would be answered only once the holder gave up, 30 s on)
                #expect(alive.status == .ok)
                let stillStalled = gate.opened.load(ordering: .sequentiallyConsistent) == 1
                #expect(stillStalled, "/healthz waited for the database")
                // And the requests that need the database are answered once it is free
                gate.release.store(true, ordering: .sequentiallyConsistent)
                try await group.waitForAll()
            }
        }
    }

    @Test("live sockets are capped per key and in total: closed with 1013 and a reason, counted in metrics")
    func liveSocketsAreCapped() async throws {
        let store = try await TestEnvironment.demoStore()
        let app = try await TestEnvironment.app(
            store: store, settings: TestEnvironment.settings { $0.maximumLiveSubscribersPerKey = 2; $0.maximumLiveSubscribers = 3 })
        let gate = SocketGate()
        try await app.test(.live) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Given two sockets of the same client held open
                for _ in 0..<2 {
                    group.addTask {
                        _ = try await client.ws("/v1/venues/demo-hall/live?device=phone-1") { inbound, _, _ in
                            var subscribed = false
                            for try await _ in inbound.messages(maxSize: 1 << 16) {
                                // The first message ("subscribed") comes once the server holds the subscription.
                                if !subscribed { gate.opened.add(1, ordering: .relaxed) }
                                subscribed = true
                                if gate.release.load(ordering: .relaxed) { break }
                            }
                        }
                    }
                }
                let deadline = ContinuousClock.now + .seconds(5)
                while gate.opened.load(ordering: .relaxed) < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
                let opened = gate.opened.load(ordering: .relaxed)
                #expect(opened == 2)
                // When the client asks for a third
                let third = try await client.ws("/v1/venues/demo-hall/live?device=phone-1") { inbound, _, _ in
                    for try await _ in inbound.messages(maxSize: 1 << 16) {}
                }
                // Then it is closed at once with 1013 (try again later) and the reason, and the refusal is counted
                #expect(third?.closeCode == .unknown(1013), "\(String(describing: third))")
                #expect(third?.reason?.contains("live sockets") == true)
                let metrics = try await client.executeRequest(uri: "/metrics", method: .get, headers: [:], body: nil)
                #expect(String(buffer: metrics.body).contains(#"beaconfix_live_refused_total{reason="per_key"}"#))
                gate.release.store(true, ordering: .relaxed)
                // The held sockets close when the daemon publishes anything; a revision does.
                try await store.writer.write { db in try db.execute(sql: "UPDATE venue SET revision = revision + 1 WHERE id = 'demo-hall'") }
                try await group.waitForAll()
            }
        }
    }
}
