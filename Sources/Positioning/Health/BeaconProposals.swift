import Foundation

/// A remap the monitor's evidence suggests to ops, who accept it (or not) in one step.
public struct BeaconProposal: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable {
        /// A silent beacon's place is taken by an unknown id: hand its survey entries to the new one, shifted
        /// by ``BeaconProposal/offset``.
        case replace
        /// Two beacons are each heard where the other was surveyed: exchange their ids in the survey.
        case swap
    }

    public var kind: Kind
    /// Replace: the silent beacon. Swap: one of the pair.
    public var old: BeaconID
    /// Replace: the unknown id heard in its place. Swap: the other of the pair.
    public var new: BeaconID
    /// dB to add to `old`'s surveyed levels to predict `new`'s (replace), or `old`'s level where `new` was
    /// surveyed less `new`'s surveyed level there (swap): the median over places of each place's median
    /// difference, measured against the other beacons of each sample as ``ReplacementCalibration`` does
    /// against a calibration walk.
    public var offset: Double
    /// The places' spread about it, dB (1.4826 · MAD).
    public var spread: Double
    /// Swap: `new`'s level where `old` was surveyed, less `old`'s surveyed level there.
    public var reverseOffset: Double?
    /// Places and readings the estimate rests on.
    public var places: Int
    public var readings: Int
    /// When it was proposed (the deciding sample's time).
    public var time: Double
    public var reason: String

    public init(
        kind: Kind, old: BeaconID, new: BeaconID, offset: Double, spread: Double, reverseOffset: Double?, places: Int, readings: Int,
        time: Double, reason: String
    ) {
        self.kind = kind
        self.old = old
        self.new = new
        self.offset = offset
        self.spread = spread
        self.reverseOffset = reverseOffset
        self.places = places
        self.readings = readings
        self.time = time
        self.reason = reason
    }

    /// Whether `other` proposes the same remap (the same kind and beacons, whatever the figures).
    public func isSame(as other: BeaconProposal) -> Bool {
        guard kind == other.kind else { return false }
        switch kind {
        case .replace: return old == other.old && new == other.new
        case .swap: return Set([old, new]) == Set([other.old, other.new])
        }
    }
}

/// A pair of beacons watched for a swap.
struct SwapWatch: Hashable, Sendable, Codable {
    var first: Int32
    var second: Int32
    var statistic = 0.0
    var runPlace: Int32 = -1
    var runEvidence = 0.0
    var places: UInt64 = 0
    var start: Double

    init(first: Int32, second: Int32, start: Double) {
        self.first = first
        self.second = second
        self.start = start
    }
}

extension BeaconHealthMonitor {
    /// How well readings of one beacon fit another beacon's survey.
    struct Fit {
        /// Share of the readings taken where the survey expects the other beacon.
        var coverage: Double
        var offset: Double
        var spread: Double
        var places: Int
        var readings: Int
        /// The root mean square of the places' differences: how far the readings lie from the survey with no
        /// offset allowed.
        var distance: Double
    }

    /// Proposes, for each reported unknown id, the silent beacon whose survey its readings fit best (a
    /// replacement hung in its place), unless that remap is proposed already or was dismissed (``isGood(_:)``).
    mutating func proposeReplacements(expectations: BeaconExpectations, time: Double) -> [BeaconProposal] {
        var found: [BeaconProposal] = []
        let silent = beacons.indices.filter { state(of: $0) == .silent }
        guard !silent.isEmpty else { return [] }
        for unknown in reportedUnknown where !proposals.contains(where: { $0.new == unknown.beacon }) {
            var best: (beacon: Int, fit: Fit)?
            for old in silent {
                guard let fit = fit(unknown.readings, to: old, expectations: expectations), isGood(fit) else { continue }
                if best.map({ (fit.spread, -fit.coverage) < ($0.fit.spread, -$0.fit.coverage) }) ?? true { best = (old, fit) }
            }
            guard let best else { continue }
            let proposal = BeaconProposal(
                kind: .replace, old: beacons[best.beacon], new: unknown.beacon, offset: best.fit.offset, spread: best.fit.spread,
                reverseOffset: nil, places: best.fit.places, readings: best.fit.readings, time: time,
                reason: "\(beacons[best.beacon]) is silent and \(unknown.beacon), which the survey does not have, is heard where it was, "
                    + "\(BeaconTrack.decibels(best.fit.offset)) dB against it (spread \(BeaconTrack.decibels(best.fit.spread)) dB over \(best.fit.places) places)")
            guard !proposals.contains(where: { $0.isSame(as: proposal) || $0.old == proposal.old }),
                !dismissed.contains(where: { $0.isSame(as: proposal) })
            else { continue }
            proposals.append(proposal)
            found.append(proposal)
        }
        return found
    }

