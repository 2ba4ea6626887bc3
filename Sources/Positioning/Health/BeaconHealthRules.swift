import Foundation

/// A beacon's health as judged from live traffic (``BeaconHealthMonitor``).
public enum BeaconState: String, Hashable, Sendable, Codable, CaseIterable {
    /// Not yet heard where expected at enough places to say.
    case insufficientEvidence = "insufficient_evidence"
    /// Heard where the survey expects it, at the level it expects.
    case healthy
    /// Not heard where the survey expects it, over enough samples from enough places.
    case silent
    /// Heard, but consistently louder or quieter than the survey, by an estimated offset.
    case shifted
    /// An id heard often that the venue's survey does not have.
    case unknownBeacon = "unknown_beacon"
}

/// The thresholds of ``BeaconHealthMonitor``, each from probability, physics or the survey's own
/// variability (``BeaconHealthCalibration``), never from a test walk.
///
/// **Silent.** Each sample located where the survey expects the beacon in a share `p` of samples is a
/// test of "dead" (heard only by mistake, in a share ``mistakenReading``) against "healthy" (heard in a share
/// `p`): a miss adds `ln((1 − ε) / (1 − p))` to a CUSUM statistic, a reading subtracts `ln(p / ε)`, and the
/// statistic never falls below 0 (Page's CUSUM, the quickest detector of a change at an unknown time). The
/// beacon is silent when the statistic reaches ``silentThreshold`` with misses at ``minimumPlaces``
/// distinct places at least, no place giving more than a ``minimumPlaces``-th of the threshold (a visitor
/// standing with the phone in a pocket by one beacon is one place, however long). It is healthy again when a
/// second statistic, the same evidence the other way round, reaches the same threshold.
///
/// **Shifted.** Each reading of a beacon where the survey expects it gives a residual: its level less the
/// sample's gain (the median of the other expected beacons' differences, which cancels the phone's and the
/// body's common attenuation) less the expected level, less the beacon's level at that place as live traffic
/// has heard it (``PlaceLevels``: the survey can be off right by a beacon from the first day, and that is no
/// change). Two one-sided CUSUMs of the residual, each with slack half of ``shiftStep``, detect a change of
/// at least that size either way; at ``levelThreshold`` the offset is the median residual since the
/// statistic last left 0 (the estimated change point).
public struct BeaconHealthRules: Hashable, Sendable, Codable {
    /// Below this expected share of samples a place says nothing about a beacon's presence.
    public var minimumPresence: Double
    /// The share of samples in which a dead beacon's id is heard anyway (a reading mistaken for it): the
    /// dead hypothesis's presence, kept far under ``minimumPresence``.
    public var mistakenReading: Double
    /// The silent statistic's threshold, nats.
    public var silentThreshold: Double
    /// Distinct places (nearest spots) the misses must come from; each gives at most this share of the
    /// threshold.
    public var minimumPlaces: Int
    /// One step of a beacon's transmit power setting (iBeacon firmwares step by 4 dB), about the spread of
    /// one reading: what the level statistics count residuals beyond (``levelSlack``), and the precision an
    /// offset must be known to before matching corrects by it (half a step).
    public var shiftStep: Double
    /// The smallest offset worth the `shifted` state, dB: two steps. A visitor's body between phone and
    /// beacon takes 5 to 10 dB, and visitors facing one way in a room hold that for minutes at several
    /// places; a one-step offset cannot be told from it (a simulated day of the demo hall, 6 dB of body loss,
    /// named four healthy beacons shifted by 5 to 6 dB with one step as the bar).
    public var minimumShift: Double
    /// The level statistics' threshold, dB.
    public var levelThreshold: Double
    /// What each residual must exceed to count towards a shift, dB: one ``shiftStep``, so the statistics
    /// detect a change of two steps at their quickest and ignore the lasting differences of a step or less
    /// that interpolating the survey between spots leaves (measured on the surveys' own replays).
    public var levelSlack: Double
    /// The largest spread (dB, 1.4826 · MAD) of a change's per-visit mean residuals for it to be a shift: a
    /// change of the beacon's power shows alike at every place; one that differs by place more than a single
    /// reading does about its spot (the survey replay's residual spread) is not a shift (a swap, a move) and
    /// is not corrected.
    public var maximumVisitSpread: Double
    /// Residuals are clipped to ± this, dB, so that one reflection or one mislocated sample moves the
    /// level statistics by a bounded amount.
    public var residualClip: Double
    /// Samples an unknown id must be heard in, at ``minimumPlaces`` places, to be reported.
    public var unknownSamples: Int
    /// The largest spread (dB, 1.4826 · MAD) of a proposal's differences: what
    /// ``ReplacementCalibration`` accepts of a calibration walk.
    public var maximumSpread: Double
    /// Heard observations kept per beacon for offsets, swaps and replacements.
    public var recentCapacity: Int
    /// Unknown ids followed at once; the least heard is dropped for a new one.
    public var unknownCapacity: Int
    /// How the survey's own replay set the thresholds, when it did.
    public var calibration: Calibration?

