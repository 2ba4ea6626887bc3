import Foundation

/// Sets a venue's ``BeaconHealthRules`` thresholds from its own survey: the survey is replayed against
/// itself as live traffic would reach positiond, each survey scan located with its own spot left out of the
/// map (as a live phone between spots) and then taken as evidence against the expectations of the other
/// spots, in recording order, with no threshold. Every surveyed beacon was alive and at its level then, so
/// the largest excursion any beacon's statistic makes is what the healthy venue produces on its own; the
/// thresholds are set clear of it. Nothing is read of a test walk.
public enum BeaconHealthCalibration {
    /// What a replay of the survey against itself measured: per beacon, the steps its silent statistic
    /// took (each with the place it was taken at) and its residuals, in order.
    public struct Replay: Sendable {
        /// Survey scans replayed (located and taken as evidence).
        public var samples: Int
        public var streams: [Stream]

        public struct Stream: Sendable, Codable {
            public var steps: [Step] = []
            /// The residuals of the heard steps, in order, each with its place.
            public var residuals: [Double] = []
            public var residualPlaces: [Int32] = []
        }

        /// One observation of a beacon: where, how likely the survey made hearing it, whether it was heard,
        /// and the silent statistic's step.
        public struct Step: Sendable, Codable {
            public var place: Int32
            public var presence: Double
            public var heard: Bool
            public var evidence: Double
        }

        /// The largest value the silent statistic of `stream` reaches under `threshold` (which caps what one
        /// visit to a place gives at a `places`-th of it).
        public static func silentExcursion(_ stream: Stream, threshold: Double, places: Int) -> Double {
            var statistic = 0.0, largest = 0.0, runPlace: Int32 = -1, runEvidence = 0.0
            for (place, evidence) in stream.steps.map({ ($0.place, $0.evidence) }) {
                var step = evidence
                if evidence > 0 {
                    if place != runPlace {
                        runPlace = place
                        runEvidence = 0
                    }
                    step = min(evidence, max(0, threshold / Double(max(1, places)) - runEvidence))
                    runEvidence += step
                }
                statistic = max(0, statistic + step)
                largest = max(largest, statistic)
            }
            return largest
        }

        /// The largest value either level statistic of `stream` reaches with `slack` under `threshold` (a visit
        /// to one place giving at most a `places`-th of it), residuals clipped to ± `clip`.
        public static func levelExcursion(_ stream: Stream, slack: Double, threshold: Double, places: Int, clip: Double, prior: Double) -> Double {
            var louder = 0.0, quieter = 0.0, largest = 0.0
            var runPlace: Int32 = -1, louderRun = 0.0, quieterRun = 0.0
            let share = threshold / Double(max(1, places))
            // Against the beacon's level per place, as the monitor measures (``PlaceLevels``).
            var known = PlaceLevels()
            for (index, (residual, place)) in zip(stream.residuals, stream.residualPlaces).enumerated() {
                let reference = known.reference(at: place, prior: prior)
                known.record(place: place, residual: residual, index: Int32(index))
                let clipped = min(clip, max(-clip, residual - reference))
                if place != runPlace {
                    runPlace = place
                    louderRun = 0
                    quieterRun = 0
                }
                var up = clipped - slack, down = -clipped - slack
                if up > 0 {
                    up = min(up, max(0, share - louderRun))
                    louderRun += up
                }
                if down > 0 {
                    down = min(down, max(0, share - quieterRun))
                    quieterRun += down
                }
                louder = max(0, louder + up)
                quieter = max(0, quieter + down)
                largest = max(largest, louder, quieter)
            }
            return largest
        }
    }

    /// `base` with its silent and level thresholds set from the replay of `survey` (the venue's stored
    /// fingerprints, their spots in `spots`) under `configuration` (``rules(from:base:)``), never under
    /// `base`'s: ln 10⁴ nats for silent (Wald: a false alarm at most once in 10⁴ excursions of a correct
    /// likelihood ratio), and for the level ten readings of a shift of two steps.
    public static func rules(
        spots: [Spot], survey: [SurveyedFingerprint], configuration: PositioningConfiguration, base: BeaconHealthRules = BeaconHealthRules(),
        maximumSamples: Int = 3000
    ) throws(RadioMapError) -> BeaconHealthRules {
        let replay = try replay(spots: spots, survey: survey, configuration: configuration, rules: base, maximumSamples: maximumSamples)
        return rules(from: replay, base: base)
    }