    /// Watches each anomalous beacon (silent, shifted or irregular) against every other beacon of the
    /// sample for a swap: the likelihood ratio of the two readings (or misses) under "each id comes from the
    /// other's place" against "each from its own", from the survey's presence and levels at the sample's
    /// place, is summed into a CUSUM per pair, no visit to a place giving more than its share, as silence is.
    /// At ``BeaconHealthRules/silentThreshold`` with evidence from ``BeaconHealthRules/minimumPlaces`` places
    /// the swap is proposed.
    mutating func watchSwaps(_ sample: LocatedSample, placeBit: UInt64, expectations: BeaconExpectations) -> [BeaconProposal] {
        let anomalous = sample.observations.filter { tracks.indices.contains(Int($0.beacon)) && isAnomalous(Int($0.beacon)) }
        guard !anomalous.isEmpty else { return [] }
        var found: [BeaconProposal] = []
        let share = rules.silentThreshold / Double(rules.minimumPlaces)
        var seen: Set<Int64> = []
        for first in anomalous {
            // A swap leaves both beacons unlike their surveys: a partner with nothing wrong is not watched, so a
            // beacon whose power alone changed is never read as swapped with one at another distance.
            for second in sample.observations where second.beacon != first.beacon && isSuspect(Int(second.beacon)) {
                let (low, high) = first.beacon < second.beacon ? (first, second) : (second, first)
                let key = Int64(low.beacon) << 32 | Int64(high.beacon)
                guard seen.insert(key).inserted else { continue }
                let evidence = min(share, max(-share, swapEvidence(low, high, offset: shift(of: low)) + swapEvidence(high, low, offset: shift(of: high))))
                var watch: SwapWatch
                if let index = swaps.firstIndex(where: { $0.first == low.beacon && $0.second == high.beacon }) {
                    watch = swaps.remove(at: index)
                } else {
                    guard evidence > 0 else { continue }
                    watch = SwapWatch(first: low.beacon, second: high.beacon, start: sample.time)
                }
                var step = evidence
                if evidence > 0 {
                    if sample.place != watch.runPlace {
                        watch.runPlace = sample.place
                        watch.runEvidence = 0
                    }
                    step = min(evidence, max(0, share - watch.runEvidence))
                    watch.runEvidence += step
                    watch.places |= placeBit
                }
                watch.statistic = max(0, watch.statistic + step)
                guard watch.statistic > 0 else { continue }
                if watch.statistic >= rules.silentThreshold, watch.places.nonzeroBitCount >= rules.minimumPlaces,
                    let proposal = swapProposal(watch, expectations: expectations, time: sample.time)
                {
                    proposals.append(proposal)
                    found.append(proposal)
                    continue
                }
                swaps.append(watch)
                if swaps.count > rules.unknownCapacity, let weakest = swaps.indices.min(by: { swaps[$0].statistic < swaps[$1].statistic }) {
                    swaps.remove(at: weakest)
                }
            }
        }
        return found
    }

    /// The offset a shifted beacon is heard at, 0 otherwise.
    private func shift(of observation: BeaconObservation) -> Double {
        let track = tracks[Int(observation.beacon)]
        return track.state == .shifted ? track.offset : 0
    }

    /// The log-likelihood ratio (nats) of `observation` coming from `other`'s place rather than its own,
    /// at its own place heard `offset` dB from its survey (a shifted beacon's): a beacon whose power changed
    /// is a shift, not a swap, and its readings lower at every place must not look like another beacon's
    /// farther away.
    private func swapEvidence(_ observation: BeaconObservation, _ other: BeaconObservation, offset: Double) -> Double {
        let floor = rules.mistakenReading
        let own = min(1 - floor, max(floor, Double(observation.presence)))
        let theirs = min(1 - floor, max(floor, Double(other.presence)))
        guard observation.heard else { return log((1 - theirs) / (1 - own)) }
        var evidence = log(theirs / own)
        if !observation.level.isNaN, !observation.expected.isNaN, !other.expected.isNaN {
            let level = Double(observation.level), spread = rules.maximumVisitSpread
            let ownMiss = level - offset - Double(observation.expected), theirMiss = level - Double(other.expected)
            evidence += (ownMiss * ownMiss - theirMiss * theirMiss) / (2 * spread * spread)
        }
        return evidence
    }

