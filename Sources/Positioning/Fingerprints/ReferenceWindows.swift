/// A stored survey fingerprint with where it came from: what cross-validation and the reference
/// windows need beyond the fingerprint itself.
public struct SurveyedFingerprint: Sendable {
    /// Index into the survey's spots.
    public var spot: Int
    /// Consecutive fingerprints of one device at one spot in one recording session share a run: only
    /// fingerprints of one run are merged into a reference window.
    public var run: Int
    /// The device that recorded it: live phones are never the survey phone, so cross-validation can
    /// leave a whole device out.
    public var device: String
    /// Seconds since the Unix epoch of its first sample.
    public var time: Double
    public var fingerprint: Fingerprint

    public init(spot: Int, run: Int, device: String, time: Double, fingerprint: Fingerprint) {
        self.spot = spot
        self.run = run
        self.device = device
        self.time = time
        self.fingerprint = fingerprint
    }
}

/// How many stored survey fingerprints make one reference fingerprint of the radio map.
///
/// `survey record` stores short windows (one sample each by default), so the window that matches best can
/// be chosen afterwards, per venue, without recording again: a noisy single-phone survey wants long
/// windows, a dense robot survey short ones.
public enum ReferenceWindow: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Up to this many consecutive stored fingerprints of one run are merged (1 keeps them as stored).
    case fingerprints(Int)
    /// A whole run (one device at one spot in one session) is merged into one reference.
    case wholeRun

    public var description: String {
        switch self {
        case .fingerprints(let count): "\(count)"
        case .wholeRun: "run"
        }
    }

    /// Merges consecutive fingerprints of each run of `survey` into reference fingerprints, with relative
    /// powers recomputed by `scale`: one per range of ``ranges(of:)``, in order.
    public func references(
        of survey: [SurveyedFingerprint], scale: any RelativePowerScale
    ) -> [(spot: Int, fingerprint: Fingerprint)] {
        if case .fingerprints(let count) = self, count <= 1 { return survey.map { ($0.spot, $0.fingerprint) } }
        return ranges(of: survey).map { range in
            (survey[range.lowerBound].spot, Fingerprint.merging(survey[range].map(\.fingerprint), scale: scale))
        }
    }

    /// The indices of `survey` each reference merges: consecutive fingerprints of one run, at most the
    /// window's count of them, never crossing runs.
    public func ranges(of survey: [SurveyedFingerprint]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        while start < survey.count {
            var end = start + 1
            let limit: Int = switch self {
            case .fingerprints(let count): start + count
            case .wholeRun: survey.count
            }
            while end < min(limit, survey.count), survey[end].run == survey[start].run { end += 1 }
            ranges.append(start..<end)
            start = end
        }
        return ranges
    }
}

extension Fingerprint {
    /// One fingerprint summarising `parts` (windows of the same device at the same place) as if their
    /// samples had been one window: per beacon the reading-weighted mean RSSI, the pooled dispersion and the
    /// share of all samples that heard it; relative powers recomputed with `scale`.
    public static func merging(_ parts: [Fingerprint], scale: any RelativePowerScale) -> Fingerprint {
        guard parts.count > 1 else { return parts.first ?? Fingerprint(entries: [:], sampleCount: 0) }
        let samples = parts.reduce(0) { $0 + $1.sampleCount }
        // Per beacon: readings, mean and sum of squared deviations (Chan et al.'s pairwise combination).
        var moments: [BeaconID: (count: Double, mean: Double, m2: Double)] = [:]
        for part in parts {
            for (beacon, entry) in part.entries {
                let count = (entry.visibility * Double(part.sampleCount)).rounded()
                guard count > 0 else { continue }
                let m2 = entry.dispersion * entry.dispersion * count
                guard let known = moments[beacon] else {
                    moments[beacon] = (count, entry.meanRSSI, m2)
                    continue
                }
                let total = known.count + count
                let delta = entry.meanRSSI - known.mean
                moments[beacon] = (
                    total, known.mean + delta * count / total, known.m2 + m2 + delta * delta * known.count * count / total)
            }
        }
        guard let strongest = moments.values.map(\.mean).max() else { return Fingerprint(entries: [:], sampleCount: samples) }
        var entries: [BeaconID: FingerprintEntry] = [:]
        entries.reserveCapacity(moments.count)
        for (beacon, moment) in moments {
            entries[beacon] = FingerprintEntry(
                relativePower: scale.relativePower(rssi: moment.mean, strongest: strongest), meanRSSI: moment.mean,
                dispersion: (moment.m2 / moment.count).squareRoot(), visibility: moment.count / Double(samples))
        }
        return Fingerprint(entries: entries, sampleCount: samples)
    }
}
