/// One beacon's part in one located sample: whether the survey expected it there and how loud, against
/// whether and how loud it was heard.
public struct BeaconObservation: Hashable, Sendable, Codable {
    /// Index into ``BeaconExpectations/beacons``.
    public var beacon: Int32
    /// The share of samples the survey expects to hear it at the sample's place (0 where never).
    public var presence: Float
    public var heard: Bool
    /// Heard: its RSSI less the sample's gain (``LocatedSample/gain``): its level in the survey's terms,
    /// comparable with another beacon's expected level at the place. NaN when not heard, or when the sample
    /// heard too few expected beacons to tell its gain.
    public var level: Float
    /// Heard where expected: ``level`` less the level the survey expects there, dB (positive: louder than
    /// surveyed). NaN otherwise.
    public var residual: Float
    /// The level the survey expects of it at the place (dBm, where it is heard), NaN where it never is.
    public var expected: Float

    public init(beacon: Int32, presence: Float, heard: Bool, level: Float, residual: Float, expected: Float = .nan) {
        self.beacon = beacon
        self.presence = presence
        self.heard = heard
        self.level = level
        self.residual = residual
        self.expected = expected
    }

    // JSON has no NaN: an unknown level or residual is absent.
    enum CodingKeys: String, CodingKey { case beacon, presence, heard, level, residual, expected }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        beacon = try container.decode(Int32.self, forKey: .beacon)
        presence = try container.decode(Float.self, forKey: .presence)
        heard = try container.decode(Bool.self, forKey: .heard)
        level = try container.decodeIfPresent(Float.self, forKey: .level) ?? .nan
        residual = try container.decodeIfPresent(Float.self, forKey: .residual) ?? .nan
        expected = try container.decodeIfPresent(Float.self, forKey: .expected) ?? .nan
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(beacon, forKey: .beacon)
        try container.encode(presence, forKey: .presence)
        try container.encode(heard, forKey: .heard)
        try container.encodeIfPresent(level.isNaN ? nil : level, forKey: .level)
        try container.encodeIfPresent(residual.isNaN ? nil : residual, forKey: .residual)
        try container.encodeIfPresent(expected.isNaN ? nil : expected, forKey: .expected)
    }
}

/// A beacon heard in a sample that the survey never heard (a new id, a replacement never remapped, a phone
/// advertising as a beacon).
public struct UnknownReading: Hashable, Sendable, Codable {
    public var beacon: BeaconID
    /// Its RSSI less the sample's gain, in the survey's terms; the raw RSSI when the gain is unknown.
    public var level: Float
    /// Whether ``level`` is gain-corrected.
    public var corrected: Bool

    public init(beacon: BeaconID, level: Float, corrected: Bool) {
        self.beacon = beacon
        self.level = level
        self.corrected = corrected
    }
}

/// The evidence one located sample gives about the venue's beacons. No device id: only a mark of 1 bit in
/// 64 drawn from it (``deviceMark(_:)``), enough to count a handful of devices and to recognise none.
public struct LocatedSample: Hashable, Sendable, Codable {
    /// Seconds since the Unix epoch (the sample's own clock).
    public var time: Double
    /// Where the sample was located: metres, and the nearest spot (an index into the venue's spots).
    public var x: Float
    public var y: Float
    public var floor: Int32
    public var place: Int32
    /// One bit of 64 chosen by the device: distinct marks count distinct devices.
    public var device: UInt64
    /// How much louder than the survey the sample hears the venue (the median of its expected beacons'
    /// level differences), dB; NaN when it heard fewer than two of them.
    public var gain: Float
    /// Every beacon expected at the place (presence at least ``BeaconHealthRules/minimumPresence``), and
    /// every known beacon heard.
    public var observations: [BeaconObservation]
    public var unknown: [UnknownReading]

    public init(
        time: Double, x: Float, y: Float, floor: Int32, place: Int32, device: UInt64, gain: Float, observations: [BeaconObservation],
        unknown: [UnknownReading]
    ) {
        self.time = time
        self.x = x
        self.y = y
        self.floor = floor
        self.place = place
        self.device = device
        self.gain = gain
        self.observations = observations
        self.unknown = unknown
    }

    // JSON has no NaN: an unknown gain is absent.
    enum CodingKeys: String, CodingKey { case time, x, y, floor, place, device, gain, observations, unknown }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        time = try container.decode(Double.self, forKey: .time)
        x = try container.decode(Float.self, forKey: .x)
        y = try container.decode(Float.self, forKey: .y)
        floor = try container.decode(Int32.self, forKey: .floor)
        place = try container.decode(Int32.self, forKey: .place)
        device = try container.decode(UInt64.self, forKey: .device)
        gain = try container.decodeIfPresent(Float.self, forKey: .gain) ?? .nan
        observations = try container.decode([BeaconObservation].self, forKey: .observations)
        unknown = try container.decode([UnknownReading].self, forKey: .unknown)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(time, forKey: .time)
        try container.encode(x, forKey: .x)
        try container.encode(y, forKey: .y)
        try container.encode(floor, forKey: .floor)
        try container.encode(place, forKey: .place)
        try container.encode(device, forKey: .device)
        try container.encodeIfPresent(gain.isNaN ? nil : gain, forKey: .gain)
        try container.encode(observations, forKey: .observations)
        try container.encode(unknown, forKey: .unknown)
    }

    /// A 64-bit mark with one bit set, chosen by a stable hash of `device` (FNV-1a): the same device sets
    /// the same bit on every replica, and 6 bits say nothing about which device it was.
    public static func deviceMark(_ device: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in device.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return 1 << (hash % 64)
    }
}

