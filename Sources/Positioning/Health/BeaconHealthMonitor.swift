/// The evidence a beacon's state rests on, counted over everything the monitor saw of it.
public struct BeaconEvidence: Hashable, Sendable, Codable {
    /// Located samples whose place the survey expects the beacon at.
    public var expectedSamples: Int
    /// Of those, the samples that heard it.
    public var heardWhereExpected: Int
    /// Samples that heard it, wherever they were located.
    public var heardSamples: Int
    /// Distinct places (nearest spots) the evidence came from, counted in 64 buckets: exact for small
    /// numbers, a lower bound for large ones.
    public var places: Int
    /// Distinct devices, counted the same way from one bit a device (``LocatedSample/deviceMark(_:)``).
    public var devices: Int
    /// Time of the last sample that heard it, seconds since the Unix epoch.
    public var lastHeard: Double?

    public init(expectedSamples: Int = 0, heardWhereExpected: Int = 0, heardSamples: Int = 0, places: Int = 0, devices: Int = 0, lastHeard: Double? = nil) {
        self.expectedSamples = expectedSamples
        self.heardWhereExpected = heardWhereExpected
        self.heardSamples = heardSamples
        self.places = places
        self.devices = devices
        self.lastHeard = lastHeard
    }
}

/// One beacon's health: its state since when, the offset it is heard at, and what that rests on.
public struct BeaconHealth: Hashable, Sendable, Codable {
    public var beacon: BeaconID
    public var state: BeaconState
    /// When the state began (the time of the sample that decided it); nil while the beacon has not left
    /// its first state.
    public var since: Double?
    /// A shifted beacon's offset (dB, positive: louder than surveyed), the one matching corrects by; nil in
    /// other states.
    public var offset: Double?
    /// The offset's standard error, dB.
    public var offsetUncertainty: Double?
    /// The median of the beacon's recent visits' mean residuals against the survey (dB, gain-corrected; the
    /// last 64 visits to places): a drift too small for a state shows here. Nil before visits to three places.
    public var recentDifference: Double?
    /// How far the silent statistic has gone towards its threshold, 0...1: a beacon fading shows here
    /// before it is named.
    public var silentProgress: Double
    /// Since when the beacon has been heard unlike its survey in a way no offset explains (louder at some
    /// places, quieter at others: swapped with another, moved, or answers gone wrong); nil while it fits.
    /// Nothing is corrected for it; a swap is looked for.
    public var irregularSince: Double?
    public var evidence: BeaconEvidence

    public init(
        beacon: BeaconID, state: BeaconState, since: Double?, offset: Double?, offsetUncertainty: Double?, recentDifference: Double?,
        silentProgress: Double, irregularSince: Double?, evidence: BeaconEvidence
    ) {
        self.beacon = beacon
        self.state = state
        self.since = since
        self.offset = offset
        self.offsetUncertainty = offsetUncertainty
        self.recentDifference = recentDifference
        self.silentProgress = silentProgress
        self.irregularSince = irregularSince
        self.evidence = evidence
    }
}

/// A change of one beacon's state, with what decided it.
public struct BeaconStateChange: Hashable, Sendable, Codable {
    public var beacon: BeaconID
    public var from: BeaconState
    public var to: BeaconState
    /// The deciding sample's time, seconds since the Unix epoch.
    public var time: Double
    /// The deciding sample's index among the located samples the monitor has seen (0 the first).
    public var sample: Int
    public var offset: Double?
    public var offsetUncertainty: Double?
    public var evidence: BeaconEvidence
    /// The change for people.
    public var reason: String
}

/// Judges a venue's beacons from the located samples positiond sees (``LocatedSample``), in time order,
/// under ``BeaconHealthRules``. Bounded memory: a fixed record per surveyed beacon (its statistics and its
/// ``BeaconHealthRules/recentCapacity`` last readings) and at most ``BeaconHealthRules/unknownCapacity``
/// unknown ids; no device id, only one bit in 64 per device. A value type, `Codable`, so its whole state
/// is stored and taken up again by whichever replica decides next.
public struct BeaconHealthMonitor: Hashable, Sendable, Codable {
    public let rules: BeaconHealthRules
    /// The surveyed beacons, in the order of ``BeaconExpectations/beacons``.
    public let beacons: [BeaconID]
    private(set) var tracks: [BeaconTrack]
    private(set) var unknown: [BeaconID: UnknownTrack]
    /// Located samples observed.
    public private(set) var samples: Int
    /// The median gain of recent samples (dB): how much louder than the survey the venue is heard, all
    /// beacons alike (a phone, a season); nil before any sample had a gain.
    public private(set) var recentGain: Double?
    private var gains: Ring<Float>
    /// The remaps proposed and not yet accepted or dismissed, oldest first; their remaps are applied to live
    /// readings (``tolerance``).
    public package(set) var proposals: [BeaconProposal] = []
    /// Proposals ops dismissed: not proposed again.
    public internal(set) var dismissed: [BeaconProposal] = []
    /// The pairs of beacons watched for a swap (``watchSwaps(_:placeBit:expectations:)``), at most
    /// ``BeaconHealthRules/unknownCapacity``.
    var swaps: [SwapWatch] = []