    /// What the survey's replay against itself measured (``BeaconHealthCalibration``).
    public struct Calibration: Hashable, Sendable, Codable {
        /// Survey samples replayed.
        public var samples: Int
        /// The largest silent statistic any beacon reached, nats.
        public var largestSilentExcursion: Double
        /// The largest level statistic any beacon reached, dB.
        public var largestLevelExcursion: Double
        /// The residuals' spread over every beacon, dB (1.4826 · MAD).
        public var residualSpread: Double

        public init(samples: Int, largestSilentExcursion: Double, largestLevelExcursion: Double, residualSpread: Double) {
            self.samples = samples
            self.largestSilentExcursion = largestSilentExcursion
            self.largestLevelExcursion = largestLevelExcursion
            self.residualSpread = residualSpread
        }
    }

    /// How many readings the venue's level of a beacon weighs against a place's own (``PlaceLevels``): a
    /// reading's spread over a step, squared (with the spread of one reading about its spot and a place's
    /// survey error of one step, the place's own mean is as good as the venue's after this many readings).
    public var placePrior: Double {
        let spread = calibration?.residualSpread ?? maximumVisitSpread
        return max(1, (spread / shiftStep) * (spread / shiftStep))
    }

    /// Whether an offset estimated at `value` ± `error` dB is a change of the beacon's power: credibly more
    /// than one power step (two standard errors), as visitors' bodies at a few places are not; to name the
    /// state the estimate must also reach ``minimumShift``, and the state lasts until the offset is
    /// credibly under it.
    public func isShift(_ value: Double, error: Double, naming: Bool) -> Bool {
        let magnitude = abs(value)
        guard magnitude - 2 * error >= shiftStep else { return false }
        return naming ? magnitude >= minimumShift : magnitude + 2 * error >= minimumShift
    }

    public init(
        minimumPresence: Double = 0.1, mistakenReading: Double = 0.01, silentThreshold: Double = 9.2, minimumPlaces: Int = 3,
        shiftStep: Double = 4, minimumShift: Double = 8, levelThreshold: Double = 40, levelSlack: Double = 4, maximumVisitSpread: Double = 6, residualClip: Double = 20, unknownSamples: Int = 20,
        maximumSpread: Double = 4, recentCapacity: Int = 32, unknownCapacity: Int = 64, calibration: Calibration? = nil
    ) {
        self.minimumPresence = minimumPresence
        self.mistakenReading = mistakenReading
        self.silentThreshold = silentThreshold
        self.minimumPlaces = max(1, minimumPlaces)
        self.shiftStep = shiftStep
        self.minimumShift = minimumShift
        self.levelThreshold = levelThreshold
        self.levelSlack = levelSlack
        self.maximumVisitSpread = maximumVisitSpread
        self.residualClip = residualClip
        self.unknownSamples = max(1, unknownSamples)
        self.maximumSpread = maximumSpread
        self.recentCapacity = max(4, recentCapacity)
        self.unknownCapacity = max(1, unknownCapacity)
        self.calibration = calibration
    }

    /// The silent statistic's step for one observation.
    @inline(__always)
    func silentEvidence(presence: Double, heard: Bool) -> Double {
        let p = max(presence, mistakenReading * 2)
        return heard ? log(mistakenReading / p) : log((1 - mistakenReading) / (1 - p))
    }
}