/// Turns located samples into ``LocatedSample`` evidence against a venue's ``BeaconExpectations``. Holds
/// scratch space, so one builder serves one thread; nothing is allocated per beacon once warm.
public struct ScanEvidence: Sendable {
    public let expectations: BeaconExpectations
    public let minimumPresence: Double
    private var expectation: BeaconExpectations.Expectation
    private var differences: [(beacon: Int, difference: Double)] = []
    private var sorted: [Double] = []

    public init(expectations: BeaconExpectations, minimumPresence: Double) {
        self.expectations = expectations
        self.minimumPresence = minimumPresence
        expectation = BeaconExpectations.Expectation(beaconCount: expectations.beacons.count)
    }

    /// The evidence of `sample` (cleaned: one reading per beacon, none impossible) located at (`x`, `y`) on
    /// `floor`; nil when the floor has no spot. `excluding` leaves a spot out of the expectations (a survey
    /// checked against itself).
    public mutating func evidence(
        of sample: Sample, x: Double, y: Double, floor: Int, device: UInt64, excluding: Int? = nil
    ) -> LocatedSample? {
        guard expectations.expect(atX: x, y: y, floor: floor, excluding: excluding, into: &expectation) else { return nil }
        // The sample's gain: the median of level differences over the expected beacons it heard. Each
        // beacon's own residual uses the median of the others', so a beacon that changed does not pull its
        // own reference.
        differences.removeAll(keepingCapacity: true)
        var heardKnown: [(beacon: Int, rssi: Double)] = []
        var unknown: [UnknownReading] = []
        for reading in sample.readings {
            guard let beacon = expectations.index(of: reading.beacon) else {
                unknown.append(UnknownReading(beacon: reading.beacon, level: Float(reading.rssi), corrected: false))
                continue
            }
            heardKnown.append((beacon, reading.rssi))
            if expectation.presence(of: beacon) >= minimumPresence, let level = expectation.level(of: beacon) {
                differences.append((beacon, reading.rssi - level))
            }
        }
        sorted.removeAll(keepingCapacity: true)
        sorted.append(contentsOf: differences.map(\.difference))
        sorted.sort()
        let gain = Self.median(of: sorted, without: nil)
        var observations: [BeaconObservation] = []
        observations.reserveCapacity(expectation.beacons.count + heardKnown.count)
        for beacon in expectation.beacons {
            let presence = expectation.presence(of: beacon)
            guard presence >= minimumPresence else { continue }
            guard let heard = heardKnown.first(where: { $0.beacon == beacon }) else {
                observations.append(BeaconObservation(
                    beacon: Int32(beacon), presence: Float(presence), heard: false, level: .nan, residual: .nan,
                    expected: Float(expectation.level(of: beacon) ?? .nan)))
                continue
            }
            let expected = expectation.level(of: beacon) ?? .nan
            let own = heard.rssi - expected
            // Two others at least: one other beacon's difference is a gain too noisy to judge this one by.
            let others = sorted.count >= 3 ? Self.median(of: sorted, without: own) : nil
            let level = others.map { Float(heard.rssi - $0) } ?? .nan
            observations.append(BeaconObservation(
                beacon: Int32(beacon), presence: Float(presence), heard: true, level: level, residual: others.map { Float(own - $0) } ?? .nan,
                expected: Float(expected)))
        }
        // Known beacons heard where the survey hardly expects them: no presence evidence, but where a beacon
        // is heard matters for swaps.
        for heard in heardKnown where expectation.presence(of: heard.beacon) < minimumPresence {
            observations.append(BeaconObservation(
                beacon: Int32(heard.beacon), presence: Float(expectation.presence(of: heard.beacon)), heard: true,
                level: gain.map { Float(heard.rssi - $0) } ?? .nan, residual: .nan,
                expected: Float(expectation.level(of: heard.beacon) ?? .nan)))
        }
        if let gain {
            for index in unknown.indices {
                unknown[index].level -= Float(gain)
                unknown[index].corrected = true
            }
        }
        return LocatedSample(
            time: sample.time, x: Float(x), y: Float(y), floor: Int32(floor), place: Int32(expectation.place), device: device,
            gain: gain.map(Float.init) ?? .nan, observations: observations, unknown: unknown)
    }

    /// The median of ascending `sorted` with one element equal to `removed` left out (none when nil); nil
    /// when fewer than two remain.
    static func median(of sorted: [Double], without removed: Double?) -> Double? {
        let skip = removed.flatMap { value in sorted.firstIndex(of: value) }
        let count = sorted.count - (skip == nil ? 0 : 1)
        guard count >= 2 else { return nil }
        func element(_ index: Int) -> Double {
            guard let skip else { return sorted[index] }
            return index < skip ? sorted[index] : sorted[index + 1]
        }
        return count % 2 == 1 ? element(count / 2) : (element(count / 2 - 1) + element(count / 2)) / 2
    }
}