    public init(beacons: [BeaconID], rules: BeaconHealthRules) {
        self.rules = rules
        self.beacons = beacons
        tracks = beacons.map { _ in BeaconTrack(capacity: rules.recentCapacity) }
        unknown = [:]
        samples = 0
        gains = Ring(capacity: 64)
    }

    /// The monitor for `beacons` (a new revision's survey) under `rules`, keeping what this one knew of the
    /// beacons both have; an unknown id that the survey now has (a replacement accepted) is forgotten.
    public func rebased(onto beacons: [BeaconID], rules: BeaconHealthRules) -> BeaconHealthMonitor {
        var next = BeaconHealthMonitor(beacons: beacons, rules: rules)
        var known: [BeaconID: Int] = [:]
        for (index, beacon) in self.beacons.enumerated() { known[beacon] = index }
        for (index, beacon) in beacons.enumerated() {
            if let old = known[beacon] { next.tracks[index] = tracks[old] }
        }
        let surveyed = Set(beacons)
        next.unknown = unknown.filter { !surveyed.contains($0.key) }
        // A replacement accepted puts its new id in the survey, and a swap accepted makes each id mean the other's
        // place: either way the proposal is done. Swaps are watched anew on the new columns.
        next.proposals = proposals.filter { proposal in
            switch proposal.kind {
            case .replace: !surveyed.contains(proposal.new) && surveyed.contains(proposal.old)
            case .swap: surveyed.contains(proposal.old) && surveyed.contains(proposal.new)
            }
        }
        next.dismissed = dismissed
        next.samples = samples
        next.gains = gains
        next.recentGain = recentGain
        return next
    }

    /// What one sample changed: states, and remaps proposed.
    public struct Update: Sendable {
        public var changes: [BeaconStateChange] = []
        public var proposals: [BeaconProposal] = []
        public var isEmpty: Bool { changes.isEmpty && proposals.isEmpty }
    }

    /// Takes one located sample's evidence (laid out against `expectations`, the venue's); returns the state
    /// changes and proposals it caused.
    public mutating func observe(_ sample: LocatedSample, expectations: BeaconExpectations) -> Update {
        var update = Update()
        let index = samples
        samples += 1
        let placeBit: UInt64 = sample.place >= 0 ? 1 << (UInt64(sample.place) % 64) : 0
        if !sample.gain.isNaN {
            gains.append(sample.gain)
            recentGain = Self.median(gains.elements.map(Double.init))
        }
        for observation in sample.observations {
            let beacon = Int(observation.beacon)
            guard tracks.indices.contains(beacon) else { continue }
            if let change = tracks[beacon].observe(
                observation, sample: sample, index: index, placeBit: placeBit, rules: rules, beacon: beacons[beacon])
            {
                update.changes.append(change)
            }
        }
        for reading in sample.unknown {
            if let change = observeUnknown(reading, sample: sample, index: index, placeBit: placeBit) { update.changes.append(change) }
        }
        update.proposals += watchSwaps(sample, placeBit: placeBit, expectations: expectations)
        if !sample.unknown.isEmpty { refineReplacements(heardIn: sample, expectations: expectations) }
        if !update.changes.isEmpty {
            update.proposals += proposeReplacements(expectations: expectations, time: sample.time)
        }
        return update
    }

