import FingerprintStore
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Logging
import Testing

/// `survey map` end to end: the SVG a surveyor takes into the venue.
@Suite("survey map: the floor as SVG")
struct MapCommandTests {
    let commands: CommandTests

    init() throws {
        commands = try CommandTests()
    }

    /// The elements of `svg` whose tag is `tag`, with their attributes (the SVG must parse as XML).
    func elements(_ tag: String, in svg: String) throws -> [[String: String]] {
        final class Collector: NSObject, XMLParserDelegate {
            let tag: String
            var found: [[String: String]] = []
            init(tag: String) { self.tag = tag }
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
                if name == tag { found.append(attributes) }
            }
        }
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = Collector(tag: tag)
        parser.delegate = collector
        #expect(parser.parse(), "the SVG is not well-formed XML: \(String(describing: parser.parserError))")
        return collector.found
    }

    @Test("coverage: every spot of the floor by its fingerprints, thin ones marked; beacons by state; a legend")
    func coverage() throws {
        // Given the hall, surveyed at a and c only (b has no fingerprint, so it is thin)
        try commands.importedHall()
        let log = CommandTests.surveyLog().split(separator: "\n").filter { !$0.contains(#""spot": "b""#) }.joined(separator: "\n")
        _ = try commands.survey("record", "--venue", "hall", try commands.write(log, to: "survey.jsonl"))
        _ = try commands.survey("replace-beacon", "remove", "--venue", "hall", "--old", "\(CommandTests.uuid):1:3", "--no-tune")
        // When the surveyor draws the ground floor
        let out = commands.directory.appendingPathComponent("ground.svg").path
        let result = try commands.survey("map", "--venue", "hall", "--out", out)
        #expect(result.status == 0, "\(result.stderr)")
        // Then the picture has the three spots, the thin ones marked as `survey stats` names them, b among
        // them, and the three beacons by state
        let stats = try JSONSerialization.jsonObject(with: Data(try commands.survey("stats", "--venue", "hall", "--json").stdout.utf8)) as? [String: Any]
        let thin = (stats?["thin_spots"] as? [[String: Any]] ?? []).compactMap { $0["spot"] as? String }
        #expect(thin.contains("b"))
        #expect(result.stdout.contains("3 spots (\(thin.count) thin)"))
        let svg = try String(contentsOfFile: out, encoding: .utf8)
        let spots = try elements("circle", in: svg).filter { $0["class"]?.hasPrefix("spot") == true }
        #expect(spots.count == 3)
        #expect(spots.filter { $0["class"] == "spot thin" }.count == thin.count)
        let beacons = try elements("rect", in: svg).compactMap { $0["class"] }.filter { $0.hasPrefix("beacon") }.sorted()
        #expect(beacons == ["beacon active", "beacon active", "beacon retired"])
        #expect(svg.contains("<title>b: 0 fingerprints") && svg.contains("thin: record again"))
        #expect(svg.contains(#"id="legend""#) && svg.contains("\(thin.count) thin:"))
    }

    @Test("zones: a drawn zone is its polygon, a zone named only by spots the hull of its spots; bad polygons are refused at import")
    func zones() throws {
        // Given the hall with a stage drawn around b (which names no zone) and the spots' own west and east
        let drawn = CommandTests.venueJSON.replacingOccurrences(
            of: #""spots": ["#, with: #""zones": [{"name": "stage", "floor": 0, "polygon": [[3, -2], [7, -2], [7, 2], [3, 2]]}], "spots": ["#)
        let imported = try commands.survey("venue", "import", try commands.write(drawn, to: "venue.json"))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("1 zone polygons set"))
        // When the floor is drawn
        let out = commands.directory.appendingPathComponent("zones.svg").path
        #expect(try commands.survey("map", "--venue", "hall", "--out", out).status == 0)
        // Then the stage is its polygon, and west and east are outlines around their spots
        let svg = try String(contentsOfFile: out, encoding: .utf8)
        let titles = svg.components(separatedBy: "<polygon").dropFirst().compactMap { $0.components(separatedBy: "<title>").dropFirst().first?.components(separatedBy: "</title>").first }
        #expect(titles == ["stage", "east", "west"])
        #expect(svg.contains("<title>b: ") && svg.contains("zone stage"), "b takes the stage's zone")
        // And a polygon whose edges cross is refused, naming the zone, and nothing changes
        let bowtie = CommandTests.venueJSON.replacingOccurrences(
            of: #""spots": ["#, with: #""zones": [{"name": "bow", "floor": 0, "polygon": [[0, 0], [4, 2], [4, 0], [0, 3]]}], "spots": ["#)
        let refused = try commands.survey("venue", "import", try commands.write(bowtie, to: "bowtie.json"))
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("zone 'bow' on floor 0: the polygon's edges 1 and 3 cross"), "\(refused.stderr)")
    }

    @Test("error colouring draws the errors the tuning stored; a tuning stored without them is cross-validated again")
    func storedErrors() async throws {
        // Given the hall recorded, which tunes it and stores each spot's leave-one-spot-out error
        try commands.importedHall()
        _ = try commands.survey("record", "--venue", "hall", try commands.write(CommandTests.surveyLog(), to: "survey.jsonl"))
        let store = try FingerprintStore.open(path: commands.db, logger: Logger(label: "test"))
        let tuning = try await #require(try store.tuning(of: "hall"))
        let stored = try #require(tuning.result.spotErrors)
        #expect(Set(stored.map(\.name)) == ["a", "b", "c"])
        // When the surveyor draws the errors
        let out = commands.directory.appendingPathComponent("error.svg").path
        let drawn = try commands.survey("map", "--venue", "hall", "--color", "error", "--out", out)
        // Then nothing is cross-validated again, and each spot's tooltip gives the stored error
        #expect(drawn.status == 0, "\(drawn.stderr)")
        #expect(!drawn.stderr.contains("cross-validating"), "\(drawn.stderr)")
        #expect(drawn.stdout.contains("coloured by error"))
        // (a spot whose fingerprints were all answered unknown has no mean; its title says so after its counts)
        let titles = stored.map { error in
            "<title>\(error.name): " + (error.meanError.map { String(format: "%.1f m mean error with the spot left out", $0) } ?? "")
        }
        let svg = try String(contentsOfFile: out, encoding: .utf8)
        let spots = try elements("circle", in: svg).filter { $0["class"]?.hasPrefix("spot") == true }
        #expect(spots.count == 3)
        #expect(titles.allSatisfy(svg.contains), "\(titles)")
        // When the tuning is one stored before tunings kept their spots' errors
        var older = tuning.result
        older.spotErrors = nil
        try await store.saveTuning(older, of: "hall", surveyRevision: try store.venue("hall").revision, seconds: 0)
        let fallback = try commands.survey("map", "--venue", "hall", "--color", "error", "--out", out)
        // Then the errors are measured again, saying so, and come out the same
        #expect(fallback.status == 0, "\(fallback.stderr)")
        #expect(fallback.stderr.contains("cross-validating"))
        let redrawn = try String(contentsOfFile: out, encoding: .utf8)
        #expect(try elements("circle", in: redrawn).filter { $0["class"]?.hasPrefix("spot") == true } == spots)
        #expect(titles.allSatisfy(redrawn.contains))
    }

    @Test("error colouring needs a tuned venue and says so; refuses an unknown floor and a non-SVG file")
    func errorsAndRefusals() throws {
        try commands.importedHall()
        let out = commands.directory.appendingPathComponent("error.svg").path
        // A venue never tuned (nothing recorded yet) has no configuration to cross-validate
        let untuned = try commands.survey("map", "--venue", "hall", "--color", "error", "--out", out)
        #expect(untuned.status != 0)
        #expect(untuned.stderr.contains("was never tuned") && untuned.stderr.contains("survey tune --venue hall"))
        // Once recorded (which tunes), each spot gets its leave-one-spot-out error
        _ = try commands.survey("record", "--venue", "hall", try commands.write(CommandTests.surveyLog(), to: "survey.jsonl"))
        let drawn = try commands.survey("map", "--venue", "hall", "--color", "error", "--out", out)
        #expect(drawn.status == 0, "\(drawn.stderr)")
        let svg = try String(contentsOfFile: out, encoding: .utf8)
        #expect(svg.contains("mean error with the spot left out") || svg.contains("no cross-validated answer"))
        #expect(try elements("circle", in: svg).filter { $0["class"]?.hasPrefix("spot") == true }.count == 3)
        // Bad requests are refused with what to do
        let floor = try commands.survey("map", "--venue", "hall", "--floor", "3", "--out", out)
        #expect(floor.status != 0 && floor.stderr.contains("has no floor 3") && floor.stderr.contains("0 (Ground)"))
        let png = try commands.survey("map", "--venue", "hall", "--out", "plan.png")
        #expect(png.status != 0 && png.stderr.contains("--out must name an .svg file"))
    }
}
