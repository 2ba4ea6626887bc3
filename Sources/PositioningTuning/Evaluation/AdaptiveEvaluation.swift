public import Positioning

/// What a walk replayed through the beacon-health monitor showed: the answers, every state change and
/// proposal with the sample it came at, and how the venue ended.
public struct AdaptiveEvaluation: Sendable {
    public var walk: WalkEvaluation
    /// Every state change, in the order the samples caused them.
    public var changes: [BeaconStateChange]
    /// Every remap proposed, as it was first proposed.
    public var proposals: [BeaconProposal]
    /// The proposals still open at the end, with their figures refined since.
    public var openProposals: [BeaconProposal]
    /// Every surveyed beacon's health at the end, and the reported unknown ids.
    public var final: [BeaconHealth]
    /// The venue's silent beacons at the end and what matching made of them.
    public var degraded: DegradedVenue
    /// The median gain of the last samples: how much louder than the survey the walk hears the venue, dB.
    public var recentGain: Double?
    /// Per injected fault, how soon it was named.
    public var faults: [FaultDetection]
    /// Every located sample's evidence, in the order the monitor took it.
    public var evidence: [LocatedSample]
}

/// How soon an injected fault was named.
public struct FaultDetection: Hashable, Sendable, Codable {
    public var fault: BeaconFault
    /// Index (among the located samples the monitor saw) of the first sample under the fault.
    public var firstSample: Int?
    /// The change or proposal that named it: silent for a kill, shifted for a shift, a swap or replacement
    /// proposal for a swap or swap-in; nil when it was not named.
    public var detectedAt: Int?
    public var detectedTime: Double?
    /// Located samples from the fault to the naming, and of them those located where the survey expects
    /// the beacon (the ones that should have heard it).
    public var samplesToDetect: Int?
    public var expectedSamplesToDetect: Int?
    /// Located samples under the fault that expected the beacon, in all.
    public var expectedSamples: Int
    /// For a shift: the offset named, against the one injected.
    public var offset: Double?
    /// For a shift: the offset the monitor held at the end of the walk; for a swap-in, the open proposal's
    /// offset at the end.
    public var finalOffset: Double?
}

/// The monitor's settings for a replay: the venue's expectations and rules, whether its tolerance is
/// applied, and how a silent set is assessed (``DegradedVenue``) with the map to match in then.
public struct AdaptiveSetup: Sendable {
    public var expectations: BeaconExpectations
    public var rules: BeaconHealthRules
    /// Whether matching acts on the monitor's states (offsets, silent beacons, a wider radius), or the
    /// monitor only watches.
    public var tolerant: Bool
    /// The assessment of a silent set and the map to match in under it (nil: the survey's own).
    public var degrade: @Sendable (Set<BeaconID>) -> (DegradedVenue, RadioMap?)

    public init(
        expectations: BeaconExpectations, rules: BeaconHealthRules, tolerant: Bool,
        degrade: @escaping @Sendable (Set<BeaconID>) -> (DegradedVenue, RadioMap?)
    ) {
        self.expectations = expectations
        self.rules = rules
        self.tolerant = tolerant
        self.degrade = degrade
    }
}

extension Evaluator {
    /// Replays `test` (under `faults`) as a live venue would see it, prequentially: each sample is located
    /// first (through its device's tracker when `tracking` is given, else in windows of `windowSize`), then
    /// taken as evidence at its answer, in time order, so no figure looks ahead. With a tolerant setup the
    /// next samples are matched under what the monitor concluded.
    public func adaptiveEvaluation(
        _ test: [LabelledSample], faults: [BeaconFault], tracking: TrackerConfiguration?, windowSize: Int, in map: RadioMap,
        setup: AdaptiveSetup
    ) -> AdaptiveEvaluation {
        var run = AdaptiveRun(map: map, setup: setup, builder: builder, faults: faults)
        let ordered = test.enumerated().sorted { ($0.element.sample.time, $0.offset) < ($1.element.sample.time, $1.offset) }.map(\.element)
        var tally = Tally(spots: map.spots)
        var empty = 0
        if let tracking {
            var trackers: [String: DeviceTracker] = [:]
            for labelled in ordered {
                let device = labelled.sample.device
                var tracker = trackers[device] ?? DeviceTracker(device: device, configuration: tracking)
                defer { trackers[device] = tracker }
                let faulted = faults.apply(to: labelled.sample)
                if faulted.readings.isEmpty { empty += 1 }
                let update: TrackingUpdate
                do {
                    update = try tracker.update(with: run.matched(faulted), builder: builder, locator: locator, map: run.map)
                } catch {
                    tally.unusable()
                    continue
                }
                if let position = update.position {
                    tally.add(.located(position.widened(by: run.degraded.radiusFactor)), truth: labelled.truth)
                    run.observe(faulted, at: position)
                } else {
                    tally.add(update.raw.outcome, truth: labelled.truth)
                }
            }
        } else {
            let heard = ordered.map { LabelledSample(sample: faults.apply(to: $0.sample), truth: $0.truth) }.filter { !$0.sample.readings.isEmpty }
            empty = ordered.count - heard.count
            for window in SampleWindows.windows(of: heard, size: windowSize) {
                let result: LocationResult
                do {
                    result = locator.locate(try builder.fingerprint(of: window.map { run.matched($0.sample) }), in: run.map)
                } catch {
                    tally.unusable()
                    continue
                }
                guard case .located(let position) = result.outcome else {
                    tally.add(result.outcome, truth: window[0].truth)
                    continue
                }
                tally.add(.located(position.widened(by: run.degraded.radiusFactor)), truth: window[0].truth)
                for labelled in window { run.observe(labelled.sample, at: position) }
            }
        }
        return AdaptiveEvaluation(
            walk: WalkEvaluation(report: tally.report(emptySamples: empty), errors: tally.queryErrors), changes: run.changes,
            proposals: run.proposals, openProposals: run.monitor.proposals, final: run.monitor.health, degraded: run.degraded, recentGain: run.monitor.recentGain,
            faults: run.detections(), evidence: run.observed)
    }
}