    private mutating func observeUnknown(_ reading: UnknownReading, sample: LocatedSample, index: Int, placeBit: UInt64) -> BeaconStateChange? {
        if unknown[reading.beacon] == nil {
            if unknown.count >= rules.unknownCapacity {
                // The least heard id not yet reported makes room; reported ones stay until the survey has them.
                guard let weakest = unknown.filter({ !$0.value.reported }).min(by: { ($0.value.heard, $0.key) < ($1.value.heard, $1.key) })
                else { return nil }
                unknown.removeValue(forKey: weakest.key)
            }
            // An unknown id's readings are what a replacement's offset is measured on: it keeps four times a
            // surveyed beacon's.
            unknown[reading.beacon] = UnknownTrack(capacity: 4 * rules.recentCapacity, firstHeard: sample.time)
        }
        var track = unknown[reading.beacon]!
        defer { unknown[reading.beacon] = track }
        track.heard += 1
        track.places |= placeBit
        track.devices |= sample.device
        track.lastHeard = sample.time
        track.recent.append(HeardReading(
            x: sample.x, y: sample.y, floor: sample.floor, place: sample.place, level: reading.corrected ? reading.level : .nan,
            residual: .nan, index: Int32(truncatingIfNeeded: track.heard), time: sample.time))
        guard !track.reported, track.heard >= rules.unknownSamples, track.places.nonzeroBitCount >= rules.minimumPlaces else { return nil }
        track.reported = true
        track.since = sample.time
        return BeaconStateChange(
            beacon: reading.beacon, from: .insufficientEvidence, to: .unknownBeacon, time: sample.time, sample: index,
            offset: nil, offsetUncertainty: nil, evidence: track.evidence,
            reason: "heard in \(track.heard) samples at \(track.places.nonzeroBitCount) places, but not part of the survey")
    }

    /// Every surveyed beacon's health, in ``beacons`` order, then the reported unknown ids.
    public var health: [BeaconHealth] {
        var all = zip(beacons, tracks).map { beacon, track in track.health(beacon, rules: rules) }
        for (beacon, track) in unknown.sorted(by: { $0.key < $1.key }) where track.reported {
            all.append(BeaconHealth(
                beacon: beacon, state: .unknownBeacon, since: track.since, offset: nil, offsetUncertainty: nil,
                recentDifference: nil, silentProgress: 0, irregularSince: nil, evidence: track.evidence))
        }
        return all
    }

    /// The health of one surveyed beacon.
    public func health(of beacon: Int) -> BeaconHealth { tracks[beacon].health(beacons[beacon], rules: rules) }

    /// What matching should make of the beacons' states: shifted beacons' offsets, the silent ones, and the
    /// open replacement proposals, whose new id is read as the silent beacon it replaces (a dead beacon's
    /// place taken by an id heard where it was, at a consistent offset: matching then has the beacon back
    /// before ops accept, and the positions the proposal's offset is refined at are no longer pushed away from
    /// the dead beacon). Swaps are not applied: one proposed on the wrong pair, matched as a remap, made a
    /// venue's walks worse than leaving them (docs/beacon-health.md), so they wait for ops. A shifted beacon is
    /// corrected only once its offset is known to half a transmit step, and not while it is suspected of a
    /// swap (in an open swap proposal, or watched with another beacon past half the evidence one needs): the
    /// readings of a swapped beacon differ by place, and an offset fitted to them moves the answers further
    /// off. Beacons ops hold are left as surveyed.
    public var tolerance: HealthTolerance {
        var suspected = Set<BeaconID>()
        var remaps: [BeaconID: HealthTolerance.Remap] = [:]
        for proposal in proposals {
            switch proposal.kind {
            case .swap: suspected.formUnion([proposal.old, proposal.new])
            case .replace where !isHeld(proposal.old): remaps[proposal.new] = .init(beacon: proposal.old, offset: proposal.offset)
            case .replace: break
            }
        }
        for watch in swaps where watch.statistic >= rules.silentThreshold / 2 {
            suspected.formUnion([beacons[Int(watch.first)], beacons[Int(watch.second)]])
        }
        let replaced = Set(remaps.values.map(\.beacon))
        var offsets: [BeaconID: Double] = [:]
        var silent: Set<BeaconID> = []
        for (beacon, track) in zip(beacons, tracks) where !track.held && !replaced.contains(beacon) {
            switch track.state {
            case .shifted where !suspected.contains(beacon) && (track.offsetError ?? .infinity) <= rules.shiftStep / 2:
                offsets[beacon] = track.offset
            case .silent: silent.insert(beacon)
            default: break
            }
        }
        return HealthTolerance(offsets: offsets, silent: silent, remaps: remaps)
    }

    /// Takes `proposal` as accepted (ops remapped the survey): its remap is no longer applied to live readings,
    /// and what was concluded about its beacons, which now mean other places, is forgotten.
    public mutating func accept(_ proposal: BeaconProposal) {
        proposals.removeAll { $0.isSame(as: proposal) }
        for beacon in [proposal.old, proposal.new] {
            if let index = beacons.firstIndex(of: beacon) {
                tracks[index] = BeaconTrack(capacity: rules.recentCapacity)
                swaps.removeAll { $0.first == Int32(index) || $0.second == Int32(index) }
            }
        }
    }

