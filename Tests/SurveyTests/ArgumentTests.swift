import ArgumentParser
@testable import survey
import Testing

@Suite("survey: argument errors")
struct ArgumentTests {
    /// The message the command line prints for `arguments`, or nil when they parse.
    func message(_ arguments: [String]) -> String? {
        do {
            _ = try Survey.parseAsRoot(arguments)
            return nil
        } catch {
            return Survey.message(for: error)
        }
    }

    @Test("a window below 1 is refused by record, locate and evaluate", arguments: [
        ["record", "--venue", "hall", "--window", "0", "log.jsonl"],
        ["locate", "--venue", "hall", "--window=-2", "log.jsonl"],
        ["evaluate", "--venue", "hall", "--test", "walk.jsonl", "--window", "0"],
    ])
    func windowBelowOne(arguments: [String]) throws {
        let printed = try #require(message(arguments))
        #expect(printed.contains("--window must be at least 1"))
    }

    @Test("evaluate needs exactly one of --test and --cross-validate")
    func evaluateModes() throws {
        #expect(try #require(message(["evaluate", "--venue", "hall"])).contains("--test FILE, or --cross-validate"))
        #expect(try #require(message(["evaluate", "--venue", "hall", "--test", "w", "--cross-validate"])).contains("alternatives"))
        #expect(try #require(message(["evaluate", "--venue", "hall", "--cross-validate", "--replay"])).contains("--replay needs --test"))
        #expect(message(["evaluate", "--venue", "hall", "--cross-validate"]) == nil)
    }

    @Test("evaluate --compare takes a listed baseline and needs a walk")
    func evaluateCompare() throws {
        #expect(message(["evaluate", "--venue", "hall", "--test", "w", "--compare", "knn"]) == nil)
        #expect(message(["evaluate", "--venue", "hall", "--test", "w", "--replay", "--compare", "knn"]) == nil)
        #expect(try #require(message(["evaluate", "--venue", "hall", "--cross-validate", "--compare", "knn"]))
            .contains("--compare needs --test FILE"))
        #expect(try #require(message(["evaluate", "--venue", "hall", "--test", "w", "--compare", "forest"])).contains("knn"))
        #expect(Survey.helpMessage(for: Survey.Evaluate.self).contains("values: knn"))
    }

    @Test("missing required options and unknown subcommands are named")
    func missingOptions() throws {
        #expect(try #require(message(["record", "log.jsonl"])).contains("--venue"))
        #expect(try #require(message(["record", "--venue", "hall"])).contains("<file>"))
        #expect(try #require(message(["export", "--venue", "hall"])).contains("--out"))
        #expect(try #require(message(["frobnicate"])).contains("frobnicate"))
        #expect(try #require(message(["record", "--venue", "hall", "--window", "many", "f"])).contains("many"))
    }

    @Test("well-formed commands parse, with the documented defaults")
    func parses() throws {
        let command = try Survey.parseAsRoot(["record", "--venue", "hall", "--operator", "ana", "-"])
        let record = try #require(command as? Survey.Record)
        #expect(record.window == 1)
        #expect(record.noTune == false)
        #expect(record.surveyor == "ana")
        #expect(record.store.db == "beaconfix.sqlite")
        #expect(record.file == "-")
        #expect(message(["venue", "list", "--db", "x.sqlite", "--json"]) == nil)
        #expect(message(["simulate", "--out", "dir", "--seed", "3"]) == nil)
    }

    @Test("replace-beacon modes are exclusive and beacon identities are checked")
    func replaceBeaconArguments() throws {
        let old = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:1", new = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:9"
        #expect(message(["replace-beacon", "--venue", "v", "--old", old, "--new", new]) == nil)
        #expect(message(["replace-beacon", "--venue", "v", "--remove", "--old", old]) == nil)
        #expect(message(["replace-beacon", "--venue", "v", "--list"]) == nil)
        #expect(message(["replace-beacon", "--venue", "v", "--undo", "3"]) == nil)
        #expect(try #require(message(["replace-beacon", "--venue", "v", "--old", old])).contains("--new is required"))
        #expect(try #require(message(["replace-beacon", "--venue", "v", "--old", "nope", "--new", new])).contains("--old: 'nope' is not a beacon identity"))
        #expect(try #require(message(["replace-beacon", "--venue", "v", "--old", old, "--new", old])).contains("must be different"))
        #expect(try #require(message(["replace-beacon", "--venue", "v", "--list", "--remove", "--old", old])).contains("alternatives"))
        #expect(try #require(message(["replace-beacon", "--venue", "v", "--remove", "--old", old, "--new", new])).contains("--remove takes --old only"))
        #expect(try #require(message(["replace-beacon", "--venue", "v", "--old", old, "--new", new, "--force"])).contains("--force only matters"))
    }
}
