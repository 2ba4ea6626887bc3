import ScanFormats
import FingerprintStore
import Foundation
import Logging
import Positioning
import PositioningTuning
import Testing
import TestSupport

/// The survey command end to end, as a separate process on real files and a real SQLite database.
@Suite("survey: commands end to end")
struct CommandTests {
    let directory: URL
    let db: String

    init() throws {
        directory = try SurveyProcess.temporaryDirectory()
        db = directory.appendingPathComponent("test.sqlite").path
    }

    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    static let venueJSON = """
        {"id": "hall", "name": "Hall", "floors": [{"level": 0, "name": "Ground"}],
         "beacons": [
           {"uuid": "\(uuid)", "major": 1, "minor": 1, "x": 0, "y": 0, "floor": 0, "label": "B1"},
           {"uuid": "\(uuid)", "major": 1, "minor": 2, "x": 5, "y": 0, "floor": 0, "label": "B2"},
           {"uuid": "\(uuid)", "major": 1, "minor": 3, "x": 10, "y": 0, "floor": 0, "label": "B3"}],
         "spots": [{"name": "a", "x": 0, "y": 0, "floor": 0, "zone": "west"}, {"name": "b", "x": 5, "y": 0, "floor": 0},
                   {"name": "c", "x": 10, "y": 0, "floor": 0, "zone": "east"}]}
        """