    /// Dismisses the open proposal remapping `first` and `second` (ops judged it wrong): its remap is no
    /// longer applied and the same remap is not proposed again until either beacon is reset. False when no
    /// such proposal is open.
    @discardableResult
    public mutating func dismiss(_ proposal: BeaconProposal) -> Bool {
        guard let index = proposals.firstIndex(where: { $0.isSame(as: proposal) }) else { return false }
        dismissed.append(proposals.remove(at: index))
        return true
    }

    /// Forgets what was concluded about `beacon` (a surveyed or unknown id): its state, statistics and
    /// readings, as if it had never been heard. What ops do to reverse an automatic change; false when the
    /// monitor does not know the id.
    @discardableResult
    public mutating func reset(_ beacon: BeaconID) -> Bool {
        proposals.removeAll { $0.old == beacon || $0.new == beacon }
        dismissed.removeAll { $0.old == beacon || $0.new == beacon }
        if let index = beacons.firstIndex(of: beacon) {
            tracks[index] = BeaconTrack(capacity: rules.recentCapacity)
            swaps.removeAll { $0.first == Int32(index) || $0.second == Int32(index) }
            return true
        }
        return unknown.removeValue(forKey: beacon) != nil
    }

    /// Whether `beacon`'s automatic tolerance is suspended by ops: its state is still judged and shown, but
    /// matching does not act on it.
    public func isHeld(_ beacon: BeaconID) -> Bool {
        beacons.firstIndex(of: beacon).map { tracks[$0].held } ?? false
    }

    /// Suspends (or resumes) the tolerance for `beacon`; false when it is not a surveyed beacon.
    @discardableResult
    public mutating func hold(_ beacon: BeaconID, _ held: Bool) -> Bool {
        guard let index = beacons.firstIndex(of: beacon) else { return false }
        tracks[index].held = held
        return true
    }

    /// Heard readings of a surveyed beacon since `time` (its recent ones), for fits.
    func recentReadings(of beacon: Int, since time: Double) -> [HeardReading] {
        tracks[beacon].recent.elements.filter { $0.time >= time && !$0.level.isNaN }
    }

    /// The time the beacon's current anomaly began to gather evidence (when its statistic last left zero),
    /// or its state's start.
    func anomalyStart(of beacon: Int) -> Double { tracks[beacon].anomalyStart ?? tracks[beacon].since ?? -.infinity }

    func state(of beacon: Int) -> BeaconState { tracks[beacon].state }

    /// Whether the beacon is silent, shifted or irregular: a candidate for a swap or a replacement.
    func isAnomalous(_ beacon: Int) -> Bool {
        [.silent, .shifted].contains(tracks[beacon].state) || tracks[beacon].irregularSince != nil
    }

    /// Whether the beacon is anomalous, or halfway to it (its silent or a level statistic past half its
    /// threshold): a swap's other beacon may not have been named yet.
    func isSuspect(_ beacon: Int) -> Bool {
        let track = tracks[beacon]
        return isAnomalous(beacon) || track.silent >= rules.silentThreshold / 2
            || max(track.louder, track.quieter) >= rules.levelThreshold / 2
    }

    /// The reported unknown ids with their readings.
    var reportedUnknown: [(beacon: BeaconID, readings: [HeardReading], heard: Int)] {
        unknown.sorted { $0.key < $1.key }.filter(\.value.reported).map { ($0.key, $0.value.recent.elements.filter { !$0.level.isNaN }, $0.value.heard) }
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The median of `values` and its standard error (1.2533 · 1.4826 · MAD / √n).
    static func robustMean(_ values: [Double]) -> (value: Double, error: Double)? {
        guard let centre = median(values) else { return nil }
        let spread = 1.4826 * (median(values.map { abs($0 - centre) }) ?? 0)
        return (centre, 1.2533 * spread / Double(values.count).squareRoot())
    }
}

/// What matching makes of the beacons' states: readings of a shifted beacon are corrected by its offset, the
/// new id of a proposed replacement is read as the silent beacon it replaces (its offset taken off), and
/// silent beacons are listed for the venue's policy (``SilentMatching``). Nothing of the survey changes.
public struct HealthTolerance: Hashable, Sendable, Codable {
    /// A live id read as a surveyed beacon, its readings taken down by `offset` dB.
    public struct Remap: Hashable, Sendable, Codable {
        public var beacon: BeaconID
        public var offset: Double

        public init(beacon: BeaconID, offset: Double) {
            self.beacon = beacon
            self.offset = offset
        }
    }

