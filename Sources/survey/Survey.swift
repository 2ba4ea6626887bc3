package import ArgumentParser

/// The surveyor's and the operator's command line: builds and checks the venue's SQLite file.
@main
package struct Survey: AsyncParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "survey",
        abstract: "Build, check and maintain beaconfix's fingerprint survey (a SQLite file, or a cluster's PostgreSQL).",
        discussion: """
            Typical session: import a venue definition, record the survey walk, evaluate it, then serve it \
            with positiond:

              survey venue import venues/demo-hall/venue.json
              survey record --venue demo-hall venues/demo-hall/survey.jsonl
              survey evaluate --venue demo-hall --test venues/demo-hall/walk.jsonl
            """,
        subcommands: [
            Venue.self, Record.self, Upload.self, Locate.self, Evaluate.self, Export.self, Import.self, Stats.self,
            ReplaceBeacon.self, Beacons.self, Tune.self, Simulate.self, Key.self, Map.self, Copy.self, Analytics.self,
        ])
}
