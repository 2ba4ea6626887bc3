import ArgumentParser
import survey
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

    /// Every command under `command`, itself included.
    static func commands(under command: any ParsableCommand.Type) -> [any ParsableCommand.Type] {
        [command] + command.configuration.subcommands.flatMap { commands(under: $0) }
    }

    @Test("every command's help reads as sentences: no run of spaces inside a line of its text")
    func helpHasNoSpaceRuns() {
        // Given every command of survey
        let commands = Self.commands(under: Survey.self)
        #expect(commands.count > 20)
        for command in commands {
            // When its abstract and discussion are laid out as --help prints them
            let text = command.configuration.abstract + "\n" + command.configuration.discussion
            // Then no line holds three spaces in a row after its indentation (a string literal joined without
            // its line-continuation backslash does)
            for line in text.split(separator: "\n") {
                let body = line.drop { $0 == " " }
                #expect(!body.contains("   "), "\(command._commandName): \(line)")
            }
        }
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

    @Test("upload checks its server, batch, timeout and attempts, and needs a file and a key")
    func uploadArguments() throws {
        let base = ["upload", "--to", "http://127.0.0.1:8080", "--venue", "hall", "--key", "k"]
        #expect(message(base + ["log.jsonl"]) == nil)
        #expect(message(base + ["--batch", "0", "log.jsonl"])?.contains("--batch must be from 1 to 5000") == true)
        #expect(message(base + ["--timeout", "0", "log.jsonl"])?.contains("--timeout must be from 1 to 600") == true)
        #expect(message(base + ["--attempts", "11", "log.jsonl"])?.contains("--attempts must be from 1 to 10") == true)
        #expect(message(base + ["-"])?.contains("not standard input") == true)
        #expect(message(base + ["--path", "path.jsonl", "--cell", "2", "--snap", "0", "log.jsonl"]) == nil)
        #expect(message(base + ["--path", "-", "log.jsonl"])?.contains("--path needs a file, not standard input") == true)
        #expect(message(base + ["--path", "path.jsonl", "--cell", "0", "log.jsonl"])?.contains("--cell must be from 0.05 to 100") == true)
        #expect(message(["upload", "--to", "file:///tmp", "--venue", "hall", "--key", "k", "log.jsonl"])?.contains("--to must be an http or https URL") == true)
        // (the test process has no BEACONFIX_KEY)
        #expect(message(["upload", "--to", "http://127.0.0.1:8080", "--venue", "hall", "log.jsonl"])?.contains("pass --key or set BEACONFIX_KEY") == true)
    }

    @Test("replace-beacon subcommands check their beacons, numbers and flags")
    func replaceBeaconArguments() throws {
        let old = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:1", new = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:9"
        // Given well-formed uses of each subcommand, then they parse
        #expect(message(["replace-beacon", "replace", "--venue", "v", "--old", old, "--new", new]) == nil)
        #expect(message(["replace-beacon", "replace", "--venue", "v", "--old", old, "--new", new, "--calibration", "w", "--force", "--dry-run"]) == nil)
        #expect(message(["replace-beacon", "remove", "--venue", "v", "--old", old, "--operator", "ops", "--no-tune"]) == nil)
        #expect(message(["replace-beacon", "list", "--venue", "v", "--json"]) == nil)
        #expect(message(["replace-beacon", "undo", "--venue", "v", "3"]) == nil)
        // Given a missing or malformed beacon, then the option is named
        #expect(try #require(message(["replace-beacon", "replace", "--venue", "v", "--old", old])).contains("Missing expected argument '--new"))
        #expect(try #require(message(["replace-beacon", "replace", "--venue", "v", "--old", "nope", "--new", new])).contains("--old: 'nope' is not a beacon identity"))
        #expect(try #require(message(["replace-beacon", "remove", "--venue", "v", "--old", "nope"])).contains("--old: 'nope' is not a beacon identity"))
        #expect(try #require(message(["replace-beacon", "replace", "--venue", "v", "--old", old, "--new", old])).contains("must be different"))
        // Given options of another subcommand, then they are refused
        #expect(try #require(message(["replace-beacon", "remove", "--venue", "v", "--old", old, "--new", new])).contains("Unknown option '--new'"))
        #expect(try #require(message(["replace-beacon", "list", "--venue", "v", "--dry-run"])).contains("Unknown option '--dry-run'"))
        #expect(try #require(message(["replace-beacon", "replace", "--venue", "v", "--old", old, "--new", new, "--force"])).contains("--force only matters"))
        // Given a replacement number below 1 or none, then undo asks for one
        #expect(try #require(message(["replace-beacon", "undo", "--venue", "v", "0"])).contains("N must be a replacement number"))
        #expect(try #require(message(["replace-beacon", "undo", "--venue", "v"])).contains("<N>"))
        #expect(try #require(message(["replace-beacon", "list", "--venue", ""])).contains("--venue must not be empty"))
    }

    @Test("replace-beacon's flag forms of earlier versions name the subcommand to run instead", arguments: [
        (["--venue", "v", "--old", "X", "--new", "Y", "--dry-run"], "survey replace-beacon replace --venue v --old X --new Y --dry-run"),
        (["--venue", "v", "--remove", "--old", "X"], "survey replace-beacon remove --venue v --old X"),
        (["--list", "--venue", "v", "--json"], "survey replace-beacon list --venue v --json"),
        (["--venue", "v", "--undo", "2", "--no-tune"], "survey replace-beacon undo --venue v --no-tune 2"),
        (["--venue=v", "--undo=2"], "survey replace-beacon undo --venue=v 2"),
        (["--venue", "my hall", "--list"], "survey replace-beacon list --venue 'my hall'"),
    ])
    func replaceBeaconFlagForms(arguments: [String], suggestion: String) throws {
        // Given a command written for the flag form
        // When it is parsed
        let printed = try #require(message(["replace-beacon"] + arguments))
        // Then the error spells out the subcommand form with the same arguments
        #expect(printed.contains("takes a subcommand instead of these flags now; run:\n  \(suggestion)"), "\(printed)")
    }

    @Test("replace-beacon without a subcommand prints its help; an unknown one is named")
    func replaceBeaconWithoutSubcommand() throws {
        // Given no subcommand, then the group's help lists the four subcommands (and not the hidden one)
        let help = try #require(message(["replace-beacon"]))
        for subcommand in ["replace", "remove", "list", "undo"] { #expect(help.contains("  \(subcommand) ")) }
        #expect(!help.contains("flag-forms"))
        // Given an unknown subcommand or options before the subcommand, then the error says what to do
        #expect(try #require(message(["replace-beacon", "swap", "--venue", "v"])).contains("'swap' is not a subcommand of 'survey replace-beacon'"))
        #expect(try #require(message(["replace-beacon", "--venue", "v", "list"])).contains("needs a subcommand before its options"))
    }
}