    /// dB each shifted beacon is heard louder than surveyed; its readings are taken down by as much.
    public var offsets: [BeaconID: Double]
    public var silent: Set<BeaconID>
    public var remaps: [BeaconID: Remap]

    public init(offsets: [BeaconID: Double] = [:], silent: Set<BeaconID> = [], remaps: [BeaconID: Remap] = [:]) {
        self.offsets = offsets
        self.silent = silent
        self.remaps = remaps
    }

    public var isEmpty: Bool { offsets.isEmpty && silent.isEmpty && remaps.isEmpty }

    /// `sample` as the survey would have heard it: a replacement's id read as the beacon it replaces, and
    /// every shifted beacon's reading brought back to the survey's level.
    public func corrected(_ sample: Sample) -> Sample {
        guard !offsets.isEmpty || !remaps.isEmpty else { return sample }
        var copy = sample
        for index in copy.readings.indices {
            if let remap = remaps[copy.readings[index].beacon] {
                copy.readings[index].beacon = remap.beacon
                copy.readings[index].rssi -= remap.offset
            } else if let offset = offsets[copy.readings[index].beacon] {
                copy.readings[index].rssi -= offset
            }
        }
        return copy
    }
}

/// A heard reading kept for offsets and fits: where the sample was located and the level in the survey's
/// terms.
struct HeardReading: Hashable, Sendable, Codable {
    var x: Float
    var y: Float
    var floor: Int32
    var place: Int32
    var level: Float
    var residual: Float
    /// The beacon's level-observation count when it was taken (surveyed beacons), to find a change point.
    var index: Int32
    var time: Double

    // JSON has no NaN: an unknown level or residual is absent.
    enum CodingKeys: String, CodingKey { case x, y, floor, place, level, residual, index, time }

    init(x: Float, y: Float, floor: Int32, place: Int32, level: Float, residual: Float, index: Int32, time: Double) {
        self.x = x
        self.y = y
        self.floor = floor
        self.place = place
        self.level = level
        self.residual = residual
        self.index = index
        self.time = time
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        x = try container.decode(Float.self, forKey: .x)
        y = try container.decode(Float.self, forKey: .y)
        floor = try container.decode(Int32.self, forKey: .floor)
        place = try container.decode(Int32.self, forKey: .place)
        level = try container.decodeIfPresent(Float.self, forKey: .level) ?? .nan
        residual = try container.decodeIfPresent(Float.self, forKey: .residual) ?? .nan
        index = try container.decode(Int32.self, forKey: .index)
        time = try container.decode(Double.self, forKey: .time)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(x, forKey: .x)
        try container.encode(y, forKey: .y)
        try container.encode(floor, forKey: .floor)
        try container.encode(place, forKey: .place)
        try container.encodeIfPresent(level.isNaN ? nil : level, forKey: .level)
        try container.encodeIfPresent(residual.isNaN ? nil : residual, forKey: .residual)
        try container.encode(index, forKey: .index)
        try container.encode(time, forKey: .time)
    }
}

/// A fixed-capacity ring, oldest first in ``elements``.
struct Ring<Element: Hashable & Sendable & Codable>: Hashable, Sendable, Codable {
    private var storage: [Element] = []
    private var next = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    mutating func append(_ element: Element) {
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[next] = element
            next = (next + 1) % capacity
        }
    }

    var elements: [Element] { Array(storage[next...] + storage[..<next]) }
    var isEmpty: Bool { storage.isEmpty }
}

/// One surveyed beacon's statistics.
struct BeaconTrack: Hashable, Sendable, Codable {
    var state: BeaconState = .insufficientEvidence
    var since: Double?
    /// Ops suspended the tolerance for it.
    var held = false
    // Silent: the CUSUM, the places its current run drew on, and the evidence of the place being visited.
    var silent = 0.0
    var silentPlaces: UInt64 = 0
    var silentStart: Double?
    var runPlace: Int32 = -1
    var runEvidence = 0.0
    var recovery = 0.0
    // Level: two one-sided CUSUMs of the residual less the current offset, the index at which each last
    // left 0, and the count of residuals so far.
    var louder = 0.0
    var quieter = 0.0
    var louderSince: Int32 = 0
    var quieterSince: Int32 = 0
    var louderStart: Double?
    var quieterStart: Double?
    var levels: Int32 = 0
    var levelRunPlace: Int32 = -1
    var louderRun = 0.0
    var quieterRun = 0.0
    var offset = 0.0
    var offsetError: Double?
    /// The shift's change point (a level-observation index): the offset is refined over the readings since.
    var changeIndex: Int32?
    /// Where (a level-observation index) and when the beacon's level last changed unlike a shift: louder at
    /// some places, quieter at others. Nil while it fits its survey.
    var irregularIndex: Int32?
    var irregularSince: Double?
    var recent: Ring<HeardReading>
    /// The residuals gathered per visit to a place: what an offset is estimated from.
    var visits = LevelVisits(capacity: 64)
    /// The beacon's live level per place, what a change is measured against (nil in a state stored before
    /// it was kept: it starts empty).
    var placeLevels: PlaceLevels?
    // Evidence.
    var expected = 0
    var heardWhereExpected = 0
    var heard = 0
    var places: UInt64 = 0
    var heardPlaces: UInt64 = 0
    var devices: UInt64 = 0
    var lastHeard: Double?

