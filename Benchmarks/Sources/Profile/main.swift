// Loops for a profiler (callgrind counts instructions reliably; perf samples time):
//   .build/release/Profile locate [fingerprints] [iterations] [hall|large] [default|exhaustive|index]
//     PROFILE_COARSE=always|never: the map with its coarse levels forced on or off (RadioMap.CoarsePass);
//     PROFILE_COARSE=compare|compare-fractional: both, located in turns (fractional: levels moved off whole dB)
//     PROFILE_PAIRS=1: how many of a selection's pairs of columns hold a beacon the query hears (a sparse map)
//   .build/release/Profile record VENUE.json SURVEY.jsonl       (decode, build and store, phase by phase)
//   .build/release/Profile recall [fingerprints] [keep,keep,...] (strongest-beacon and spots-first searches against the exhaustive one)
//   .build/release/Profile build [fingerprints]                  (a large venue's radio map with and without its spot centroids)
//   valgrind --tool=callgrind .build/release/Profile locate 100000 20
//   PROFILE_FLOORS=N (locate large, recall, build): the large venue on N floors of 100 beacons instead of 4. The
//     spots spread over the floors, so 40 floors at 1,000,000 fingerprints space them as 4 do at 100,000: a
//     venue ten times the area at the same density, where 4 floors at 1,000,000 are the same area ten times denser.
import FingerprintStore
import Foundation
// Testable, to build a map without its spot centroids (Profile build).
@_spi(Profiling) import Positioning
import PositioningTuning
import ScanFormats
import SyntheticVenues

let arguments = CommandLine.arguments
let clock = ContinuousClock()
let largeFloors = ProcessInfo.processInfo.environment["PROFILE_FLOORS"].flatMap { Int($0) }.map { max(1, $0) } ?? 4