    /// Six samples at each spot; the last one at each spot hears nothing.
    static func surveyLog(extraBeacon: Bool = false) -> String {
        var lines: [String] = []
        let levels: [(String, Double, [Int])] = [("a", 0, [-55, -70, -85]), ("b", 5, [-68, -58, -69]), ("c", 10, [-84, -71, -56])]
        var t = 1_700_000_000
        for (spot, x, rssi) in levels {
            for index in 0..<6 {
                t += 1
                var beacons = index == 5 ? [] : rssi.enumerated().map { minor, value in
                    #"{"uuid": "\#(uuid)", "major": 1, "minor": \#(minor + 1), "rssi": \#(value - index % 2)}"#
                }
                if extraBeacon, index == 0 { beacons.append(#"{"uuid": "\#(uuid)", "major": 1, "minor": 42, "rssi": -80}"#) }
                lines.append(#"{"t": \#(t), "device": "phone", "spot": "\#(spot)", "x": \#(x), "y": 0, "floor": 0, "beacons": [\#(beacons.joined(separator: ", "))]}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func write(_ text: String, to name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func survey(_ arguments: String..., input: String? = nil) throws -> SurveyProcess.Result {
        try SurveyProcess.run(arguments + ["--db", db], input: input)
    }

    func importedHall() throws {
        let result = try survey("venue", "import", try write(Self.venueJSON, to: "venue.json"))
        #expect(result.status == 0, "\(result.stderr)")
    }

    func revision() async throws -> Int {
        try await FingerprintStore.open(path: db, logger: Logger(label: "test")).revisions()["hall"] ?? 0
    }

    @Test("venue import, list and show")
    func venueCommands() throws {
        // Given a venue definition
        let path = try write(Self.venueJSON, to: "venue.json")
        // When imported twice
        let first = try survey("venue", "import", path)
        let second = try survey("venue", "import", path, "--json")
        // Then it is created once and the second import changes nothing
        #expect(first.status == 0)
        #expect(first.stdout.contains("Created venue 'hall' (revision 1)"))
        #expect(second.stdout.contains(#""changed_positioning" : false"#))
        let list = try survey("venue", "list")
        #expect(list.stdout.contains("hall"))
        let show = try survey("venue", "show", "hall")
        #expect(show.stdout.contains("\(Self.uuid):1:2  B2"))
        #expect(show.stdout.contains("zone east"))
    }

    @Test("record stores fingerprints and reports per spot, empty scans and spots to revisit")
    func record() async throws {
        try importedHall()
        let log = try write(Self.surveyLog(), to: "survey.jsonl")
        let result = try survey("record", "--venue", "hall", "--window", "3", "--operator", "ana", "--no-tune", log)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Recorded 6 fingerprints from 18 samples into 'hall' (revision 2)."))
        #expect(result.stdout.contains("Skipped 3 empty scans"))
        #expect(result.stdout.contains("a: 2 / 2, 3 beacons"))
        #expect(result.stdout.contains("Revisit 3 spots"))
        #expect(try await revision() == 2)
    }

    @Test("a log of several pieces is recorded whole, and bad lines past its first piece still leave the database unchanged")
    func recordLongLog() async throws {
        // Given the hall and a 2 MB log (decoded and stored a piece at a time)
        try importedHall()
        let base = Self.surveyLog().split(separator: "\n").map(String.init)
        let long = (0..<400).flatMap { _ in base }
        #expect(long.joined(separator: "\n").utf8.count > 2 << 20)
        let good = try write(long.joined(separator: "\n"), to: "long.jsonl")
        // When recorded
        let result = try survey("record", "--venue", "hall", "--window", "3", "--no-tune", "--json", good)
        // Then every window of every copy is there
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""fingerprints" : 2400"#), "\(result.stdout)")
        #expect(result.stdout.contains(#""samples" : 7200"#))
        let before = try await revision()
        let statsBefore = try survey("stats", "--venue", "hall", "--json").stdout
        // When the same log with lines 5,000 and 7,199 broken is recorded: the first piece (1 MB, some
        // 3,500 lines) is stored before the bad lines are read
        var broken = long
        broken[4999] = "{not json"
        broken[7198] = #"{"t": 1, "device": "phone", "beacons": []}"#
        let bad = try write(broken.joined(separator: "\n"), to: "long-bad.jsonl")
        let refused = try survey("record", "--venue", "hall", bad)
        // Then the command names both lines and the database is as it was
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("2 malformed lines; nothing was written"), "\(refused.stderr)")
        #expect(refused.stderr.contains("\(bad):5000:"))
        #expect(refused.stderr.contains("\(bad):7199: survey and test lines need their ground truth"))
        #expect(try await revision() == before)
        #expect(try survey("stats", "--venue", "hall", "--json").stdout == statsBefore)
    }

    @Test("an empty or blank log is refused, nothing recorded")
    func recordEmptyLog() async throws {
        try importedHall()
        for content in ["", "\n  \n\n"] {
            let log = try write(content, to: "empty.jsonl")
            let result = try survey("record", "--venue", "hall", log)
            #expect(result.status != 0)
            #expect(result.stderr.contains("\(log) holds no scan line; nothing was recorded"), "\(result.stderr)")
            #expect(try await revision() == 1)
        }
    }

    @Test("record reads standard input with -")
    func recordFromStandardInput() throws {
        try importedHall()
        let result = try survey("record", "--venue", "hall", "--json", "-", input: Self.surveyLog())
        #expect(result.status == 0, "\(result.stderr)")
        // One fingerprint per heard scan (the default window of 1), then the tuning
        #expect(result.stdout.contains(#""fingerprints" : 15"#))
        #expect(result.stdout.contains(#""tuning" : {"#))
    }

    @Test("a malformed line is reported as FILE:LINE and leaves the database unchanged")
    func malformedLine() async throws {
        // Given a recorded venue and a log whose 7th line is broken
        try importedHall()
        let good = try write(Self.surveyLog(), to: "good.jsonl")
        _ = try survey("record", "--venue", "hall", good)
        let before = try await revision()
        let statsBefore = try survey("stats", "--venue", "hall", "--json").stdout
        var lines = Self.surveyLog().split(separator: "\n").map(String.init)
        lines[6] = #"{"t": 1, "device": "phone", "spot": "b", "x": 5, "y": 0, "beacons": [{"uuid": "E2C5", "major": 1}]"#
        let bad = try write(lines.joined(separator: "\n"), to: "bad.jsonl")
        // When recorded
        let result = try survey("record", "--venue", "hall", bad)
        // Then the command fails, names the line, and nothing changed
        #expect(result.status != 0)
        #expect(result.stderr.contains("\(bad):7:"))
        #expect(result.stderr.contains("nothing was written"))
        #expect(!result.stderr.contains("Fatal error"))
        #expect(try await revision() == before)
        #expect(try survey("stats", "--venue", "hall", "--json").stdout == statsBefore)
        // And with --skip-bad the rest is recorded and the bad line counted
        let skipping = try survey("record", "--venue", "hall", "--skip-bad", bad)
        #expect(skipping.status == 0, "\(skipping.stderr)")
        #expect(skipping.stdout.contains("Skipped 1 malformed lines."))
    }

    @Test("RSSI out of range, lines without ground truth and an unknown venue are clear errors", arguments: [
        (#"{"t": 1, "device": "p", "spot": "a", "x": 0, "y": 0, "beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 1, "rssi": 30}]}"#,
         "hall", "rssi 30 is outside -127...20 dBm"),
        (#"{"t": 1, "device": "p", "beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 1, "rssi": -60}]}"#,
         "hall", "need their ground truth"),
        (#"{"t": 1, "device": "p", "spot": "a", "x": 0, "y": 0, "beacons": []}"#, "atlantis", "there is no venue 'atlantis'"),
    ])
    func clearErrors(line: String, venue: String, message: String) throws {
        try importedHall()
        let result = try survey("record", "--venue", venue, try write(line, to: "one.jsonl"))
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
    }

    @Test("beacons unknown to the venue are counted and listed, or added with --add-unknown-beacons")
    func unknownBeacons() throws {
        try importedHall()
        let log = try write(Self.surveyLog(extraBeacon: true), to: "survey.jsonl")
        let listed = try survey("record", "--venue", "hall", log)
        #expect(listed.stdout.contains("Left out 3 readings of 1 beacons unknown to the venue"))
        #expect(listed.stdout.contains("\(Self.uuid):1:42: 3"))
        let added = try survey("record", "--venue", "hall", "--add-unknown-beacons", log)
        #expect(added.stdout.contains("Added 1 beacons: \(Self.uuid):1:42."))
        #expect(try survey("venue", "show", "hall").stdout.contains(":1:42"))
    }

    @Test("locate prints one JSON answer per window, unknown for an empty scan")
    func locate() throws {
        try importedHall()
        _ = try survey("record", "--venue", "hall", try write(Self.surveyLog(), to: "survey.jsonl"))
        let live = """
            {"t": 1, "device": "visitor", "beacons": [{"uuid": "\(Self.uuid)", "major": 1, "minor": 1, "rssi": -84}, {"uuid": "\(Self.uuid)", "major": 1, "minor": 2, "rssi": -70}, {"uuid": "\(Self.uuid)", "major": 1, "minor": 3, "rssi": -57}]}
            {"t": 2, "device": "visitor", "beacons": [{"uuid": "\(Self.uuid)", "major": 1, "minor": 3, "rssi": -55}]}
            {"t": 1, "device": "lost", "beacons": []}
            """
        let result = try survey("locate", "--venue", "hall", "--window", "2", "-", input: live)
        #expect(result.status == 0, "\(result.stderr)")
        let answers = result.stdout.split(separator: "\n")
        #expect(answers.count == 2)
        #expect(answers[0].contains(#""status":"located""#))
        #expect(answers[0].contains(#""spot":"c""#))
        #expect(answers[0].contains(#""samples":2"#))
        #expect(answers[1].contains(#""code":"no_known_beacon""#))
    }

    @Test("a geo anchor is shown, exported and imported back, and locate's positions carry lat/lon that convert back to x/y")
    func geoAnchor() async throws {
        // Given the hall with a geo anchor, recorded
        let anchored = Self.venueJSON.replacingOccurrences(
            of: #"{"id": "hall","#, with: #"{"id": "hall", "geo": {"lat": 41.3851, "lon": 2.1734, "bearing": 123.25},"#)
        #expect(try survey("venue", "import", try write(anchored, to: "venue.json")).status == 0)
        _ = try survey("record", "--venue", "hall", try write(Self.surveyLog(), to: "survey.jsonl"))
        // When it is shown
        let shown = try survey("venue", "show", "hall")
        // Then the anchor is said
        #expect(shown.stdout.contains("Geo anchor: origin at lat 41.3851, lon 2.1734; +x axis bearing 123.25° from true north"), "\(shown.stdout)")
        // When it is exported and imported into another database
        let out = directory.appendingPathComponent("export").path
        #expect(try survey("export", "--venue", "hall", "--out", out).status == 0)
        let exported = try JSONDecoder().decode(VenueDefinition.self, from: Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent("venue.json")))
        let other = directory.appendingPathComponent("other.sqlite").path
        #expect(try SurveyProcess.run(["import", out, "--db", other]).status == 0)
        // Then the anchor went out and came back exactly
        let expected = GeoAnchor(lat: 41.3851, lon: 2.1734, bearing: 123.25)
        #expect(exported.geo == expected)
        #expect(try await FingerprintStore.open(path: other, logger: Logger(label: "test")).venue("hall").geo == expected)
        // And locate's position carries lat/lon that the anchor turns back into its x/y within 1 cm
        let live = #"{"t": 1, "device": "visitor", "beacons": [{"uuid": "\#(Self.uuid)", "major": 1, "minor": 1, "rssi": -84}, {"uuid": "\#(Self.uuid)", "major": 1, "minor": 2, "rssi": -70}, {"uuid": "\#(Self.uuid)", "major": 1, "minor": 3, "rssi": -57}]}"#
        let located = try survey("locate", "--venue", "hall", "-", input: live + "\n")
        #expect(located.status == 0, "\(located.stderr)")
        let answer = try JSONSerialization.jsonObject(with: Data(located.stdout.utf8)) as? [String: Any]
        let position = try #require((answer?["result"] as? [String: Any])?["position"] as? [String: Any], "\(located.stdout)")
        let back = expected.venuePoint(.init(lat: try #require(position["lat"] as? Double), lon: try #require(position["lon"] as? Double)))
        #expect(hypot(back.x - (position["x"] as! Double), back.y - (position["y"] as! Double)) < 0.01)
    }

    /// A 1 × 1 PNG.
    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

    func writeData(_ data: Data, to name: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
        return url.path
    }

    @Test("floor plans: venue import stores the image, export writes it and import reads it back byte for byte; venue plan replaces one and bumps the revision")
    func floorPlans() async throws {
        // Given the hall with an SVG plan beside its venue.json
        let svg = ##"<svg xmlns="http://www.w3.org/2000/svg" width="12" height="4"><rect width="12" height="4" fill="none" stroke="#999"/></svg>"## + "\n"
        _ = try writeData(Data(svg.utf8), to: "plans/ground.svg")
        let planned = Self.venueJSON.replacingOccurrences(
            of: #"{"level": 0, "name": "Ground"}"#,
            with: #"{"level": 0, "name": "Ground", "plan": {"image": "plans/ground.svg", "top_left": {"x": -1, "y": 2}, "bottom_right": {"x": 11, "y": -2}}}"#)
        // When it is imported and recorded
        let imported = try survey("venue", "import", try write(planned, to: "venue.json"))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("1 floor plans and 0 zone polygons set"))
        _ = try survey("record", "--venue", "hall", try write(Self.surveyLog(), to: "survey.jsonl"))
        #expect(try survey("venue", "show", "hall").stdout.contains(
            "plan of floor 0: plans/ground.svg, placed by its corners: top-left (-1.00, 2.00), top-right (11.00, 2.00), bottom-right (11.00, -2.00)"))
        // And exported, imported into another database and exported again
        let first = directory.appendingPathComponent("export-1")
        #expect(try survey("export", "--venue", "hall", "--out", first.path).status == 0)
        let other = directory.appendingPathComponent("other.sqlite").path
        let reimported = try SurveyProcess.run(["import", first.path, "--db", other])
        #expect(reimported.status == 0, "\(reimported.stderr)")
        let second = directory.appendingPathComponent("export-2")
        #expect(try SurveyProcess.run(["export", "--venue", "hall", "--out", second.path, "--db", other]).status == 0)
        // Then the plan went out byte for byte, came back, and both exports are the same bytes
        #expect(try Data(contentsOf: first.appendingPathComponent("plans/ground.svg")) == Data(svg.utf8))
        for file in ["venue.json", "plans/ground.svg", "fingerprints.jsonl"] {
            #expect(try Data(contentsOf: first.appendingPathComponent(file)) == Data(contentsOf: second.appendingPathComponent(file)), "\(file) differs")
        }
        // When venue plan sets a PNG instead
        let before = try await revision()
        let set = try survey(
            "venue", "plan", "--venue", "hall", "--floor", "0", "--image", try writeData(Self.png, to: "scan.png"),
            "--top-left", "-1,3", "--bottom-right", "10,-3")
        // Then it replaces the plan at the next revision, and export writes the PNG's bytes
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try await revision() == before + 1)
        let third = directory.appendingPathComponent("export-3")
        #expect(try survey("export", "--venue", "hall", "--out", third.path).status == 0)
        #expect(try Data(contentsOf: third.appendingPathComponent("plans/floor-0.png")) == Self.png)
        let definition = try JSONDecoder().decode(VenueDefinition.self, from: Data(contentsOf: third.appendingPathComponent("venue.json")))
        #expect(definition.floors[0].plan == FloorPlanPlacement(image: "plans/floor-0.png", topLeft: .init(x: -1, y: 3), bottomRight: .init(x: 10, y: -3)))

        // When venue plan places the SVG by two reference points instead, turned a quarter anticlockwise
        let turned = try survey(
            "venue", "plan", "--venue", "hall", "--floor", "0", "--image", try write(svg, to: "turned.svg"),
            "--reference-point", "0,4=0,0", "--reference-point", "12,4=0,6", "--json")
        #expect(turned.status == 0, "\(turned.stderr)")
        let corners = try #require((try JSONSerialization.jsonObject(with: Data(turned.stdout.utf8)) as? [String: Any])?["corners"] as? [String: [String: Double]])
        #expect(corners["top_right"] == ["x": -2, "y": 6] || corners["topRight"] == ["x": -2, "y": 6], "\(corners)")
        // Then export writes the points as given, and a fresh import of that export places it the same way
        let fourth = directory.appendingPathComponent("export-4")
        #expect(try survey("export", "--venue", "hall", "--out", fourth.path).status == 0)
        let exported = try String(contentsOf: fourth.appendingPathComponent("venue.json"), encoding: .utf8)
        #expect(exported.contains("reference_points") && !exported.contains("top_left"))
        let fresh = directory.appendingPathComponent("fresh.sqlite").path
        #expect(try SurveyProcess.run(["import", fourth.path, "--db", fresh]).status == 0)
        #expect(try SurveyProcess.run(["venue", "show", "hall", "--db", fresh]).stdout.contains("placed by two reference points: top-left (-2.00, 0.00), top-right (-2.00, 6.00), bottom-right (0.00, 6.00)"))
        // And mixing the two ways, or one point alone, is refused saying how to place it
        let mixed = try survey(
            "venue", "plan", "--venue", "hall", "--floor", "0", "--image", try write(svg, to: "mixed.svg"),
            "--reference-point", "0,4=0,0", "--top-left", "0,1", "--bottom-right", "1,0")
        #expect(mixed.status != 0 && mixed.stderr.contains("with --top-left and --bottom-right, or with two --reference-point options"), "\(mixed.stderr)")
    }

    @Test("floor plans: bad placements, unknown floors, missing, mislabelled and oversized images are refused with clear errors")
    func floorPlanErrors() async throws {
        try importedHall()
        let png = try writeData(Self.png, to: "scan.png")
        let before = try await revision()
        func plan(_ image: String, _ topLeft: String = "0,3", _ bottomRight: String = "10,-3", floor: String = "0") async throws -> SurveyProcess.Result {
            try survey("venue", "plan", "--venue", "hall", "--floor", floor, "--image", image, "--top-left", topLeft, "--bottom-right", bottomRight)
        }
        let cases: [(SurveyProcess.Result, String)] = [
            (try await plan(png, "10,3", "0,-3"), "floor 0's plan: top_left.x (10.0) must be less than bottom_right.x (0.0)"),
            (try await plan(png, "0,-3", "10,3"), "top_left.y (-3.0) must be greater than bottom_right.y (3.0)"),
            (try await plan(png, "nope"), "--top-left takes venue metres as x,y, such as 0,24 (got 'nope')"),
            (try await plan(png, floor: "5"), "venue 'hall' has no floor 5 (its floors: 0)"),
            (try await plan(try writeData(Self.png, to: "plan.svg")), "is named as image/svg+xml but its content is image/png"),
            (try await plan(try writeData(Self.png + Data(count: 10 * 1024 * 1024), to: "big.png")), "a floor plan may be at most 10485760 bytes (10 MiB)"),
            (try await plan(directory.appendingPathComponent("absent.png").path), "no such file, or not readable"),
            (try await plan(try writeData(Data("GIF89a".utf8), to: "plan.gif")), "--image must be a .png, .jpg, .jpeg or .svg file"),
        ]
        for (result, message) in cases {
            #expect(result.status != 0)
            #expect(result.stderr.contains(message), "expected '\(message)' in: \(result.stderr)")
        }
        // And none of them changed the venue
        #expect(try await revision() == before)
        // And a venue.json naming a missing plan image is refused before anything is written
        let missing = Self.venueJSON.replacingOccurrences(
            of: #"{"id": "hall","#, with: #"{"id": "hall2","#).replacingOccurrences(
            of: #"{"level": 0, "name": "Ground"}"#,
            with: #"{"level": 0, "name": "Ground", "plan": {"image": "plans/missing.svg", "top_left": {"x": -1, "y": 2}, "bottom_right": {"x": 11, "y": -2}}}"#)
        let refused = try survey("venue", "import", try write(missing, to: "missing.json"))
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("cannot read floor 0's plan plans/missing.svg"), "\(refused.stderr)")
        #expect(try await FingerprintStore.open(path: db, logger: Logger(label: "test")).revisions()["hall2"] == nil)
    }

    @Test("evaluate against a walk and by cross-validation")
    func evaluate() throws {
        try importedHall()
        let log = try write(Self.surveyLog(), to: "survey.jsonl")
        _ = try survey("record", "--venue", "hall", "--window", "1", log)
        let walk = try survey("evaluate", "--venue", "hall", "--test", log, "--json")
        #expect(walk.status == 0, "\(walk.stderr)")
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let report = try decoder.decode(Report.self, from: Data(walk.stdout.utf8)).report
        #expect(report.queries == 15)
        #expect(report.located == 15)
        #expect(report.emptySamples == 3)
        let text = try survey("evaluate", "--venue", "hall", "--cross-validate")
        #expect(text.stdout.contains("leave-one-spot-out cross-validation"))
        // Each scan is located among the two other spots, with the tuned configuration
        #expect(text.stdout.contains("queries 15"))
        #expect(text.stdout.contains("configuration: tuned at revision 3"), "\(text.stdout)")
        let replay = try survey("evaluate", "--venue", "hall", "--test", log, "--replay")
        #expect(replay.stdout.contains("through the tracker"))
    }

    @Test("evaluate --compare knn runs the k-NN baseline on the same survey and walk, beside the matcher")
    func evaluateCompare() async throws {
        // Given the hall surveyed one scan per fingerprint, and a walk standing at x = 2 and x = 8, between
        // the spots, with one scan that heard nothing
        try importedHall()
        let log = try write(Self.surveyLog(), to: "survey.jsonl")
        _ = try survey("record", "--venue", "hall", "--window", "1", log)
        func line(_ t: Int, _ x: Double, _ rssi: [Int]) -> String {
            let beacons = rssi.enumerated().map { #"{"uuid": "\#(Self.uuid)", "major": 1, "minor": \#($0.offset + 1), "rssi": \#($0.element)}"# }
            return #"{"t": \#(t), "device": "visitor", "x": \#(x), "y": 0, "floor": 0, "beacons": [\#(beacons.joined(separator: ", "))]}"#
        }
        let walkLines = [
            line(1, 2, [-62, -64, -77]), line(2, 2, [-63, -63, -78]), line(3, 2, []),
            line(10, 8, [-77, -64, -61]), line(11, 8, [-76, -65, -62]),
        ]
        let walk = try write(walkLines.joined(separator: "\n") + "\n", to: "walk.jsonl")

        // When evaluated with --compare knn, as JSON
        let result = try survey("evaluate", "--venue", "hall", "--test", walk, "--compare", "knn", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let output = try decoder.decode(CompareOutput.self, from: Data(result.stdout.utf8))
        // Then the baseline answered the same 4 queries, skipping the same empty scan, for every k of 1...20
        let comparison = output.comparison
        #expect(comparison.baseline == "knn")
        #expect(comparison.windowSize == 1)
        #expect(comparison.report.queries == output.report.queries)
        #expect(comparison.report.queries == 4)
        #expect(comparison.report.emptySamples == 1)
        #expect(comparison.byK.map(\.k) == Array(1...20))
        // And its figures are Positioning's baseline on the same files, its best k the one with the least mean error
        let configuration = PositioningConfiguration()
        let venue = try JSONDecoder().decode(VenueDefinition.self, from: Data(Self.venueJSON.utf8))
        func labelled(_ path: String) throws -> [LabelledSample] {
            try ScanLogDecoder().decode(Data(contentsOf: URL(fileURLWithPath: path))).lines.map {
                LabelledSample(sample: try $0.line.sample(), truth: $0.line.groundTruth!)
            }
        }
        let references = SurveyFingerprints(survey: try labelled(log), windowSize: 1, spots: venue.spots, builder: configuration.builder)
        let direct = try RSSINearestNeighbours(spots: references.spots, fingerprints: references.fingerprints)
            .evaluate(try labelled(walk), windowSize: 1, builder: configuration.builder)
        #expect(comparison.bestK == direct.bestK)
        let knnMean = try #require(direct.report.errors?.mean)
        #expect(abs(comparison.report.errors.mean - knnMean) < 1e-9)
        #expect(comparison.byK.allSatisfy { $0.meanError >= knnMean - 1e-9 })
        // And the ratio is the matcher's mean over the baseline's, on the 4 queries both located
        #expect(comparison.paired.queries == 4 && comparison.paired.bothLocated == 4)
        #expect(comparison.paired.onlyMatcherLocated == 0 && comparison.paired.onlyBaselineLocated == 0)
        #expect(abs(comparison.ratio.mean - output.report.errors.mean / knnMean) < 1e-9)

        // When replayed through the tracker and compared, as JSON
        let replayed = try survey("evaluate", "--venue", "hall", "--test", walk, "--replay", "--compare", "knn", "--json")
        #expect(replayed.status == 0, "\(replayed.stderr)")
        let tracked = try decoder.decode(CompareOutput.self, from: Data(replayed.stdout.utf8))
        // Then k-NN answered the same 5 samples (the empty one from the samples before it) from the tracker's
        // window of the venue's configuration, and the ratio is over the samples both located
        let trackerWindow = try await FingerprintStore.open(path: db, logger: Logger(label: "test")).survey(
            of: "hall", scale: PositioningConfiguration.defaultScale).configuration.tracking.window
        #expect(tracked.comparison.windowSize == nil && tracked.comparison.windowSeconds == trackerWindow)
        #expect(tracked.report.queries == 5 && tracked.comparison.report.queries == 5)
        #expect(tracked.comparison.paired.queries == 5)
        #expect(tracked.comparison.paired.bothLocated + tracked.comparison.paired.onlyMatcherLocated
            + tracked.comparison.paired.onlyBaselineLocated + tracked.comparison.paired.neitherLocated == 5)

        // When printed as text, through the tracker
        let text = try survey("evaluate", "--venue", "hall", "--test", walk, "--replay", "--compare", "knn")
        // Then both figures, the paired figures, the ratio and the per-k table are there, the baseline on the
        // tracker's window
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("best k \(tracked.comparison.bestK) of 1...20, every sample from its device's last "), "\(text.stdout)")
        #expect(text.stdout.contains("    matcher: mean "))
        #expect(text.stdout.contains("    k-NN:    mean "))
        #expect(text.stdout.contains("unknown 0 of 5"))
        #expect(text.stdout.contains("queries both located: matcher mean "), "\(text.stdout)")
        #expect(text.stdout.contains("matcher / k-NN (queries both located): mean "))
        #expect(text.stdout.contains("k-NN mean error by k: 1: "))
        #expect(text.stdout.contains("standing still 3.00 s"), "\(text.stdout)")
    }

    @Test("export then import into a fresh database round-trips exactly")
    func exportImport() throws {
        // Given a recorded venue
        try importedHall()
        _ = try survey("record", "--venue", "hall", "--operator", "ana", try write(Self.surveyLog(), to: "survey.jsonl"))
        let first = directory.appendingPathComponent("export-1").path
        let exported = try survey("export", "--venue", "hall", "--out", first)
        #expect(exported.status == 0, "\(exported.stderr)")
        // When imported into another database and exported again
        let other = directory.appendingPathComponent("other.sqlite").path
        let imported = try SurveyProcess.run(["import", first, "--db", other])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("15 fingerprints, 45 entries, 1 sessions"))
        let second = directory.appendingPathComponent("export-2").path
        _ = try SurveyProcess.run(["export", "--venue", "hall", "--out", second, "--db", other])
        // Then both exports are byte for byte the same
        for file in ["venue.json", "fingerprints.jsonl"] {
            let a = try Data(contentsOf: URL(fileURLWithPath: first).appendingPathComponent(file))
            let b = try Data(contentsOf: URL(fileURLWithPath: second).appendingPathComponent(file))
            #expect(a == b, "\(file) differs")
            #expect(!a.isEmpty)
        }
        // And importing again into a database that has them is refused
        let again = try SurveyProcess.run(["import", first, "--db", other])
        #expect(again.status != 0)
        #expect(again.stderr.contains("already has fingerprints"))
    }

    @Test("import is one transaction: a bad fingerprint leaves the database without the venue; dates are ISO 8601")
    func importIsAtomic() throws {
        // Given an export whose last fingerprint names a spot the venue does not have
        try importedHall()
        _ = try survey("record", "--venue", "hall", "--operator", "ana", try write(Self.surveyLog(), to: "survey.jsonl"))
        let folder = directory.appendingPathComponent("export-bad")
        #expect(try survey("export", "--venue", "hall", "--out", folder.path).status == 0)
        let fingerprints = folder.appendingPathComponent("fingerprints.jsonl")
        var lines = try String(contentsOf: fingerprints, encoding: .utf8).split(separator: "\n").map(String.init)
        // The export's session dates are ISO 8601, as every machine-readable output of beaconfix writes them
        let session = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])["session"] as? [String: Any]
        let recordedAt = try #require(session?["recorded_at"] as? String, "\(lines[0])")
        #expect(recordedAt.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(recordedAt)")
        lines[lines.count - 1] = lines[lines.count - 1].replacingOccurrences(of: #""spot":"c""#, with: #""spot":"atlantis""#)
        try (lines.joined(separator: "\n") + "\n").write(to: fingerprints, atomically: true, encoding: .utf8)
        // When it is imported into a fresh database
        let other = directory.appendingPathComponent("fresh.sqlite").path
        let imported = try SurveyProcess.run(["import", folder.path, "--db", other])
        // Then the import fails, says why and that nothing was written, and the venue is not there
        #expect(imported.status == 1)
        #expect(imported.stderr.contains("atlantis") && imported.stderr.contains("nothing was written"), "\(imported.stderr)")
        let venues = try SurveyProcess.run(["venue", "list", "--json", "--db", other])
        #expect(!venues.stdout.contains("hall"), "\(venues.stdout)")
        // And an export written before dates were ISO 8601 (a number) still imports
        lines[lines.count - 1] = lines[lines.count - 1].replacingOccurrences(of: #""spot":"atlantis""#, with: #""spot":"c""#)
        let numeric = lines.map { $0.replacingOccurrences(of: #""recorded_at":"\#(recordedAt)""#, with: #""recorded_at":1795000000.5"#) }
        try (numeric.joined(separator: "\n") + "\n").write(to: fingerprints, atomically: true, encoding: .utf8)
        let again = try SurveyProcess.run(["import", folder.path, "--db", other])
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test("stats names beacons never seen and thin spots")
    func stats() throws {
        try importedHall()
        let log = """
            {"t": 1, "device": "p", "spot": "a", "x": 0, "y": 0, "beacons": [{"uuid": "\(Self.uuid)", "major": 1, "minor": 1, "rssi": -60}]}
            """
        _ = try survey("record", "--venue", "hall", try write(log, to: "one.jsonl"))
        let result = try survey("stats", "--venue", "hall")
        #expect(result.stdout.contains("Beacons never seen (2)"))
        #expect(result.stdout.contains("Thin spots (3)"))
    }

    @Test("commands on a missing database say how to create one")
    func missingDatabase() throws {
        let result = try survey("venue", "list")
        #expect(result.status != 0)
        #expect(result.stderr.contains("there is no database at"))
    }

    @Test("simulate regenerates venues/demo-hall byte for byte")
    func simulateIsReproducible() throws {
        let out = directory.appendingPathComponent("demo").path
        let result = try SurveyProcess.run(["simulate", "--seed", "7", "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        let committed = SurveyProcess.packageRoot.appendingPathComponent("venues/demo-hall")
        for file in ["venue.json", "plans/ground.svg", "plans/gallery.svg", "survey.jsonl", "walk.jsonl", "locate-request.json"] {
            let generated = try Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent(file))
            #expect(generated == (try Data(contentsOf: committed.appendingPathComponent(file))), "\(file) differs")
        }
    }

    @Test("replace-beacon: dry run, replace, list, undo and remove, each changing the revision as said")
    func replaceBeacon() async throws {
        try importedHall()
        _ = try survey("record", "--venue", "hall", "--window", "3", "--no-tune", try write(Self.surveyLog(), to: "survey.jsonl"))
        let old = "\(Self.uuid):1:3", new = "\(Self.uuid):1:30"
        let start = try await revision()
        // A dry run reports and writes nothing
        let dry = try survey("replace-beacon", "replace", "--venue", "hall", "--old", old, "--new", new, "--dry-run")
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("Would replace \(old) by \(new): 6 survey entries inherited"))
        #expect(try await revision() == start)
        // The replacement itself
        let done = try survey("replace-beacon", "replace", "--venue", "hall", "--old", old, "--new", new, "--operator", "ops", "--no-tune")
        #expect(done.stdout.contains("Replaced \(old) by \(new)"))
        #expect(try await revision() == start + 1)
        #expect(try survey("venue", "show", "hall").stdout.contains("\(old)  B3  at (10.0, 0.0) floor 0  retired"))
        let list = try survey("replace-beacon", "list", "--venue", "hall")
        #expect(list.stdout.contains("ops  \(old) → \(new), 6 entries"))
        // Undo
        let undone = try survey("replace-beacon", "undo", "--venue", "hall", "1", "--no-tune")
        #expect(undone.stdout.contains("Undid replacement 1"))
        #expect(try await revision() == start + 2)
        // Removal, and the errors of a second removal and an unknown beacon
        let removed = try survey("replace-beacon", "remove", "--venue", "hall", "--old", old, "--json")
        #expect(removed.stdout.contains(#""kind" : "remove""#))
        let again = try survey("replace-beacon", "remove", "--venue", "hall", "--old", old)
        #expect(again.status != 0)
        #expect(again.stderr.contains("already retired"))
        let unknown = try survey("replace-beacon", "remove", "--venue", "hall", "--old", "\(Self.uuid):9:9")
        #expect(unknown.stderr.contains("venue 'hall' has no beacon \(Self.uuid):9:9"))
    }

    /// `evaluate --compare knn --json`, the parts the test reads.
    struct CompareOutput: Decodable {
        struct Errors: Decodable { var mean: Double }
        struct Report: Decodable {
            var queries: Int
            var emptySamples: Int
            var errors: Errors
        }
        struct Comparison: Decodable {
            struct Row: Decodable { var k: Int; var meanError: Double }
            struct Ratio: Decodable { var mean: Double }
            struct Paired: Decodable {
                var queries: Int
                var bothLocated: Int
                var onlyMatcherLocated: Int
                var onlyBaselineLocated: Int
                var neitherLocated: Int
            }
            var baseline: String
            var windowSize: Int?
            var windowSeconds: Double?
            var paired: Paired
            var bestK: Int
            var report: Report
            var byK: [Row]
            var ratio: Ratio
        }
        var report: Report
        var comparison: Comparison
    }

    struct Report: Decodable {
        struct Inner: Decodable {
            var queries: Int
            var located: Int
            var emptySamples: Int
        }
        var report: Inner
    }
}

/// `survey record --path`: a walking survey from a file, and `survey simulate --survey-mode walking`.
@Suite("survey: walking surveys")
struct WalkingSurveyCommandTests {
    let commands: CommandTests

    init() throws {
        commands = try CommandTests()
    }

    /// A surveyor walking the hall from spot a to spot c in 10 s, one sample a second, the phone on
    /// from 2 s before the first tap to 2 s after the last.
    static func walkLog() -> String {
        (0...14).map { second in
            let x = min(10, max(0, Double(second - 2)))
            let rssi = [(0.0, 1), (5.0, 2), (10.0, 3)].map { beaconX, minor in
                #"{"uuid": "\#(CommandTests.uuid)", "major": 1, "minor": \#(minor), "rssi": \#(-50 - Int(3 * abs(beaconX - x)))}"#
            }
            return #"{"t": \#(1_700_000_000 + second), "device": "phone", "beacons": [\#(rssi.joined(separator: ", "))]}"#
        }.joined(separator: "\n") + "\n"
    }

    @Test("record --path places the lines without coordinates along the walk, joins them to spots or cells, and counts what it left out")
    func recordWalk() throws {
        // Given the hall, a log without coordinates and a path from spot a to spot c
        try commands.importedHall()
        let log = try commands.write(Self.walkLog(), to: "walk.jsonl")
        let path = try commands.write(#"{"t": 1700000002, "spot": "a"}"# + "\n" + #"{"t": 1700000012, "spot": "c"}"# + "\n", to: "path.jsonl")
        // When recorded with the path, as JSON
        let recorded = try commands.survey("record", "--venue", "hall", "--path", path, "--no-tune", "--json", log)
        // Then the 11 samples from the first tap to the last are placed, the 4 outside are left out and counted
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let output = try #require(try JSONSerialization.jsonObject(with: Data(recorded.stdout.utf8)) as? [String: Any])
        let walk = try #require(output["walk"] as? [String: Int], "\(recorded.stdout)")
        #expect(walk["placed"] == 11 && walk["before_first_checkpoint"] == 2 && walk["after_last_checkpoint"] == 2, "\(walk)")
        let summary = try #require(output["summary"] as? [String: Any])
        #expect(summary["fingerprints"] as? Int == 11)
        // And samples within 0.5 m of a, b and c joined them; the 8 between went to 1 m cells, one spot each
        let spots = try #require(summary["spots"] as? [[String: Any]])
        let added = Dictionary(uniqueKeysWithValues: spots.map { ($0["spot"] as? String ?? "", $0["added"] as? Int ?? 0) })
        #expect(added["a"] == 1 && added["b"] == 1 && added["c"] == 1, "\(added)")
        #expect((summary["spots_created"] as? [String])?.count == 8, "\(summary)")
        #expect(added["2.5,0.5,0"] == 1, "\(added)")
        // And the text says what was placed and left out
        let text = try commands.survey("record", "--venue", "hall", "--path", path, "--no-tune", log)
        #expect(text.stdout.contains("Walking survey: placed 11 samples along the path; left out 4 (2 before the first checkpoint, 2 after the last) (2 checkpoints)."), "\(text.stdout)")
    }

    @Test("a bad path file is refused with FILE:LINE and nothing is written; bad options are refused before anything is read")
    func refusals() async throws {
        // Given the hall and the walk
        try commands.importedHall()
        let log = try commands.write(Self.walkLog(), to: "walk.jsonl")
        let path = try commands.write(#"{"t": 1700000002, "spot": "a"}"# + "\n" + #"{"t": 1700000012, "spot": "nowhere"}"# + "\n", to: "path.jsonl")
        // When recorded with a path naming a spot the hall lacks
        let refused = try commands.survey("record", "--venue", "hall", "--path", path, log)
        // Then the line is named, and the venue is untouched
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("path.jsonl:2: the venue has no spot 'nowhere'"), "\(refused.stderr)")
        #expect(refused.stderr.contains("nothing was written"), "\(refused.stderr)")
        #expect(try await commands.revision() == 1)
        // And without a path the lines are malformed, as before
        let unplaced = try commands.survey("record", "--venue", "hall", log)
        #expect(unplaced.status != 0 && unplaced.stderr.contains("ground truth"), "\(unplaced.stderr)")
        // And a cell of 0 is refused
        let cell = try commands.survey("record", "--venue", "hall", "--path", path, "--cell", "0", log)
        #expect(cell.status != 0 && cell.stderr.contains("--cell must be from 0.05 to 100 metres"), "\(cell.stderr)")
    }

    @Test("simulate --survey-mode walking writes a log without coordinates and its path, which record --path takes")
    func simulateWalking() throws {
        // Given a simulated 4-minute walking survey of demo-hall
        let out = commands.directory.appendingPathComponent("sim").path
        let simulated = try SurveyProcess.run(["simulate", "--out", out, "--survey-mode", "walking", "--survey-minutes", "4"])
        #expect(simulated.status == 0, "\(simulated.stderr)")
        #expect(simulated.stdout.contains("path.jsonl"), "\(simulated.stdout)")
        // Then the survey has a line a second and none carries coordinates
        let survey = try String(contentsOfFile: out + "/survey.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(survey.count == 241)
        #expect(!survey.contains { $0.contains("\"x\"") })
        // When the venue is imported and the walk recorded with its path
        #expect(try commands.survey("venue", "import", out + "/venue.json").status == 0)
        let recorded = try commands.survey("record", "--venue", "demo-hall", "--path", out + "/path.jsonl", "--no-tune", "--json", out + "/survey.jsonl")
        // Then all of it is placed but the 20 s on the stairs and what followed the last tap, and every line is counted
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let output = try #require(try JSONSerialization.jsonObject(with: Data(recorded.stdout.utf8)) as? [String: Any])
        let walk = try #require(output["walk"] as? [String: Int])
        #expect((walk["placed"] ?? 0) > 210, "\(walk)")
        #expect((walk["between_floors"] ?? 0) >= 18, "\(walk)")
        #expect(walk.values.reduce(0, +) == 241, "\(walk)")
    }
}
