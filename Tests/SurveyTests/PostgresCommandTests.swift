import FingerprintStore
import Foundation
import Logging
import Testing
import TestSupport

/// `survey --db postgres://…`: the commands ops run against a cluster's store, as a separate process on a
/// real PostgreSQL (BEACONFIX_TEST_POSTGRES, which `make test` starts with scripts/with-postgres.sh).
private let testPostgresURL = ProcessInfo.processInfo.environment["BEACONFIX_TEST_POSTGRES"]

@Suite("survey: commands against PostgreSQL", .enabled(if: testPostgresURL != nil, "BEACONFIX_TEST_POSTGRES is not set"))
struct PostgresCommandTests {
    static let url = testPostgresURL
    let directory: URL
    /// A venue id of this test's own: the database is shared with other tests.
    let venue = "hall-" + UUID().uuidString.prefix(8).lowercased()

    init() throws {
        directory = try SurveyProcess.temporaryDirectory()
    }

    func write(_ text: String, to name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func survey(_ arguments: String...) throws -> SurveyProcess.Result {
        try SurveyProcess.run(arguments + ["--db", try #require(Self.url)])
    }

    @Test("import, record, stats, replace-beacon remove and undo, export and copy work on a postgres:// store")
    func opsOnPostgres() throws {
        // Given the hall imported and recorded into PostgreSQL
        let definition = CommandTests.venueJSON.replacingOccurrences(of: #""id": "hall""#, with: #""id": "\#(venue)""#)
        let imported = try survey("venue", "import", try write(definition, to: "venue.json"))
        #expect(imported.status == 0 && imported.stdout.contains("Created venue '\(venue)' (revision 1)"), "\(imported.stderr)")
        let recorded = try survey("record", "--venue", venue, "--window", "3", "--no-tune", try write(CommandTests.surveyLog(), to: "survey.jsonl"))
        #expect(recorded.status == 0 && recorded.stdout.contains("Recorded 6 fingerprints from 18 samples into '\(venue)' (revision 2)."), "\(recorded.stdout)\(recorded.stderr)")
        // When a dead beacon is removed on the live store, then the removal undone
        let beacon = "\(CommandTests.uuid):1:3"
        let removed = try survey("replace-beacon", "remove", "--venue", venue, "--old", beacon, "--no-tune", "--json")
        #expect(removed.status == 0 && removed.stdout.contains(#""revision_after" : 3"#), "\(removed.stdout)\(removed.stderr)")
        let stats = try survey("stats", "--venue", venue, "--json")
        #expect(stats.stdout.contains(#""retired_beacons" : 1"#) && stats.stdout.contains(#""fingerprints" : 6"#), "\(stats.stdout)")
        let listed = try survey("replace-beacon", "list", "--venue", venue)
        #expect(listed.status == 0 && listed.stdout.contains(beacon), "\(listed.stdout)\(listed.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(removed.stdout.utf8)) as? [String: Any])
        let id = try #require(report["id"] as? Int)
        let undone = try survey("replace-beacon", "undo", "--venue", venue, String(id), "--no-tune")
        #expect(undone.status == 0 && undone.stdout.contains("Undid replacement \(id)"), "\(undone.stdout)\(undone.stderr)")
        #expect(try survey("stats", "--venue", venue, "--json").stdout.contains(#""retired_beacons" : 0"#))
        // Then an export of the PostgreSQL store and a copy of it into a SQLite file hold the same fingerprints
        let out = directory.appendingPathComponent("export").path
        let exported = try survey("export", "--venue", venue, "--out", out)
        #expect(exported.status == 0, "\(exported.stderr)")
        let file = directory.appendingPathComponent("copy.sqlite").path
        let copied = try SurveyProcess.run(["copy", "--from", try #require(Self.url), "--to", file, "--venue", venue])
        #expect(copied.status == 0 && copied.stdout.contains("Copied venue '\(venue)'"), "\(copied.stdout)\(copied.stderr)")
        let fromFile = directory.appendingPathComponent("export-file").path
        #expect(try SurveyProcess.run(["export", "--db", file, "--venue", venue, "--out", fromFile]).status == 0)
        let original = try String(contentsOfFile: out + "/fingerprints.jsonl", encoding: .utf8)
        let copy = try String(contentsOfFile: fromFile + "/fingerprints.jsonl", encoding: .utf8)
        #expect(!original.isEmpty && original == copy)
    }

    @Test("an unreachable PostgreSQL is a clear error that never shows the password")
    func unreachable() throws {
        // Given a URL with a password, on a port where nothing listens
        let result = try SurveyProcess.run(["venue", "list", "--db", "postgres://ops:s3cret@127.0.0.1:1/beaconfix"])
        // Then the command fails, names the store, and hides the password
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot connect to the PostgreSQL store postgres://ops@127.0.0.1:1/beaconfix"), "\(result.stderr)")
        #expect(!result.stderr.contains("s3cret") && !result.stdout.contains("s3cret"))
    }
}