switch arguments.count > 1 ? arguments[1] : "locate" {
case "record":
    let venue = try JSONDecoder().decode(VenueDefinition.self, from: Data(contentsOf: URL(fileURLWithPath: arguments[2])))
    let data = try Data(contentsOf: URL(fileURLWithPath: arguments[3]))
    var lines: [(number: Int, line: ScanLine)] = []
    let decoding = clock.measure { lines = ScanLogDecoder().decode(data).lines }
    var samples: [LabelledSample] = []
    let converting = try clock.measure {
        samples = try lines.map { LabelledSample(sample: try $0.line.sample(), truth: $0.line.groundTruth!) }
    }
    let configurationForBuild = PositioningConfiguration()
    let buildingOnly = clock.measure {
        var report = CleaningReport()
        for window in SampleWindows.windows(of: samples, size: configurationForBuild.surveyWindow) {
            _ = try? configurationForBuild.builder.fingerprint(of: window.map(\.sample), report: &report)
        }
    }
    print("fingerprints alone (windows, cleaning, building): \(buildingOnly)")
    let store = try FingerprintStore.inMemory()
    _ = try await store.importVenue(venue)
    let configuration = PositioningConfiguration()
    let recordingStarted = clock.now
    _ = try await store.record(samples, into: venue.id, options: RecordOptions(windowSize: configuration.surveyWindow, builder: configuration.builder))
    let recording = clock.now - recordingStarted
    var survey: VenueSurvey?
    let loadingStarted = clock.now
    survey = try await store.survey(of: venue.id, scale: configuration.builder.scale)
    let loading = clock.now - loadingStarted
    // The same read again, warm: what a daemon reloading a revision pays after its first load.
    var warm: [Duration] = []
    for _ in 0..<3 {
        let started = clock.now
        survey = try await store.survey(of: venue.id, scale: configuration.builder.scale)
        warm.append(clock.now - started)
    }
    print("read from the store again: \(warm.map { "\($0)" }.joined(separator: ", "))")
    var map: RadioMap?
    let building = try clock.measure { map = try survey!.radioMap() }
    let total = decoding + converting + recording
    print("""
        \(lines.count) lines: decode \(decoding), to samples \(converting), build and store \(recording); \
        \(Int(Double(lines.count) / (Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18))) lines/s
        radio map of \(map!.count) fingerprints: read from the store \(loading), laid out \(building)
        """)
case "build":
    // Profile build [fingerprints]: the large venue's radio map built from its survey with its spot
    // centroids and without them, taking turns three times: the centroids' share of a build.
    let size = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
    let venue = SyntheticVenue(fingerprints: size, beaconsPerFloor: 100, floors: largeFloors)
    for _ in 0..<3 {
        let with = try clock.measure {
            _ = try RadioMap(
                spots: venue.map.spots, fingerprints: venue.references, representation: venue.map.representation, zoneAreas: [],
                layout: .automatic)
        }
        let without = try clock.measure {
            _ = try RadioMap(
                spots: venue.map.spots, fingerprints: venue.references, representation: venue.map.representation, zoneAreas: [],
                layout: .automatic, buildsCentroids: false)
        }
        print("radio map of \(venue.map.count) fingerprints: \(with) with its spot centroids, \(without) without")
    }
case "recall":
    // Profile recall [fingerprints]: on the large venue under the dB-offset metric with penalties 5 and 2,
    // what each strongest-beacon search keeps of the exhaustive search's 8 and 32 nearest spots (of the
    // venue's 64 scans between spots by another phone than the survey's, and of 300 of the survey's own
    // scans), and the share of the map it reads: how the ladder's steps are chosen (never on a walk).
    let size = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
    let venue = SyntheticVenue(fingerprints: size, beaconsPerFloor: 100, floors: largeFloors)
    // One description of the metric, for both the locator measured here and the tuner's choice below.
    let candidate = MapCandidate(window: .fingerprints(1), metric: .decibelOffset(floor: -100, queryOnly: 5, referenceOnly: 2, offsetShrinkage: 0))
    var locator = PositioningConfiguration().locator
    locator.metric = candidate.metric.make()
    let queries = venue.queries.map { venue.map.query(for: $0) }
    let truth = queries.map { CandidateSearchRecall.truth(of: $0, locator: locator, in: venue.map) }
    // 300 of the survey's own scans, spread evenly and left in the map, as the tuner measures (not its very scans).
    let surveyScans = (0..<300).map { venue.map.query(for: venue.references[$0 * venue.references.count / 300].fingerprint) }
    let surveyTruth = surveyScans.map { CandidateSearchRecall.truth(of: $0, locator: locator, in: venue.map) }
    func percent(_ share: Double) -> String { String(format: "%.2f%%", share * 100) }
    func described(_ recall: CandidateSearchRecall) -> String {
        "\(percent(recall.at8)) / \(percent(recall.at32))\(recall.isFull ? "" : " (short)")"
    }
    print("search: of the 8 / 32 nearest spots kept on another phone's 64 scans; on 300 survey scans; share of the map read")
    let settings = [(4, 4, 2), (4, 5, 2), (5, 4, 2), (5, 5, 2), (5, 6, 2), (6, 5, 2), (6, 6, 2), (5, 5, 3), (6, 6, 3), (6, 6, 1)]
    for (queryBeacons, referenceRank, minimumShared) in settings {
        let search = CandidateSearch.strongestBeacons(
            queryBeacons: queryBeacons, referenceRank: referenceRank, minimumShared: minimumShared, maximumShare: 0.25,
            exactBelowBlocks: Locator.smallMapBlocks)
        let recall = CandidateSearchRecall.measure(search, locator: locator, queries: queries, in: venue.map, truth: truth)
        let onSurvey = CandidateSearchRecall.measure(search, locator: locator, queries: surveyScans, in: venue.map, truth: surveyTruth)
        let onLadder = Locator.strongestBeaconLadder.firstIndex(of: search).map { " (ladder\($0))" } ?? ""
        print("\(minimumShared) of \(queryBeacons) among \(referenceRank)\(onLadder): \(described(recall)); \(described(onSurvey)); \(percent(recall.readShare))")
    }
    // Spots first: the nearest spot centroids, ranked inside a ladder step's selection of the centroids,
    // then only those spots' fingerprints.
    let keeps = arguments.count > 3 ? arguments[3].split(separator: ",").compactMap { Int($0) } : [64, 128, 256]
    for keep in keeps {
        for (step, coarse) in Locator.strongestBeaconLadder.enumerated() {
            let search = CandidateSearch.spotsFirst(keep: keep, coarse: coarse)
            let recall = CandidateSearchRecall.measure(search, locator: locator, queries: queries, in: venue.map, truth: truth)
            let onSurvey = CandidateSearchRecall.measure(search, locator: locator, queries: surveyScans, in: venue.map, truth: surveyTruth)
            let centroidBlocks = queries.map {
                var coarseLocator = locator
                coarseLocator.candidateSearch = coarse
                return coarseLocator.candidateBlocks(for: $0, in: venue.map.spotCentroids ?? venue.map).blockCount
            }.reduce(0, +) / queries.count
            print("spots first, \(keep) nearest centroids in ladder\(step): \(described(recall)); \(described(onSurvey)); \(percent(recall.readShare)) of the map (\(recall.blocksRead / max(1, recall.queries)) blocks) after \(centroidBlocks) centroid blocks")
        }
    }
    // And the step the tuner takes on the venue's own survey (`survey tune`'s measurement, its own 300 scans).
    let survey = venue.references.enumerated().map { index, reference in
        SurveyedFingerprint(spot: reference.spot, run: index / 10, device: "rig", time: Double(index), fingerprint: reference.fingerprint)
    }
    let validation = SurveyCrossValidation(spots: venue.map.spots, survey: survey, scale: PositioningConfiguration().builder.scale)
    let choice = try validation.candidateSearch(for: candidate, aggregation: .best)
    let step = Locator.strongestBeaconLadder.firstIndex(of: choice.search).map { "ladder\($0)" }
        ?? (Locator.spotsFirstSearches.contains(choice.search) ? "spots first" : "neither on the ladder nor spots first")
    print("the tuner's choice on the venue's own survey: \(choice.search) (\(step)), \(choice.recall.map(described) ?? "no recall measured")")
default:
    // Profile locate [fingerprints] [iterations] [hall|large] [untuned|strongest|ladder0|ladder1|ladder2|exhaustive|index]
    // untuned: the untuned venue's locator (its metric, the exact beacon index); strongest: the dB-offset
    // metric with penalties 5 and 2 through the strongest-beacon search, under which it keeps the recall.
    let size = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
    let iterations = arguments.count > 3 ? Int(arguments[3]) ?? 100 : 100
    let large = arguments.count > 4 && arguments[4] == "large"
    let synthetic = SyntheticVenue(fingerprints: size, beaconsPerFloor: large ? 100 : 32, floors: large ? largeFloors : 1)
    // PROFILE_COARSE=always|never: the map laid out again with its coarse levels forced on or off.
    let coarsePass: RadioMap.CoarsePass? = switch ProcessInfo.processInfo.environment["PROFILE_COARSE"] {
    case "always": .always
    case "never": .never
    default: nil
    }
    let map = try coarsePass.map {
        try RadioMap(
            spots: synthetic.map.spots, fingerprints: synthetic.references, representation: synthetic.map.representation,
            zoneAreas: [], layout: .automatic, coarsePass: $0)
    } ?? synthetic.map
    let venue = (map: map, queries: synthetic.queries, summary: synthetic.summary + (coarsePass.map { ", coarse pass \($0)" } ?? ""))
    var locator = PositioningConfiguration().locator
    locator.maximumDistance = nil
    switch arguments.count > 5 ? arguments[5] : "untuned" {
    case "exhaustive": locator.candidateSearch = .exhaustive
    case "index": locator.candidateSearch = .beaconIndex
    case "strongest":
        locator.metric = DecibelOffsetMetric()
        locator.candidateSearch = Locator.strongestBeaconSearch
    case let step where step.hasPrefix("ladder"):
        // ladder0, ladder1, ...: a step of the tuner's ladder of strongest-beacon searches, narrowest first.
        locator.metric = DecibelOffsetMetric()
        let last = Locator.strongestBeaconLadder.count - 1
        locator.candidateSearch = Locator.strongestBeaconLadder[max(0, min(last, Int(step.dropFirst(6)) ?? last))]
    case let step where step.hasPrefix("spots"):
        // spotsKEEP-STEP: the KEEP nearest spot centroids, ranked in ladder step STEP's selection of them.
        locator.metric = DecibelOffsetMetric()
        let parts = step.dropFirst(5).split(separator: "-").compactMap { Int($0) }
        let ladder = Locator.strongestBeaconLadder
        locator.candidateSearch = .spotsFirst(
            keep: parts.first ?? 64, coarse: ladder[max(0, min(ladder.count - 1, parts.count > 1 ? parts[1] : 0))])
    default: break
    }
    let queries = venue.queries.map { venue.map.query(for: $0) }
    let selected = queries.map { locator.candidateBlocks(for: $0, in: venue.map).blockCount }
    print("\(venue.summary); \(locator.candidateSearch) selects \(selected.reduce(0, +) / selected.count) of \(venue.map.blockCount) blocks on average; queries hear \(queries.map(\.presentColumns.count).reduce(0, +) / queries.count) beacons")
    if arguments.count > 6 {
        // Beacons heard per block of 8 (the union over its rows), over every block.
        var histogram: [Int] = []
        for block in 0..<venue.map.blockCount {
            var heard = 0
            for column in 0..<venue.map.beaconCount {
                let base = block * venue.map.beaconCount * 8 + column * 8
                if (0..<8).contains(where: { venue.map.compact[base + $0] >= 0 }) { heard += 1 }
            }
            histogram.append(heard)
        }
        histogram.sort()
        print("beacons per block: min \(histogram.first!), median \(histogram[histogram.count / 2]), max \(histogram.last!), mean \(histogram.reduce(0, +) / histogram.count)")
    }
    if ProcessInfo.processInfo.environment["PROFILE_PAIRS"] != nil, let levels = venue.map.decibelLevels,
        case .sparse(let pairStart, let pairColumns) = levels.pairs
    {
        // How many of a selection's pairs of columns hold a beacon the query hears.
        var pairs = 0, heardPairs = 0, bothHeard = 0, columns = 0, heardColumns = 0
        for query in queries {
            let heard = Set(query.presentColumns)
            for run in locator.candidateBlocks(for: query, in: venue.map).runs {
                for block in run {
                    for pair in pairStart[block]..<pairStart[block + 1] {
                        let a = heard.contains(Int(pairColumns[2 * pair])), b = heard.contains(Int(pairColumns[2 * pair + 1]))
                        pairs += 1
                        if a || b { heardPairs += 1 }
                        if a && b { bothHeard += 1 }
                        columns += pairColumns[2 * pair + 1] == UInt16(venue.map.beaconCount) ? 1 : 2
                        heardColumns += (a ? 1 : 0) + (b ? 1 : 0)
                    }
                }
            }
        }
        print("pairs a query: \(pairs / queries.count), with a heard column \(heardPairs / queries.count), both heard \(bothHeard / queries.count); columns \(columns / queries.count), heard \(heardColumns / queries.count)")
    }
    // What a batch of all the queries could share: blocks the 64 selections have in common.
    var union = Set<Int>()
    for query in queries {
        for run in locator.candidateBlocks(for: query, in: venue.map).runs { union.formUnion(run) }
    }
    print("a batch of \(queries.count) reads \(selected.reduce(0, +)) blocks query by query, \(union.count) distinct")
    if let comparison = ProcessInfo.processInfo.environment["PROFILE_COARSE"], comparison.hasPrefix("compare") {
        // The same survey with and without coarse levels, located in turns in one process: no other process
        // competes for memory while either is timed. The synthetic fingerprints are single scans in whole dB,
        // which the coarse levels keep exactly; `compare-fractional` moves every level by a fraction of a dB
        // (a multiple of 1/16, seeded), as a surveyed fingerprint's mean over its window is.
        var generator = SeededGenerator(seed: 31)
        let references = comparison == "compare-fractional"
            ? synthetic.references.map { reference in
                var fingerprint = reference.fingerprint
                for (beacon, entry) in fingerprint.entries {
                    var moved = entry
                    moved.meanRSSI += Double(Int.random(in: 0..<16, using: &generator)) / 16
                    fingerprint.entries[beacon] = moved
                }
                return (spot: reference.spot, fingerprint: fingerprint)
            }
            : synthetic.references
        let maps = try [RadioMap.CoarsePass.never, .always].map { pass in
            (pass, try RadioMap(
                spots: synthetic.map.spots, fingerprints: references, representation: synthetic.map.representation,
                zoneAreas: [], layout: .automatic, coarsePass: pass))
        }
        print("coarse levels within \(maps[1].1.decibelLevels?.coarse?.error ?? -1)/16 dB of the exact ones")
        for round in 0..<4 {
            for (pass, map) in maps {
                let vectors = venue.queries.map { map.query(for: $0) }
                let elapsed = clock.measure {
                    for iteration in 0..<iterations { _ = locator.locate(vectors[iteration % vectors.count], in: map) }
                }
                print("round \(round), coarse pass \(pass): \(elapsed / iterations) a locate")
            }
        }
    }
    var located = 0
    let elapsed = clock.measure {
        for iteration in 0..<iterations {
            if locator.locate(queries[iteration % queries.count], in: venue.map).position != nil { located += 1 }
        }
    }
    print("\(iterations) locates on \(venue.map.count) fingerprints: \(elapsed / iterations) each, \(located) located")
    let rounds = max(1, iterations / queries.count)
    if let metric = locator.metric as? DecibelOffsetMetric {
        // The kernel alone over each query's selection (for spots first, its fingerprints' blocks), through
        // each loop this CPU runs: what the AVX2 and AVX-512 VNNI loops cost on the same blocks.
        let selections = queries.map { locator.candidateBlocks(for: $0, in: venue.map) }
        var distances = [Float](repeating: 0, count: selections.map(\.packedCount).max() ?? 0)
        for loop in CompactKernels.LevelLoop.allCases where loop.isAvailable {
            let elapsed = distances.withUnsafeMutableBufferPointer { buffer in
                clock.measure {
                    for _ in 0..<rounds {
                        for (query, blocks) in zip(queries, selections) {
                            metric.distances(from: query, in: venue.map, blocks: blocks, into: buffer, loop: loop)
                        }
                    }
                }
            }
            print("kernel alone, \(loop) loop: \(elapsed / (rounds * queries.count)) a query")
        }
        // The selection alone (for spots first: the centroids measured, the keep-th found, the kept spots'
        // blocks laid out), so that a locate's time splits into selection, coarse pass and what follows.
        var selectedBlocks = 0
        let selecting = clock.measure {
            for _ in 0..<rounds {
                for query in queries { selectedBlocks &+= locator.candidateBlocks(for: query, in: venue.map).blockCount }
            }
        }
        print("selection alone: \(selecting / (rounds * queries.count)) a query (\(selectedBlocks / (rounds * queries.count)) blocks)")
        if metric.boundsDistances(in: venue.map) {
            // The blocks the exact pass reads again after the coarse pass: those with a lower bound under the
            // answer's bound (Locator.answerBound), of the selection's.
            var lowerBounds = distances, upperBounds = distances, refined = 0
            // How far above the answer's bound each block's nearest lower bound lies: how coarse a first pass
            // could be and still pass over most blocks.
            var nearestOverBound: [Float] = []
            for (query, blocks) in zip(queries, selections) {
                lowerBounds.withUnsafeMutableBufferPointer { lower in
                    upperBounds.withUnsafeMutableBufferPointer { upper in
                        metric.distanceBounds(from: query, in: venue.map, blocks: blocks, lower: lower, upper: upper)
                        let bound = locator.answerBound(upper: UnsafeBufferPointer(upper), blocks: blocks, in: venue.map)
                        for slot in stride(from: 0, to: blocks.packedCount, by: RadioMap.lanes) {
                            if UnsafeBufferPointer(lower).hasDistance(below: bound.nextUp, inBlockAt: slot) { refined += 1 }
                            if bound > 0 { nearestOverBound.append(lower[slot..<(slot + RadioMap.lanes)].min()! / bound) }
                        }
                    }
                }
            }
            print("blocks read again after the coarse pass: \(refined / queries.count) a query of \(selected.reduce(0, +) / selected.count)")
            if !nearestOverBound.isEmpty {
                nearestOverBound.sort()
                let quantiles = [0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9].map { String(format: "%.2f", nearestOverBound[Int($0 * Double(nearestOverBound.count))]) }
                let over = [1.25, 1.5, 2, 3].map { ratio in
                    String(format: "%.1f%% over %.2f", 100 * Double(nearestOverBound.filter { $0 > Float(ratio) }.count) / Double(nearestOverBound.count), ratio)
                }
                print("a block's nearest lower bound / the answer's bound, quantiles 1, 5, 10, 25, 50, 75, 90%: \(quantiles.joined(separator: ", ")); \(over.joined(separator: ", "))")
            }
            // The coarse pass alone (a spots-first search's fingerprints' blocks), through each loop in C.
            var upper = distances
            for loop in CompactKernels.LevelLoop.allCases where loop != .portable && loop.isAvailable {
                let elapsed = distances.withUnsafeMutableBufferPointer { lower in
                    upper.withUnsafeMutableBufferPointer { upper in
                        clock.measure {
                            for _ in 0..<rounds {
                                for (query, blocks) in zip(queries, selections) {
                                    metric.distanceBounds(from: query, in: venue.map, blocks: blocks, lower: lower, upper: upper, loop: loop)
                                }
                            }
                        }
                    }
                }
                print("coarse pass alone, \(loop) loop: \(elapsed / (rounds * queries.count)) a query")
            }
        }
    }
    let batches = clock.measure {
        for _ in 0..<rounds { located += locator.locate(batch: queries, in: venue.map).count }
    }
    print("\(rounds) batches of \(queries.count): \(batches / rounds) each, \(batches / rounds / queries.count) per query")
}
