import ScanFormats
import ArgumentParser
import Foundation
import Positioning
import VenueSimulator

extension Survey {
    /// `survey simulate`: the propagation simulator that generates venues/demo-hall.
    struct Simulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate the demo venue with a propagation simulator: venue.json, its floor plans, survey.jsonl, walk.jsonl, locate-request.json.",
            discussion: """
                Log-distance path loss (n = 2.2, -59 dBm at 1 m) with spatially smooth shadowing (3 dB), per-sample \
                noise (2.5 dB), interior walls (4-10 dB), 18 dB per floor, the user's body (up to 6 dB), per-device \
                gain offsets, missed weak readings and 1% of readings reported as 0. demo-hall's floor plans \
                (plans/*.svg) are drawn from the simulator's own walls. The same seed writes the same bytes.
                """)

        @Option(name: .long, help: "Seed of the random generator.")
        var seed: UInt64 = 7

        @Option(name: .long, help: "Samples per device at each survey spot.")
        var samples: Int = 6

        @Option(name: .long, help: "Samples at each stop of the test walk.")
        var walkSamples: Int = 5

        @Option(name: .long, help: "standing: the surveyor stands --samples seconds at every spot; walking: walks from spot to spot sampling every second, tapping a checkpoint at each (survey.jsonl without coordinates, and path.jsonl for 'survey record --path').")
        var surveyMode: SurveyMode = .standing

        @Option(name: .long, help: ArgumentHelp("Give the survey this many minutes of one surveyor's phone (default: two phones, every spot once, when standing; one phone, the time standing would take it, when walking).", valueName: "minutes"))
        var surveyMinutes: Double?

        @Option(name: .long, help: "demo-hall, or grid: a synthetic single-floor venue sized by --beacons and --spots.")
        var layout: Layout = .demoHall

        @Option(name: .long, help: "Beacons of a grid layout.")
        var beacons: Int = 32

        @Option(name: .long, help: "Spots of a grid layout.")
        var spots: Int = 400

        @Option(name: .long, help: ArgumentHelp("Directory to write.", valueName: "dir"))
        var out: String

        @Option(name: .long, help: "Also write visitors.jsonl: a day of this many demo-hall visitors (one sample a second each, with ground truth).")
        var visitors: Int = 0

        @Option(name: .long, help: ArgumentHelp("When the visitors' day starts, Unix seconds (default: 9 hours ago).", valueName: "seconds"))
        var visitorsStart: Double?

        @Option(name: .long, help: "Hours over which the visitors come and go.")
        var visitorsHours: Double = 11

        enum SurveyMode: String, ExpressibleByArgument, CaseIterable {
            case standing
            case walking
        }

        enum Layout: String, ExpressibleByArgument, CaseIterable {
            case demoHall = "demo-hall"
            case grid
        }

        func validate() throws {
            guard samples >= 1, walkSamples >= 1 else { throw ValidationError("--samples and --walk-samples must be at least 1.") }
            guard beacons >= 1, spots >= 1 else { throw ValidationError("--beacons and --spots must be at least 1.") }
            if let surveyMinutes {
                guard surveyMinutes.isFinite, surveyMinutes > 0, surveyMinutes <= 24 * 60 else {
                    throw ValidationError("--survey-minutes must be more than 0 and at most 1440 (got \(surveyMinutes)).")
                }
            }
            guard (0...10_000).contains(visitors) else { throw ValidationError("--visitors must be from 0 to 10000.") }
            guard visitors == 0 || layout == .demoHall else { throw ValidationError("--visitors needs --layout demo-hall (its zones).") }
            guard visitorsHours >= 4, visitorsHours <= 24 else { throw ValidationError("--visitors-hours must be from 4 to 24.") }
        }

        func run() async throws {
            let venue = switch layout {
            case .demoHall: try SimulatedVenues.demoHall(seed: seed)
            case .grid: try SimulatedVenues.grid(beacons: beacons, spots: spots, seed: seed)
            }
            var generator = SeededGenerator(seed: seed &+ 1)
            let stops = venue.definition.spots.map { SimulatedStop(name: $0.name, x: $0.x, y: $0.y, floor: $0.floor) }
            var survey: [ScanLine] = []
            var checkpoints: [Checkpoint] = []
            var start = 1_795_000_000.0
            let device = SimulatedVenues.surveyDevices[0]
            // A stand-still visit of a spot takes its samples plus 4 s to the next one.
            let standingSeconds = Double(stops.count * (samples + 4))
            switch (surveyMode, surveyMinutes) {
            case (.standing, nil):
                for device in SimulatedVenues.surveyDevices {
                    let lines = venue.record(stops: stops, device: device, samples: samples, startTime: start, using: &generator)
                    survey += lines
                    start = (lines.last?.t ?? start) + 600
                }
            case (.standing, let minutes?):
                // Round the spots again until the time is spent, as a surveyor with time to spare would.
                let surveyEnd = start + minutes * 60
                var round = start
                while round < surveyEnd {
                    let lines = venue.record(stops: stops, device: device, samples: samples, startTime: round, using: &generator)
                    survey += lines.prefix { $0.t < surveyEnd }
                    round = (lines.last?.t ?? surveyEnd) + 5
                }
                start = (survey.last?.t ?? start) + 600
            case (.walking, let minutes):
                let walk = venue.walkingSurvey(
                    stops: stops, device: device, seconds: minutes.map { $0 * 60 } ?? standingSeconds, startTime: start, using: &generator)
                survey = walk.lines
                checkpoints = walk.checkpoints
                start = (survey.last?.t ?? start) + 600
            }
            let walkStops = switch layout {
            case .demoHall: SimulatedVenues.demoHallWalk()
            case .grid: stops.enumerated().filter { $0.offset % 7 == 3 }.map { index, stop in
                SimulatedStop(name: "walk-\(index)", x: stop.x + 1.5, y: stop.y + 1, floor: stop.floor)
            }
            }
            let walk = venue.record(
                stops: walkStops, device: SimulatedVenues.walkDevice, samples: walkSamples,
                startTime: start + 3600, using: &generator)

            let directory = URL(fileURLWithPath: out, isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(venue.definition).write(to: directory.appendingPathComponent("venue.json"))
            for floor in venue.definition.floors {
                guard let plan = floor.plan, let svg = venue.floorPlanSVG(level: floor.level) else { continue }
                let url = directory.appendingPathComponent(plan.image)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(svg.utf8).write(to: url)
            }
            try ScanLine.jsonLines(survey).write(to: directory.appendingPathComponent("survey.jsonl"))
            if surveyMode == .walking { try Self.pathLines(checkpoints).write(to: directory.appendingPathComponent("path.jsonl")) }
            try ScanLine.jsonLines(walk).write(to: directory.appendingPathComponent("walk.jsonl"))
            // A ready-made locate request (the walk's first stop, without ground truth) for README's curl lines.
            let request = ["samples": walk.prefix(walkSamples).map { ScanLine(t: $0.t, device: $0.device, beacons: $0.beacons) }]
            try encoder.encode(request).write(to: directory.appendingPathComponent("locate-request.json"))
            if visitors > 0 {
                let start = visitorsStart ?? (Date().timeIntervalSince1970 - 9 * 3600).rounded()
                let day = SimulatedVenues.demoHallDay(count: visitors, start: start, hours: visitorsHours, seed: seed &+ 2)
                var lines: [ScanLine] = []
                for itinerary in day {
                    lines += venue.visit(itinerary, device: SimulatedVenues.walkDevice, using: &generator)
                }
                lines.sort { ($0.t, $0.device) < ($1.t, $1.device) }
                try ScanLine.jsonLines(lines).write(to: directory.appendingPathComponent("visitors.jsonl"))
                print("Wrote \(out)/visitors.jsonl: \(visitors) visitors, \(lines.count) samples from \(Date(timeIntervalSince1970: start).ISO8601Format()).")
            }
            if surveyMode == .walking {
                print("Wrote \(out)/path.jsonl: \(checkpoints.count) checkpoints over \(Int(((checkpoints.last?.time ?? 0) - (checkpoints.first?.time ?? 0)) / 60)) minutes; record the walk with 'survey record --path \(out)/path.jsonl'.")
            }
            print("Wrote \(out)/venue.json (\(venue.definition.beacons.count) beacons, \(venue.definition.spots.count) spots, \(venue.definition.floors.filter { $0.plan != nil }.count) floor plans), survey.jsonl (\(survey.count) lines), walk.jsonl (\(walk.count) lines), locate-request.json.")
        }

        /// A walking survey's checkpoints as a path file (``WalkPathFile``).
        static func pathLines(_ checkpoints: [Checkpoint]) throws -> Data {
            struct Line: Encodable { var t: Double; var x: Double; var y: Double; var floor: Int }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            var data = Data()
            for checkpoint in checkpoints {
                let line = Line(t: (checkpoint.time * 1000).rounded() / 1000, x: checkpoint.position.x, y: checkpoint.position.y, floor: checkpoint.position.floor)
                data.append(try encoder.encode(line))
                data.append(UInt8(ascii: "\n"))
            }
            return data
        }
    }
}