    init(capacity: Int) { recent = Ring(capacity: capacity) }

    var evidence: BeaconEvidence {
        BeaconEvidence(
            expectedSamples: expected, heardWhereExpected: heardWhereExpected, heardSamples: heard, places: places.nonzeroBitCount,
            devices: devices.nonzeroBitCount, lastHeard: lastHeard)
    }

    /// When the anomaly under way started gathering evidence.
    var anomalyStart: Double? {
        switch state {
        case .silent: silentStart
        case .shifted: since
        default: [silentStart, louderStart, quieterStart, irregularSince].compactMap { $0 }.min()
        }
    }

    func health(_ beacon: BeaconID, rules: BeaconHealthRules) -> BeaconHealth {
        // Over the last visits to places, each counting once: the readings of the last minute or two share
        // their few places' errors.
        let difference = visits.surveyDifference(places: rules.minimumPlaces)
        return BeaconHealth(
            beacon: beacon, state: state, since: since, offset: state == .shifted ? offset : nil,
            offsetUncertainty: state == .shifted ? offsetError : nil, recentDifference: difference,
            silentProgress: state == .silent ? 1 : min(1, silent / rules.silentThreshold), irregularSince: irregularSince, evidence: evidence)
    }

    mutating func observe(
        _ observation: BeaconObservation, sample: LocatedSample, index: Int, placeBit: UInt64, rules: BeaconHealthRules, beacon: BeaconID
    ) -> BeaconStateChange? {
        if observation.heard {
            heard += 1
            lastHeard = max(lastHeard ?? sample.time, sample.time)
            devices |= sample.device
            if !observation.level.isNaN {
                if !observation.residual.isNaN { levels += 1 }
                recent.append(HeardReading(
                    x: sample.x, y: sample.y, floor: sample.floor, place: sample.place, level: observation.level,
                    residual: observation.residual, index: levels, time: sample.time))
            }
        }
        let presence = Double(observation.presence)
        guard presence >= rules.minimumPresence else { return nil }
        expected += 1
        places |= placeBit
        if observation.heard {
            heardWhereExpected += 1
            heardPlaces |= placeBit
        }

        // Silent: the CUSUM, no place giving more than its share of the threshold per visit.
        let evidence = rules.silentEvidence(presence: presence, heard: observation.heard)
        var step = evidence
        if evidence > 0 {
            if sample.place != runPlace {
                runPlace = sample.place
                runEvidence = 0
            }
            step = min(evidence, max(0, rules.silentThreshold / Double(rules.minimumPlaces) - runEvidence))
            runEvidence += step
        }
        if silent == 0, step > 0 { silentStart = sample.time }
        silent = max(0, silent + step)
        if silent == 0 {
            silentPlaces = 0
            silentStart = nil
        } else if step > 0 {
            silentPlaces |= placeBit
        }
        if state == .silent {
            recovery = max(0, recovery - evidence)
            if recovery >= rules.silentThreshold {
                return change(
                    to: .healthy, beacon: beacon, sample: sample, index: index,
                    reason: "heard again where the survey expects it (\(heardWhereExpected) of \(expected) samples in all)")
            }
            return nil
        }
        if silent >= rules.silentThreshold, silentPlaces.nonzeroBitCount >= rules.minimumPlaces {
            return change(
                to: .silent, beacon: beacon, sample: sample, index: index,
                reason: "not heard where the survey expects it, at \(silentPlaces.nonzeroBitCount) places since \(Self.clock(silentStart ?? sample.time))")
        }

        // Level: two CUSUMs of the residual less the offset matching already corrects by, measured from the
        // beacon's live level at the place (``PlaceLevels``), not from the survey alone.
        if observation.heard, !observation.residual.isNaN {
            var known = placeLevels ?? PlaceLevels()
            if louder == 0 && quieter == 0 { known.settle() }
            let departure = Double(observation.residual) - known.reference(at: sample.place, prior: rules.placePrior)
            known.record(place: sample.place, residual: Double(observation.residual) - offset, index: levels)
            placeLevels = known
            let residual = min(rules.residualClip, max(-rules.residualClip, departure - offset))
            if louder == 0 {
                louderSince = levels
                louderStart = sample.time
            }
            if quieter == 0 {
                quieterSince = levels
                quieterStart = sample.time
            }
            // As for silence, no visit to one place gives more than its share of the threshold.
            if sample.place != levelRunPlace {
                levelRunPlace = sample.place
                louderRun = 0
                quieterRun = 0
            }
            let share = rules.levelThreshold / Double(rules.minimumPlaces)
            var up = residual - rules.levelSlack, down = -residual - rules.levelSlack
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
            if louder == 0 { louderStart = nil }
            if quieter == 0 { quieterStart = nil }
            visits.record(place: sample.place, residual: departure, surveyResidual: Double(observation.residual), index: levels)
            if state == .shifted, let changeIndex, let refined = visits.offset(since: changeIndex, places: rules.minimumPlaces) {
                // The offset is refined over the visits since the change, as long as the state lasts. Refined
                // to credibly under the bar, or to no longer credibly beyond one power step (both by two
                // standard errors), there was no shift worth the state.
                offset = refined.value
                offsetError = refined.error
                if !rules.isShift(refined.value, error: refined.error, naming: false) {
                    let estimate = refined.value
                    offset = 0
                    offsetError = nil
                    self.changeIndex = nil
                    louder = 0
                    quieter = 0
                    return change(
                        to: .healthy, beacon: beacon, sample: sample, index: index,
                        reason: "heard at the surveyed level after all (\(Self.decibels(estimate)) dB over the visits since the change)")
                }
            }
            if let since = irregularIndex, let recent = visits.offset(since: since, places: 2 * rules.minimumPlaces),
                recent.spread <= rules.maximumVisitSpread, abs(recent.value - offset) < rules.shiftStep
            {
                // The beacon has fitted its survey again at enough places since it went irregular.
                irregularIndex = nil
                irregularSince = nil
            }
            if louder >= rules.levelThreshold || quieter >= rules.levelThreshold {
                let start = louder >= rules.levelThreshold ? louderSince : quieterSince
                if let estimate = visits.offset(since: start, places: rules.minimumPlaces) {
                    let since = visits.count(since: start)
                    louder = 0
                    quieter = 0
                    if estimate.spread > rules.maximumVisitSpread {
                        // Louder at some places and quieter at others: not a change of the beacon's power (a swap, a
                        // beacon moved, answers gone wrong). Nothing is corrected; it is a candidate for a swap.
                        if irregularIndex == nil {
                            irregularIndex = start
                            irregularSince = sample.time
                        }
                    } else if rules.isShift(estimate.value, error: estimate.error, naming: true) {
                        let wasShifted = state == .shifted
                        offset = estimate.value
                        offsetError = estimate.error
                        changeIndex = start
                        // The places' levels took in part of the change while it was measured; from here they
                        // learn the level net of the offset.
                        placeLevels?.rollBack()
                        let direction = estimate.value > 0 ? "louder" : "quieter"
                        let reason = "heard \(Self.decibels(abs(estimate.value))) dB \(direction) than surveyed (± \(Self.decibels(estimate.error))) over \(since.readings) readings at \(since.visits) visits to places"
                        if wasShifted {
                            // A new offset is a change ops see, though the state stays.
                            return change(to: .shifted, beacon: beacon, sample: sample, index: index, reason: reason, keepingState: true)
                        }
                        return change(to: .shifted, beacon: beacon, sample: sample, index: index, reason: reason)
                    } else if state == .shifted {
                        offset = 0
                        offsetError = nil
                        changeIndex = nil
                        return change(
                            to: .healthy, beacon: beacon, sample: sample, index: index,
                            reason: "heard at the surveyed level again (\(Self.decibels(estimate.value)) dB over \(since.readings) readings)")
                    }
                }
            }
        }
        if state == .insufficientEvidence, heardPlaces.nonzeroBitCount >= rules.minimumPlaces {
            return change(
                to: .healthy, beacon: beacon, sample: sample, index: index,
                reason: "heard where the survey expects it at \(heardPlaces.nonzeroBitCount) places")
        }
        return nil
    }

