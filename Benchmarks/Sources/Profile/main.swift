// Runs locates in a loop for a profiler: swift run -c release Profile [fingerprints] [iterations]
//   valgrind --tool=callgrind .build/release/Profile 100000 20
//   perf record -g .build/release/Profile 100000 500
import Positioning
import SyntheticVenues

let arguments = CommandLine.arguments
let size = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
let iterations = arguments.count > 2 ? Int(arguments[2]) ?? 100 : 100
let venue = SyntheticVenue(fingerprints: size)
let locator = PositioningConfiguration().locator
let queries = venue.queries.map { venue.map.query(for: $0) }
let clock = ContinuousClock()
var located = 0
let elapsed = clock.measure {
    for iteration in 0..<iterations {
        if locator.locate(queries[iteration % queries.count], in: venue.map).position != nil { located += 1 }
    }
}
print("\(iterations) locates on \(venue.map.count) fingerprints: \(elapsed / iterations) each, \(located) located")
