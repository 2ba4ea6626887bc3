public import Positioning

/// How well a configuration locates a walk with ground truth.
public struct EvaluationReport: Hashable, Sendable, Codable {
    /// Queries made: windows, or samples when replaying through the tracker.
    public var queries: Int
    public var located: Int
    /// Queries answered `unknown`, by reason code; never hidden from the figures.
    public var unknown: [String: Int]
    /// Test samples in which no beacon was heard: skipped by ``Evaluator/evaluate``, and counted among
    /// the queries by ``Evaluator/replay`` (the tracker answers them from the device's recent samples).
    public var emptySamples: Int
    /// Errors of the located queries, in the venue's units (metres).
    public var errors: ErrorStatistics?
    /// Share of located queries on the right floor.
    public var floorHitRate: Double
    /// Share of located queries whose nearest spot is the spot nearest the truth.
    public var spotHitRate: Double
    /// How the answers behaved while devices stood still; only ``Evaluator/replay`` measures it (nil
    /// otherwise, and absent from older JSON).
    public var stationary: StationaryStatistics?
    /// Share of located queries whose true position lies within their accuracy radius (`accuracy_m`):
    /// about 0.68 when the radius means what phones' location APIs mean by it.
    public var withinAccuracy: Double?

    /// Queries that could not be located.
    public var unlocated: Int { queries - located }
}

/// Zone changes while a device stood still: each one is a false notification a visitor would get.
public struct StationaryStatistics: Hashable, Sendable, Codable {
    /// Seconds between consecutive samples of one device whose ground truth is the same (spot, x, y and
    /// floor), summed over devices. Every such interval counts whole, silent ones too: the device did not
    /// move, whether or not it was heard.
    public var seconds: Double
    /// Zone changes reported at the second sample of such an interval: an enter event (with or without the
    /// exit that precedes it), or an exit with no enter (leaving every zone).
    public var zoneChanges: Int
    /// `zoneChanges` per minute of `seconds`; nil when there was no stationary time.
    public var zoneChangesPerMinute: Double?

    public init(seconds: Double, zoneChanges: Int) {
        self.seconds = seconds
        self.zoneChanges = zoneChanges
        zoneChangesPerMinute = seconds > 0 ? Double(zoneChanges) / (seconds / 60) : nil
    }

    /// The zone changes that `events` (of one update) make: one per enter, or one per exit when nothing
    /// was entered.
    static func zoneChanges(in events: [ZoneEvent]) -> Int {
        let enters = events.count { $0.kind == .enter }
        return enters > 0 ? enters : events.count
    }
}

/// Runs a test walk with ground truth through the positioning pipeline and measures the errors.
public struct Evaluator: Sendable {
    public var builder: FingerprintBuilder
    public var locator: Locator

    public init(builder: FingerprintBuilder, locator: Locator) {
        self.builder = builder
        self.locator = locator
    }

    /// Locates every window of `windowSize` consecutive samples of one device at one spot.
    public func evaluate(_ test: [LabelledSample], windowSize: Int, in map: RadioMap) -> EvaluationReport {
        evaluation(test, windowSize: windowSize, in: map).report
    }

    /// ``evaluate(_:windowSize:in:)`` with every query's answer, in the order of ``SampleWindows``: what a
    /// comparison on the same queries needs (``PairedComparison``).
    public func evaluation(_ test: [LabelledSample], windowSize: Int, in map: RadioMap) -> WalkEvaluation {
        let heard = test.filter { !$0.sample.readings.isEmpty }
        var tally = Tally(spots: map.spots)
        for window in SampleWindows.windows(of: heard, size: windowSize) {
            let result: LocationResult
            do {
                result = locator.locate(try builder.fingerprint(of: window.map(\.sample)), in: map)
            } catch {
                tally.unusable()
                continue
            }
            tally.add(result.outcome, truth: window[0].truth)
        }
        return WalkEvaluation(report: tally.report(emptySamples: test.count - heard.count), errors: tally.queryErrors)
    }

    /// Replays `test` in order through one ``DeviceTracker`` per device, as the daemon would see it,
    /// and measures the smoothed positions and the zone changes while devices stood still
    /// (``EvaluationReport/stationary``).
    public func replay(_ test: [LabelledSample], tracking: TrackerConfiguration, in map: RadioMap) -> EvaluationReport {
        replayEvaluation(test, tracking: tracking, in: map).report
    }