    private mutating func change(
        to next: BeaconState, beacon: BeaconID, sample: LocatedSample, index: Int, reason: String, keepingState: Bool = false
    ) -> BeaconStateChange {
        let previous = state
        if !keepingState {
            state = next
            since = sample.time
        }
        switch next {
        case .silent:
            recovery = 0
            louder = 0
            quieter = 0
            offset = 0
            offsetError = nil
            changeIndex = nil
        case .healthy:
            if previous == .silent {
                silent = 0
                silentPlaces = 0
                silentStart = nil
                recovery = 0
            }
        default: break
        }
        return BeaconStateChange(
            beacon: beacon, from: previous, to: next, time: sample.time, sample: index,
            offset: next == .shifted ? offset : nil, offsetUncertainty: next == .shifted ? offsetError : nil, evidence: evidence,
            reason: reason)
    }

    static func decibels(_ value: Double) -> String { String(Double((value * 10).rounded()) / 10) }

    /// A time of day (UTC) for reasons, hh:mm:ss.
    static func clock(_ time: Double) -> String {
        let seconds = Int(time.rounded(.down)) % 86_400
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60)) UTC"
    }
}

/// A beacon's residuals summed per visit (consecutive readings at one place), the last `capacity` visits:
/// an offset is the median of the visits' means, so that a visitor standing for minutes at one place,
/// whose readings share that place's error, counts once.
struct LevelVisits: Hashable, Sendable, Codable {
    struct Visit: Hashable, Sendable, Codable {
        var place: Int32
        /// The level-observation index of its first residual.
        var first: Int32
        var sum: Double
        var count: Int
        /// Σ of the residuals against the survey alone (``sum`` is of their departures from the places' live
        /// levels, ``PlaceLevels``); nil in a state stored before it was kept, whose sums were against the
        /// survey.
        var surveySum: Double?
    }

