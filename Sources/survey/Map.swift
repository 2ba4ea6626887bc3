import ArgumentParser
import FingerprintStore
import Foundation
import Positioning
import PositioningTuning

extension Survey {
    /// `survey map`: a floor as an SVG picture for surveyors.
    struct Map: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw a floor of a venue as SVG: beacons, spots coloured by coverage or by error, zones, a legend.",
            discussion: """
                What a surveyor takes into the venue to decide where to record again, drawn over the floor's \
                plan when the venue has one. --color coverage (the \
                default) colours each spot by its fingerprints and the beacons they see: thin spots, with fewer \
                than 3 fingerprints or fingerprints that typically see fewer than 3 beacons, are red and dashed \
                ('survey stats' names the same ones). --color error colours each spot by the mean error of its \
                fingerprints located with the spot left out, under the venue's tuned configuration (it needs \
                'survey tune' first, which measures and keeps these errors): where a phone standing there would \
                be placed badly.

                Beacons are drawn by state: active, retired, or replaced (dashed, naming the successor in its \
                tooltip). Zones are outlined by the hull of their spots.
                """)

        enum Colour: String, ExpressibleByArgument, CaseIterable {
            case coverage, error
        }

        @OptionGroup var store: StoreOptions

        @Option(name: .long, help: "The venue.")
        var venue: String

        @Option(name: .long, help: "The floor level to draw (default: the venue's first floor).")
        var floor: Int?

        @Option(name: .customLong("color"), help: "What the spots' colours say: coverage or error.")
        var colour: Colour = .coverage

        @Option(name: .long, help: ArgumentHelp("Where to write the SVG.", valueName: "file.svg"))
        var out: String

        func validate() throws {
            guard !venue.isEmpty else { throw ValidationError("--venue must name a venue.") }
            guard out.lowercased().hasSuffix(".svg") else { throw ValidationError("--out must name an .svg file (got '\(out)').") }
        }

        func run() async throws {
            let fingerprintStore = try await store.open()
            let coverage = try await fingerprintStore.coverage(of: venue)
            let level = floor ?? coverage.floors.map(\.level).min() ?? 0
            guard let floorName = coverage.floors.first(where: { $0.level == level })?.name else {
                throw CLIError("venue '\(venue)' has no floor \(level); its floors are \(coverage.floors.map { "\($0.level) (\($0.name))" }.joined(separator: ", "))")
            }
            let colouring: FloorPlanSVG.Colouring
            switch colour {
            case .coverage:
                colouring = .coverage
            case .error:
                guard let tuning = try await fingerprintStore.tuning(of: venue) else {
                    throw CLIError("venue '\(venue)' was never tuned, so there is no configuration to cross-validate: run 'survey tune --venue \(venue)' first, or use --color coverage")
                }
                let errors: [NamedSpotError]
                if let stored = tuning.result.spotErrors {
                    errors = stored
                    if coverage.revision > tuning.revision {
                        Output.standardError("note: venue '\(venue)' changed since it was tuned at revision \(tuning.revision) (now \(coverage.revision)); the errors are those of the survey then: run 'survey tune --venue \(venue)' to measure them again")
                    }
                } else {
                    // A tuning stored before tunings kept their spots' errors: measure them now.
                    let survey = try await fingerprintStore.survey(of: venue, scale: PositioningConfiguration.defaultScale)
                    Output.standardError("cross-validating \(survey.surveyed.count) fingerprints, each spot left out in turn…")
                    let validation = SurveyCrossValidation(spots: survey.spots, survey: survey.surveyed, scale: PositioningConfiguration.defaultScale)
                    errors = validation.named(try validation.spotErrors(of: tuning.result.configuration))
                }
                colouring = .error(Dictionary(uniqueKeysWithValues: errors.compactMap { error in error.meanError.map { (error.name, $0) } }))
            }
            let title = "\(venue) · \(floorName) · revision \(coverage.revision) · \(colour == .coverage ? "coverage" : "error")"
            let plan = try await fingerprintStore.floorPlans(of: venue)[level]
            let svg = FloorPlanSVG(coverage: coverage, floor: level, colouring: colouring, plan: plan).render(title: title)
            do {
                try svg.write(toFile: out, atomically: true, encoding: .utf8)
            } catch {
                throw CLIError("cannot write \(out): \(error.localizedDescription)")
            }
            let spots = coverage.spots.filter { $0.spot.floor == level }
            print("Wrote \(out): floor \(level) (\(floorName)) of '\(venue)', \(spots.count) spots (\(spots.filter(\.isThin).count) thin), \(coverage.beacons.filter { $0.beacon.floor == level }.count) beacons, coloured by \(colour.rawValue).")
        }
    }
}