/// The state of one adaptive replay.
private struct AdaptiveRun {
    let intactMap: RadioMap
    let setup: AdaptiveSetup
    let builder: FingerprintBuilder
    let faults: [BeaconFault]
    var map: RadioMap
    var monitor: BeaconHealthMonitor
    var evidence: ScanEvidence
    var tolerance = HealthTolerance()
    var degraded = DegradedVenue.intact
    var changes: [BeaconStateChange] = []
    var proposals: [BeaconProposal] = []
    /// The index of the sample each proposal came at.
    var proposalSamples: [Int] = []
    /// Per fault: the first located sample under it, and the located samples under it that expected its
    /// beacon, by index.
    var faultStart: [Int?]
    var expectedUnderFault: [[Int]]
    var observed: [LocatedSample] = []

    init(map: RadioMap, setup: AdaptiveSetup, builder: FingerprintBuilder, faults: [BeaconFault]) {
        intactMap = map
        self.map = map
        self.setup = setup
        self.builder = builder
        self.faults = faults
        monitor = BeaconHealthMonitor(beacons: setup.expectations.beacons, rules: setup.rules)
        evidence = ScanEvidence(expectations: setup.expectations, minimumPresence: setup.rules.minimumPresence)
        faultStart = faults.map { _ in nil }
        expectedUnderFault = faults.map { _ in [] }
    }

    /// `sample` as matching takes it: corrected by the tolerance when the setup is tolerant.
    func matched(_ sample: Sample) -> Sample {
        setup.tolerant ? tolerance.corrected(sample) : sample
    }

    /// Takes `sample` (as heard, faults included) as evidence at `position`.
    mutating func observe(_ sample: Sample, at position: Position) {
        let cleaned = builder.cleaner.clean(sample)
        guard !cleaned.readings.isEmpty,
            let observed = evidence.evidence(
                of: cleaned, x: position.x, y: position.y, floor: position.floor, device: LocatedSample.deviceMark(sample.device))
        else { return }
        let index = monitor.samples
        for (number, fault) in faults.enumerated() where sample.time >= fault.time {
            if faultStart[number] == nil { faultStart[number] = index }
            let watched = fault.beacons.compactMap { setup.expectations.index(of: $0) }.map(Int32.init)
            if observed.observations.contains(where: { watched.contains($0.beacon) && Double($0.presence) >= setup.rules.minimumPresence }) {
                expectedUnderFault[number].append(index)
            }
        }
        self.observed.append(observed)
        let update = monitor.observe(observed, expectations: setup.expectations)
        guard !update.isEmpty else { return }
        changes += update.changes
        proposals += update.proposals
        proposalSamples += update.proposals.map { _ in index }
        guard setup.tolerant else { return }
        let next = monitor.tolerance
        if next.silent != tolerance.silent {
            let (assessed, degradedMap) = setup.degrade(next.silent)
            degraded = assessed
            map = degradedMap ?? intactMap
        }
        tolerance = next
    }

    func detections() -> [FaultDetection] {
        faults.enumerated().map { number, fault in
            let start = faultStart[number]
            var detection = FaultDetection(
                fault: fault, firstSample: start, detectedAt: nil, detectedTime: nil, samplesToDetect: nil, expectedSamplesToDetect: nil,
                expectedSamples: expectedUnderFault[number].count, offset: nil, finalOffset: nil)
            guard let start else { return detection }
            var found: (index: Int, time: Double, offset: Double?)?
            switch fault.kind {
            case .kill(let beacon):
                found = changes.first { $0.beacon == beacon && $0.to == .silent && $0.sample >= start }.map { ($0.sample, $0.time, nil) }
            case .shift(let beacon, _):
                found = changes.first { $0.beacon == beacon && $0.to == .shifted && $0.sample >= start }.map { ($0.sample, $0.time, $0.offset) }
                detection.finalOffset = final(of: beacon)?.offset
            case .swap(let first, let second):
                found = proposals.indices.first { proposals[$0].kind == .swap && Set([proposals[$0].old, proposals[$0].new]) == Set([first, second]) }
                    .map { (proposalSamples[$0], proposals[$0].time, proposals[$0].offset) }
            case .swapIn(let old, let new, _):
                found = proposals.indices.first { proposals[$0].kind == .replace && proposals[$0].old == old && proposals[$0].new == new }
                    .map { (proposalSamples[$0], proposals[$0].time, proposals[$0].offset) }
                detection.finalOffset = monitor.proposals.first { $0.kind == .replace && $0.old == old && $0.new == new }?.offset
            }
            if let found {
                detection.detectedAt = found.index
                detection.detectedTime = found.time
                detection.samplesToDetect = found.index - start + 1
                detection.expectedSamplesToDetect = expectedUnderFault[number].count { $0 <= found.index }
                detection.offset = found.offset
            }
            return detection
        }
    }

    private func final(of beacon: BeaconID) -> BeaconHealth? {
        monitor.health.first { $0.beacon == beacon }
    }
}
