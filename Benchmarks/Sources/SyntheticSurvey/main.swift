import Foundation
import Positioning
import ScanFormats
import SyntheticVenues

// Writes DIR/venue.json and DIR/survey.jsonl: the survey the `Tuning` benchmark tunes (GridSurvey: 24
// beacons, 300 spots, 80 scans per spot, 24,000 lines), for scripts/tune-timing.sh to time `survey tune` on.
//   SyntheticSurvey DIR [SEED]
let arguments = CommandLine.arguments
guard arguments.count == 2 || arguments.count == 3, arguments.count == 2 || UInt64(arguments[2]) != nil else {
    FileHandle.standardError.write(Data("usage: SyntheticSurvey DIR [SEED]\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[1], isDirectory: true)
let survey = GridSurvey(seed: arguments.count == 3 ? UInt64(arguments[2])! : 1)

try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
try encoder.encode(survey.venue.definition).write(to: directory.appendingPathComponent("venue.json"))
let lineEncoder = JSONEncoder()
lineEncoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
var jsonLines = Data()
for line in survey.lines {
    jsonLines.append(try lineEncoder.encode(line))
    jsonLines.append(UInt8(ascii: "\n"))
}
try jsonLines.write(to: directory.appendingPathComponent("survey.jsonl"))
print("\(survey.venue.definition.id) \(survey.venue.definition.beacons.count) \(survey.venue.definition.spots.count) \(survey.lines.count)")