    /// The swap `watch` found, unless proposed already or dismissed; its offsets from the two beacons'
    /// readings since the watch began, where they fit.
    private func swapProposal(_ watch: SwapWatch, expectations: BeaconExpectations, time: Double) -> BeaconProposal? {
        let first = Int(watch.first), second = Int(watch.second)
        // Each beacon's readings must also fit the other's survey at a consistent offset, as a replacement's
        // must: the pair's likelihood can favour a swap over noise the survey would not show.
        guard let cross = fit(recentReadings(of: first, since: watch.start), to: second, expectations: expectations), isGood(cross),
            let reverse = fit(recentReadings(of: second, since: watch.start), to: first, expectations: expectations), isGood(reverse)
        else { return nil }
        let proposal = BeaconProposal(
            kind: .swap, old: beacons[first], new: beacons[second], offset: cross.offset,
            spread: max(cross.spread, reverse.spread), reverseOffset: reverse.offset,
            places: watch.places.nonzeroBitCount, readings: cross.readings + reverse.readings, time: time,
            reason: "\(beacons[first]) is heard where \(beacons[second]) was surveyed and \(beacons[second]) where \(beacons[first]) was, "
                + "at \(watch.places.nonzeroBitCount) places (\(BeaconTrack.decibels(watch.statistic)) nats): the two were hung in each other's place")
        let involved = Set([proposal.old, proposal.new])
        guard !proposals.contains(where: { !involved.isDisjoint(with: [$0.old, $0.new]) }),
            !dismissed.contains(where: { $0.isSame(as: proposal) })
        else { return nil }
        return proposal
    }

    /// A fit good enough to propose on: readings at ``BeaconHealthRules/minimumPlaces`` places, at least half
    /// of them where the other beacon is surveyed, the places' differences within the spread a healthy
    /// beacon's visits show about its own survey (``BeaconHealthRules/maximumVisitSpread``).
    private func isGood(_ fit: Fit) -> Bool {
        fit.coverage >= 0.5 && fit.places >= rules.minimumPlaces && fit.spread <= rules.maximumVisitSpread
    }

    /// Refits the open replacement proposals whose new id `sample` heard, over that id's latest readings:
    /// a proposal's offset is what accepting it applies, so it follows the evidence until ops decide.
    mutating func refineReplacements(heardIn sample: LocatedSample, expectations: BeaconExpectations) {
        for index in proposals.indices where proposals[index].kind == .replace {
            let proposal = proposals[index]
            guard sample.unknown.contains(where: { $0.beacon == proposal.new }),
                let old = beacons.firstIndex(of: proposal.old),
                let readings = reportedUnknown.first(where: { $0.beacon == proposal.new })?.readings,
                let fit = fit(readings, to: old, expectations: expectations), fit.places >= proposal.places
            else { continue }
            proposals[index].offset = fit.offset
            proposals[index].spread = fit.spread
            proposals[index].places = fit.places
            proposals[index].readings = fit.readings
        }
    }

    /// The fit of `readings` to `beacon`'s survey: per place, the median of their level less the level
    /// expected of `beacon` there; the places' median and spread. Nil without a reading where it is expected.
    func fit(_ readings: [HeardReading], to beacon: Int, expectations: BeaconExpectations) -> Fit? {
        guard !readings.isEmpty else { return nil }
        var expectation = BeaconExpectations.Expectation(beaconCount: expectations.beacons.count)
        var byPlace: [Int32: [Double]] = [:]
        var covered = 0
        for reading in readings {
            guard expectations.expect(atX: Double(reading.x), y: Double(reading.y), floor: Int(reading.floor), into: &expectation),
                expectation.presence(of: beacon) >= rules.minimumPresence, let level = expectation.level(of: beacon)
            else { continue }
            covered += 1
            byPlace[reading.place, default: []].append(Double(reading.level) - level)
        }
        let medians = byPlace.values.compactMap { Self.median($0) }
        guard let offset = Self.median(medians) else { return nil }
        let spread = medians.count > 1 ? 1.4826 * (Self.median(medians.map { abs($0 - offset) }) ?? 0) : 0
        let distance = (medians.reduce(0) { $0 + $1 * $1 } / Double(medians.count)).squareRoot()
        return Fit(
            coverage: Double(covered) / Double(readings.count), offset: offset, spread: spread, places: medians.count, readings: covered,
            distance: distance)
    }
}
