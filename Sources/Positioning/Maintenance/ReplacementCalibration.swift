/// Estimates how a replacement beacon's signal differs from the failed beacon it replaces, from a short
/// calibration walk, so the old beacon's survey entries can be reused with an offset instead of
/// resurveying the venue.
///
/// At every calibration spot the evidence is a difference of differences, in dB:
///
///     d = (new − level_calibration) − (old − level_survey)
///
/// where `level` is the mean RSSI of the other beacons heard both in the survey and in the calibration at
/// that spot. Measuring each beacon against the others cancels the gain of the phone and the day, so the
/// calibration can be walked with any phone. The offset is the median of `d` over the spots (robust to one
/// odd spot); its spread is the scaled median absolute deviation (1.4826 · MAD, a standard deviation for
/// normal data).
///
/// Spots where only one of the two beacons was heard count too, as censored evidence: the silent beacon
/// is taken to be just below the weakest beacon heard there (`detectionMargin` dB under it). A new beacon
/// that is silent where the old one was loud pulls the offset down, as it should.
public struct ReplacementCalibration: Sendable, Hashable {
    /// Fewer spots with evidence than this is too thin to trust.
    public var minimumSpots: Int
    /// A spread above this (dB) is too inconsistent to trust.
    public var maximumSpread: Double
    /// How far below the weakest beacon heard a silent beacon is assumed to be, dB.
    public var detectionMargin: Double
    /// Common beacons needed at a spot to measure the level against.
    public var minimumCommonBeacons: Int

    public init(minimumSpots: Int = 3, maximumSpread: Double = 4, detectionMargin: Double = 3, minimumCommonBeacons: Int = 2) {
        self.minimumSpots = max(1, minimumSpots)
        self.maximumSpread = maximumSpread
        self.detectionMargin = detectionMargin
        self.minimumCommonBeacons = max(1, minimumCommonBeacons)
    }

    /// The evidence of one calibration spot.
    public struct SpotEvidence: Hashable, Sendable, Codable {
        public enum Kind: String, Hashable, Sendable, Codable {
            /// Both beacons heard.
            case measured
            /// The new beacon was not heard in the calibration; its level is an upper bound.
            case newBeaconSilent = "new_beacon_silent"
            /// The old beacon was not heard in the survey; the new one's difference is a lower bound.
            case oldBeaconSilent = "old_beacon_silent"
        }

        public var spot: String
        public var kind: Kind
        /// `d` in dB.
        public var difference: Double
        /// Beacons the level was measured against.
        public var commonBeacons: Int
    }

    /// The estimated offset and how far it can be trusted.
    public struct Estimate: Hashable, Sendable, Codable {
        /// dB to add to the old beacon's mean RSSI to predict the new beacon's.
        public var offset: Double
        /// Scaled median absolute deviation of the spot differences, dB.
        public var spread: Double
        public var evidence: [SpotEvidence]
        /// Calibration spots that gave no evidence (neither beacon heard, or too few common beacons).
        public var spotsWithoutEvidence: [String]
        /// Why the estimate should not be trusted; empty when it can.
        public var problems: [String]

        public var isTrustworthy: Bool { problems.isEmpty }
    }

    /// Estimates the offset of `new` against `old`.
    ///
    /// - Parameters:
    ///   - survey: the venue's stored fingerprints at each calibration spot, by spot name.
    ///   - calibration: a fingerprint of the calibration walk at each of its spots, by spot name.
    public func estimate(
        old: BeaconID, new: BeaconID, survey: [String: [Fingerprint]], calibration: [String: Fingerprint]
    ) -> Estimate {
        var evidence: [SpotEvidence] = []
        var without: [String] = []
        for (spot, walked) in calibration.sorted(by: { $0.key < $1.key }) {
            guard let stored = survey[spot], !stored.isEmpty,
                let measured = spotEvidence(spot: spot, old: old, new: new, survey: stored, calibration: walked)
            else {
                without.append(spot)
                continue
            }
            evidence.append(measured)
        }
        let differences = evidence.map(\.difference)
        let offset = Self.median(differences) ?? 0
        let spread = 1.4826 * (Self.median(differences.map { abs($0 - offset) }) ?? 0)
        var problems: [String] = []
        if evidence.count < minimumSpots {
            problems.append("only \(evidence.count) calibration spot\(evidence.count == 1 ? "" : "s") gave evidence; at least \(minimumSpots) are needed")
        }
        if spread > maximumSpread {
            problems.append("the spots disagree: spread \(Self.rounded(spread)) dB is above \(Self.rounded(maximumSpread)) dB")
        }
        if evidence.allSatisfy({ $0.kind == .newBeaconSilent }), !evidence.isEmpty {
            problems.append("the new beacon was not heard at any calibration spot: is it switched on?")
        }
        return Estimate(offset: offset, spread: spread, evidence: evidence, spotsWithoutEvidence: without, problems: problems)
    }

    private func spotEvidence(spot: String, old: BeaconID, new: BeaconID, survey: [Fingerprint], calibration: Fingerprint) -> SpotEvidence? {
        // The survey side: mean RSSI per beacon over the spot's fingerprints.
        var sums: [BeaconID: (total: Double, count: Int)] = [:]
        for fingerprint in survey {
            for (beacon, entry) in fingerprint.entries {
                sums[beacon, default: (0, 0)].total += entry.meanRSSI
                sums[beacon, default: (0, 0)].count += 1
            }
        }
        let surveyed = sums.mapValues { $0.total / Double($0.count) }
        let walked = calibration.entries.mapValues(\.meanRSSI)
        let common = Set(surveyed.keys).intersection(walked.keys).subtracting([old, new])
        guard common.count >= minimumCommonBeacons else { return nil }
        let surveyLevel = common.map { surveyed[$0]! }.reduce(0, +) / Double(common.count)
        let calibrationLevel = common.map { walked[$0]! }.reduce(0, +) / Double(common.count)

        let oldValue = surveyed[old], newValue = walked[new]
        let kind: SpotEvidence.Kind
        let difference: Double
        switch (oldValue, newValue) {
        case (let oldRSSI?, let newRSSI?):
            kind = .measured
            difference = (newRSSI - calibrationLevel) - (oldRSSI - surveyLevel)
        case (let oldRSSI?, nil):
            kind = .newBeaconSilent
            let silent = (walked.values.min() ?? calibrationLevel) - detectionMargin
            difference = (silent - calibrationLevel) - (oldRSSI - surveyLevel)
        case (nil, let newRSSI?):
            kind = .oldBeaconSilent
            let silent = (surveyed.values.min() ?? surveyLevel) - detectionMargin
            difference = (newRSSI - calibrationLevel) - (silent - surveyLevel)
        case (nil, nil):
            return nil
        }
        return SpotEvidence(spot: spot, kind: kind, difference: difference, commonBeacons: common.count)
    }

    /// The median, as every figure of beaconfix computes it (``ErrorStatistics/percentile(_:of:)``).
    static func median(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : ErrorStatistics.percentile(50, of: values.sorted())
    }

    static func rounded(_ value: Double) -> String { String(Double((value * 10).rounded()) / 10) }
}