    private var ring: Ring<Visit>
    /// The visit under way, not yet in ``ring``.
    private var current: Visit?

    init(capacity: Int) { ring = Ring(capacity: capacity) }

    mutating func record(place: Int32, residual: Double, surveyResidual: Double, index: Int32) {
        if var visit = current, visit.place == place {
            visit.surveySum = (visit.surveySum ?? visit.sum) + surveyResidual
            visit.sum += residual
            visit.count += 1
            current = visit
            return
        }
        if let current { ring.append(current) }
        current = Visit(place: place, first: index, sum: residual, count: 1, surveySum: surveyResidual)
    }

    /// The median of the visits' mean residuals against the survey alone: how far the venue's level of the
    /// beacon lies from its survey now (drift too small for a state shows here); nil with fewer than
    /// `places` visits.
    func surveyDifference(places: Int) -> Double? {
        let chosen = visits(since: 0)
        guard chosen.count >= max(1, places) else { return nil }
        return BeaconHealthMonitor.robustMean(chosen.map { ($0.surveySum ?? $0.sum) / Double($0.count) })?.value
    }

    private func visits(since index: Int32) -> [Visit] {
        (ring.elements + (current.map { [$0] } ?? [])).filter { $0.first >= index }
    }

    func count(since index: Int32) -> (visits: Int, readings: Int) {
        let chosen = visits(since: index)
        return (chosen.count, chosen.reduce(0) { $0 + $1.count })
    }

    /// The median of the visits' mean residuals since `index`, its standard error and the means' spread
    /// (1.4826 · MAD); nil with visits to fewer than `places` places.
    func offset(since index: Int32, places: Int) -> (value: Double, error: Double, spread: Double)? {
        let chosen = visits(since: index)
        guard Set(chosen.map(\.place)).count >= max(1, places) else { return nil }
        let means = chosen.map { $0.sum / Double($0.count) }
        guard let estimate = BeaconHealthMonitor.robustMean(means) else { return nil }
        return (estimate.value, estimate.error, 1.4826 * (BeaconHealthMonitor.median(means.map { abs($0 - estimate.value) }) ?? 0))
    }
}

/// An id heard that the survey does not have.
struct UnknownTrack: Hashable, Sendable, Codable {
    var heard = 0
    var places: UInt64 = 0
    var devices: UInt64 = 0
    var firstHeard: Double
    var lastHeard: Double
    var reported = false
    var since: Double?
    var recent: Ring<HeardReading>

    init(capacity: Int, firstHeard: Double) {
        recent = Ring(capacity: capacity)
        self.firstHeard = firstHeard
        lastHeard = firstHeard
    }

    var evidence: BeaconEvidence {
        BeaconEvidence(heardSamples: heard, places: places.nonzeroBitCount, devices: devices.nonzeroBitCount, lastHeard: lastHeard)
    }
}