    /// ``replay(_:tracking:in:)`` with every sample's answer, in walk order.
    public func replayEvaluation(_ test: [LabelledSample], tracking: TrackerConfiguration, in map: RadioMap) -> WalkEvaluation {
        var trackers: [String: DeviceTracker] = [:]
        var previous: [String: LabelledSample] = [:]
        var tally = Tally(spots: map.spots)
        var empty = 0
        var stationarySeconds = 0.0
        var stationaryChanges = 0
        for labelled in test {
            let device = labelled.sample.device
            var tracker = trackers[device] ?? DeviceTracker(device: device, configuration: tracking)
            defer { trackers[device] = tracker }
            let stillSince = previous[device].flatMap { $0.truth == labelled.truth ? $0.sample.time : nil }
            if let stillSince { stationarySeconds += max(0, labelled.sample.time - stillSince) }
            previous[device] = labelled
            if labelled.sample.readings.isEmpty { empty += 1 }
            let update: TrackingUpdate
            do {
                update = try tracker.update(with: labelled.sample, builder: builder, locator: locator, map: map)
            } catch {
                tally.unusable()
                continue
            }
            if stillSince != nil { stationaryChanges += StationaryStatistics.zoneChanges(in: update.events) }
            if let position = update.position {
                tally.add(.located(position), truth: labelled.truth)
            } else {
                tally.add(update.raw.outcome, truth: labelled.truth)
            }
        }
        var report = tally.report(emptySamples: empty)
        report.stationary = StationaryStatistics(seconds: stationarySeconds, zoneChanges: stationaryChanges)
        return WalkEvaluation(report: report, errors: tally.queryErrors)
    }
}

/// A walk's report with the answer to each of its queries (unknown ones included, with their reasons).
public struct WalkEvaluation: Sendable {
    public var report: EvaluationReport
    /// One per query, in query order: its error, nil when it was answered `unknown`. A baseline compared
    /// with it must answer the same queries in the same order (``PairedComparison``).
    public var errors: [Double?]

    public init(report: EvaluationReport, errors: [Double?]) {
        self.report = report
        self.errors = errors
    }
}

/// Accumulates outcomes against ground truth.
struct Tally {
    /// The venue's spots, to name the spot nearest the truth.
    let spots: [Spot]
    var errors: [Double] = []
    var unknown: [String: Int] = [:]
    var queries = 0
    var floorHits = 0
    var spotHits = 0
    var withinAccuracy = 0
    /// Every query's error in order, nil for an unknown answer.
    var queryErrors: [Double?] = []

    init(spots: [Spot]) { self.spots = spots }

    mutating func unusable() {
        queries += 1
        unknown[UnknownReason.Code.noKnownBeacon.rawValue, default: 0] += 1
        queryErrors.append(nil)
    }

    mutating func add(_ outcome: LocationResult.Outcome, truth: GroundTruth) {
        queries += 1
        switch outcome {
        case .unknown(let reason):
            unknown[reason.code.rawValue, default: 0] += 1
            queryErrors.append(nil)
        case .located(let position):
            let dx = position.x - truth.x, dy = position.y - truth.y
            let error = (dx * dx + dy * dy).squareRoot()
            errors.append(error)
            queryErrors.append(error)
            if error <= position.accuracy { withinAccuracy += 1 }
            if position.floor == truth.floor { floorHits += 1 }
            let truthSpot = truth.spot.flatMap { name in spots.first { $0.name == name } }
                ?? spots.nearest(toX: truth.x, y: truth.y, floor: truth.floor)
            if truthSpot?.name == position.spot { spotHits += 1 }
        }
    }

    func report(emptySamples: Int) -> EvaluationReport {
        let located = errors.count
        return EvaluationReport(
            queries: queries, located: located, unknown: unknown, emptySamples: emptySamples,
            errors: ErrorStatistics(errors: errors),
            floorHitRate: located == 0 ? 0 : Double(floorHits) / Double(located),
            spotHitRate: located == 0 ? 0 : Double(spotHits) / Double(located),
            stationary: nil, withinAccuracy: located == 0 ? nil : Double(withinAccuracy) / Double(located))
    }
}

extension Evaluator {
    /// Leave-one-spot-out cross-validation of a survey: every fingerprint of a spot is located in the
    /// radio map of all *other* spots, and its error is the distance to its own spot. It tells a surveyor
    /// how well the survey interpolates, without a separate test walk.
    public func crossValidate(spots: [Spot], fingerprints: [(spot: Int, fingerprint: Fingerprint)]) throws(RadioMapError) -> EvaluationReport {
        // Maps in the representation the locator's metric reads.
        let representation = locator.metric.representation
        let map = try RadioMap(spots: spots, fingerprints: fingerprints, representation: representation)
        var tally = Tally(spots: map.spots)
        for (spotIndex, spot) in spots.enumerated() {
            let own = fingerprints.filter { $0.spot == spotIndex }
            guard !own.isEmpty else { continue }
            let others = try RadioMap(spots: spots, fingerprints: fingerprints.filter { $0.spot != spotIndex }, representation: representation)
            let truth = GroundTruth(spot: nil, x: spot.x, y: spot.y, floor: spot.floor)
            for reference in own {
                tally.add(locator.locate(reference.fingerprint, in: others).outcome, truth: truth)
            }
        }
        return tally.report(emptySamples: 0)
    }
}
