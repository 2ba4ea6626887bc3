import FingerprintStore
import Foundation
import Logging
import Positioning
import PositioningTuning
import Testing

/// `survey tune`, and the tuning at the end of `survey record`, as a separate process on a real database.
@Suite("survey: tune")
struct TuneCommandTests {
    let commands: CommandTests

    init() throws {
        commands = try CommandTests()
    }

    @Test("record tunes the venue at its end; evaluate and tune --show use and show the stored tuning")
    func recordTunes() async throws {
        // Given the hall and its survey
        try commands.importedHall()
        let log = try commands.write(CommandTests.surveyLog(), to: "survey.jsonl")
        // When recorded with the defaults
        let recorded = try commands.survey("record", "--venue", "hall", log)
        // Then every scan is a fingerprint, and the venue is tuned right after (a revision of its own)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stdout.contains("Recorded 15 fingerprints from 18 samples into 'hall' (revision 2)."), "\(recorded.stdout)")
        #expect(recorded.stdout.contains("Venue 'hall' tuned at revision 3"), "\(recorded.stdout)")
        #expect(try await commands.revision() == 3)
        // And tune --show --json gives the stored configuration and its cross-validation, with ISO 8601 dates
        let shown = try commands.survey("tune", "--venue", "hall", "--show", "--json")
        #expect(shown.status == 0, "\(shown.stderr)")
        let stored = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
        #expect(stored?["revision"] as? Int == 3)
        #expect((stored?["tuned_at"] as? String)?.contains("T") == true)
        let result = stored?["result"] as? [String: Any]
        #expect(result?["queries"] as? Int == 15)
        #expect((result?["candidates"] as? [Any])?.count == TuningSearchSpace.standard.mapCandidates.count)
        // And one phone in one session: the radius is widened, calibrated between spots only, and the table
        // says it cannot see other phones or days
        #expect(result?["calibration_protocols"] as? [String] == ["spot_out"])
        #expect(result?["groups"] as? Int == 1 && result?["group_kind"] as? String == "session")
        #expect(recorded.stdout.contains("radius calibrated on: between spots (leave-one-spot-out), each weighing"), "\(recorded.stdout)")
        #expect(recorded.stdout.contains("so it is widened to hold 68% of the answers between spots alone"), "\(recorded.stdout)")
        #expect(recorded.stdout.contains("the survey is one device in one session"), "\(recorded.stdout)")
        #expect(recorded.stdout.contains("tracker radius:"), "\(recorded.stdout)")
        // And the uncertainty model was chosen among every model of the search space, and the table names it
        let scores = try #require(result?["uncertainty_scores"] as? [[String: Any]])
        #expect(scores.count == TuningSearchSpace.standard.uncertaintyModels.count)
        #expect(recorded.stdout.contains("spread and covariance: "), "\(recorded.stdout)")
        // And a map this small is searched exactly, with no recall measured, and the table says so
        #expect(recorded.stdout.contains("candidate search: exact beacon index (the map is small enough to read whole)"), "\(recorded.stdout)")
        #expect(result?["candidate_search_recall"] == nil)
        let configuration = result?["configuration"] as? [String: Any]
        #expect((configuration?["candidate_search"] as? [String: Any])?.keys.contains("beacon_index") == true, "\(String(describing: configuration))")
        // And evaluate says which configuration it used
        let evaluated = try commands.survey("evaluate", "--venue", "hall", "--cross-validate")
        #expect(evaluated.stdout.contains("configuration: tuned at revision 3"), "\(evaluated.stdout)")
    }

    @Test("--no-tune leaves the venue on the default configuration, and says so; tune then tunes it")
    func noTune() async throws {
        try commands.importedHall()
        let log = try commands.write(CommandTests.surveyLog(), to: "survey.jsonl")
        let recorded = try commands.survey("record", "--venue", "hall", "--no-tune", log)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(!recorded.stdout.contains("tuned at"))
        let evaluated = try commands.survey("evaluate", "--venue", "hall", "--cross-validate")
        #expect(evaluated.stdout.contains("the default configuration (the venue was never tuned"), "\(evaluated.stdout)")
        let unshown = try commands.survey("tune", "--venue", "hall", "--show")
        #expect(unshown.status != 0)
        #expect(unshown.stderr.contains("venue 'hall' was never tuned"), "\(unshown.stderr)")
        // When tuned by hand
        let tuned = try commands.survey("tune", "--venue", "hall")
        // Then the table of candidates is printed and the revision moved on
        #expect(tuned.status == 0, "\(tuned.stderr)")
        #expect(tuned.stdout.contains("leave-one-spot-out error: mean"), "\(tuned.stdout)")
        #expect(tuned.stdout.contains("accuracy radius:"))
        #expect(try await commands.revision() == 3)
    }

    @Test("tuning a venue without a survey, or an unknown venue, is a clear error")
    func nothingToTune() throws {
        try commands.importedHall()
        let empty = try commands.survey("tune", "--venue", "hall")
        #expect(empty.status != 0)
        #expect(empty.stderr.contains("venue 'hall' has no survey fingerprint; tuning needs a survey of at least 2 spots"), "\(empty.stderr)")
        let unknown = try commands.survey("tune", "--venue", "nowhere")
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("there is no venue 'nowhere'"), "\(unknown.stderr)")
    }
}