    /// `base` with the thresholds `replay` calls for (``rules(spots:survey:configuration:base:maximumSamples:)``):
    /// each the least `h` at or above `base`'s that the healthy replay's largest excursion under `h` does not
    /// pass. A threshold caps each place's share by itself, so the excursion grows with `h`: a fixed point,
    /// found by raising `h` to the excursion until it holds.
    public static func rules(from replay: Replay, base: BeaconHealthRules) -> BeaconHealthRules {
        var rules = base
        func fixedPoint(from floor: Double, _ excursion: (Double) -> Double) -> (threshold: Double, excursion: Double) {
            var threshold = floor
            for _ in 0..<100 {
                let reached = excursion(threshold)
                if reached <= threshold { return (threshold, reached) }
                threshold = reached
            }
            return (threshold, excursion(threshold))
        }
        let silent = fixedPoint(from: base.silentThreshold) { threshold in
            replay.streams.map { Replay.silentExcursion($0, threshold: threshold, places: base.minimumPlaces) }.max() ?? 0
        }
        // The residuals' spread sets how far a place's own readings are trusted (``BeaconHealthRules/placePrior``).
        let residuals = replay.streams.flatMap(\.residuals)
        let median = BeaconHealthMonitor.median(residuals) ?? 0
        let spread = 1.4826 * (BeaconHealthMonitor.median(residuals.map { abs($0 - median) }) ?? 0)
        if spread > 0 { rules.maximumVisitSpread = spread }
        rules.calibration = BeaconHealthRules.Calibration(
            samples: replay.samples, largestSilentExcursion: 0, largestLevelExcursion: 0, residualSpread: spread)
        let prior = rules.placePrior
        let level = fixedPoint(from: base.levelThreshold) { threshold in
            replay.streams.map {
                Replay.levelExcursion(
                    $0, slack: base.levelSlack, threshold: threshold, places: base.minimumPlaces, clip: base.residualClip, prior: prior)
            }.max() ?? 0
        }
        rules.silentThreshold = silent.threshold
        rules.levelThreshold = level.threshold
        rules.calibration?.largestSilentExcursion = silent.excursion
        rules.calibration?.largestLevelExcursion = level.excursion
        return rules
    }

    /// Replays `survey` against itself (see the type's comment) with thresholds no statistic reaches.
    /// Surveys of more than `maximumSamples` scans are replayed in blocks of 60 consecutive scans spread
    /// evenly, as the tuner replays them.
    public static func replay(
        spots: [Spot], survey: [SurveyedFingerprint], configuration: PositioningConfiguration, rules base: BeaconHealthRules,
        maximumSamples: Int = 3000
    ) throws(RadioMapError) -> Replay {
        let expectations = BeaconExpectations(spots: spots, survey: survey.map { ($0.spot, $0.fingerprint) })
        let map = try RadioMap(
            spots: spots, fingerprints: configuration.referenceWindow.references(of: survey, scale: configuration.builder.scale),
            representation: configuration.locator.metric.representation)
        let rules = base
        var evidence = ScanEvidence(expectations: expectations, minimumPresence: rules.minimumPresence)
        var streams = [Replay.Stream](repeating: Replay.Stream(), count: expectations.beacons.count)
        let order = survey.indices.sorted { (survey[$0].time, $0) < (survey[$1].time, $1) }
        let chosen = blocks(of: order, maximum: maximumSamples, length: 60)
        var distances = [Float](repeating: .infinity, count: map.count)
        var replayed = 0
        for index in chosen {
            let surveyed = survey[index]
            let query = map.query(for: surveyed.fingerprint)
            guard query.presentCount > 0 else { continue }
            let result: LocationResult = distances.withUnsafeMutableBufferPointer { buffer in
                configuration.locator.metric.distances(from: query, in: map, into: buffer)
                for row in map.spotRanges[surveyed.spot] { buffer[row] = .infinity }
                return configuration.locator.locate(rowDistances: UnsafeBufferPointer(buffer), query: query, in: map)
            }
            guard case .located(let position) = result.outcome else { continue }
            let sample = Sample(
                device: surveyed.device, time: surveyed.time,
                readings: surveyed.fingerprint.entries.map { Reading(beacon: $0.key, rssi: $0.value.meanRSSI) })
            guard let located = evidence.evidence(
                of: sample, x: position.x, y: position.y, floor: position.floor, device: LocatedSample.deviceMark(surveyed.device),
                excluding: surveyed.spot)
            else { continue }
            replayed += 1
            for observation in located.observations where Double(observation.presence) >= rules.minimumPresence {
                let beacon = Int(observation.beacon)
                streams[beacon].steps.append(Replay.Step(
                    place: located.place, presence: Double(observation.presence), heard: observation.heard,
                    evidence: rules.silentEvidence(presence: Double(observation.presence), heard: observation.heard)))
                if observation.heard, !observation.residual.isNaN {
                    streams[beacon].residuals.append(Double(observation.residual))
                    streams[beacon].residualPlaces.append(located.place)
                }
            }
        }
        return Replay(samples: replayed, streams: streams)
    }

    /// `order` whole when it has at most `maximum` elements; otherwise blocks of `length` consecutive ones,
    /// spread evenly, `maximum` in all.
    static func blocks(of order: [Int], maximum: Int, length: Int) -> [Int] {
        guard order.count > maximum, maximum > 0 else { return order }
        let count = max(1, maximum / max(1, length))
        var chosen: [Int] = []
        for block in 0..<count {
            let start = block * (order.count - length) / max(1, count - 1)
            chosen += order[max(0, start)..<min(order.count, start + length)]
        }
        return chosen
    }
}
