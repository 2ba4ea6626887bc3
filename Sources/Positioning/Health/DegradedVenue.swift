/// How matching treats the beacons the monitor found silent.
public enum SilentMatching: String, Hashable, Sendable, Codable {
    /// As surveyed: a reference that hears a silent beacon is charged for the scan's not hearing it, as for
    /// any beacon heard on one side only.
    case chargedAbsent = "charged_absent"
    /// Matched on the other beacons only, as if the silent ones had never been surveyed (a radio map built
    /// without them; the stored survey is not touched).
    case ignored
}

/// What a venue with silent beacons does about them, decided from its own survey: leave-one-spot-out
/// cross-validation with the silent beacons taken out of every query (they are dead: no live scan hears
/// them), once charging them as absent and once ignoring them (``SilentMatching``). Ignoring them needs a
/// map of its own, so it is taken only where it is better by more than twice the standard error of the
/// paired differences: a difference the survey cannot tell from noise keeps the survey's map. The radius widens by how much the chosen
/// matching's errors grow against its radii: the ratio of the 68th percentiles of error / radius, degraded
/// over intact, at least 1, so a degraded venue's `accuracy_m` still holds the truth as often as it did.
public struct DegradedVenue: Hashable, Sendable, Codable {
    public var silent: [BeaconID]
    public var matching: SilentMatching
    public var radiusFactor: Double
    /// Leave-one-spot-out mean errors (metres) of the intact survey, and with the silent beacons gone,
    /// charged and ignored; nil where nothing was located.
    public var intactError: Double?
    public var chargedError: Double?
    public var ignoredError: Double?
    /// Survey scans cross-validated.
    public var queries: Int

    /// A venue with no silent beacon.
    public static let intact = DegradedVenue(
        silent: [], matching: .chargedAbsent, radiusFactor: 1, intactError: nil, chargedError: nil, ignoredError: nil, queries: 0)

    /// The radio map of `survey` without `silent` (the ``SilentMatching/ignored`` map).
    public static func map(
        spots: [Spot], survey: [SurveyedFingerprint], configuration: PositioningConfiguration, without silent: Set<BeaconID>,
        zoneAreas: [ZoneArea] = []
    ) throws(RadioMapError) -> RadioMap {
        try RadioMap(
            spots: spots, fingerprints: references(of: survey, configuration: configuration, without: silent),
            representation: configuration.locator.metric.representation, zoneAreas: zoneAreas)
    }

    static func references(
        of survey: [SurveyedFingerprint], configuration: PositioningConfiguration, without silent: Set<BeaconID>
    ) -> [(spot: Int, fingerprint: Fingerprint)] {
        let all = configuration.referenceWindow.references(of: survey, scale: configuration.builder.scale)
        guard !silent.isEmpty else { return all }
        return all.compactMap { reference in
            let kept = reference.fingerprint.without(silent, scale: configuration.builder.scale)
            return kept.entries.isEmpty ? nil : (reference.spot, kept)
        }
    }

    /// Assesses `silent` on `survey` under `configuration` (see the type's comment), on at most
    /// `maximumQueries` survey scans spread evenly.
    public static func assess(
        spots: [Spot], survey: [SurveyedFingerprint], configuration: PositioningConfiguration, silent: Set<BeaconID>,
        maximumQueries: Int = 1000
    ) throws(RadioMapError) -> DegradedVenue {
        guard !silent.isEmpty else { return .intact }
        let representation = configuration.locator.metric.representation
        let full = try RadioMap(
            spots: spots, fingerprints: references(of: survey, configuration: configuration, without: []), representation: representation)
        let without = try RadioMap(
            spots: spots, fingerprints: references(of: survey, configuration: configuration, without: silent), representation: representation)
        let stride = max(1, (survey.count + maximumQueries - 1) / max(1, maximumQueries))
        var intact: [(error: Double, ratio: Double)] = []
        var charged = intact, ignored = intact
        var differences: [Double] = []
        var queries = 0
        for index in Swift.stride(from: 0, to: survey.count, by: stride) {
            let surveyed = survey[index]
            let dead = surveyed.fingerprint.without(silent, scale: configuration.builder.scale)
            guard !dead.entries.isEmpty else { continue }
            queries += 1
            let truth = spots[surveyed.spot]
            var pair: [Double?] = []
            for (fingerprint, map, errors) in [
                (surveyed.fingerprint, full, 0), (dead, full, 1), (dead, without, 2),
            ] {
                guard let answer = spotOut(fingerprint, spot: surveyed.spot, in: map, locator: configuration.locator) else {
                    pair.append(nil)
                    continue
                }
                let error = truth.planarDistance(toX: answer.x, y: answer.y)
                let measured = (error, error / max(answer.accuracy, 1e-6))
                pair.append(error)
                switch errors {
                case 0: intact.append(measured)
                case 1: charged.append(measured)
                default: ignored.append(measured)
                }
            }
            if let chargedError = pair[1], let ignoredError = pair[2] { differences.append(chargedError - ignoredError) }
        }
        func mean(_ values: [(error: Double, ratio: Double)]) -> Double? {
            values.isEmpty ? nil : values.reduce(0) { $0 + $1.error } / Double(values.count)
        }
        func q68(_ values: [(error: Double, ratio: Double)]) -> Double? {
            values.isEmpty ? nil : ErrorStatistics.percentile(68, of: values.map(\.ratio).sorted())
        }
        let chargedMean = mean(charged), ignoredMean = mean(ignored)
        let gain = ErrorStatistics(errors: differences)
        let matching: SilentMatching = if let gain, gain.mean > 2 * gain.standardError, gain.mean > 0 { .ignored } else { .chargedAbsent }
        let chosen = matching == .ignored ? ignored : charged
        var factor = 1.0
        if let degraded = q68(chosen), let base = q68(intact), base > 0 { factor = max(1, degraded / base) }
        return DegradedVenue(
            silent: silent.sorted(), matching: matching, radiusFactor: factor, intactError: mean(intact), chargedError: chargedMean,
            ignoredError: ignoredMean, queries: queries)
    }

    /// `fingerprint` located in `map` with `spot`'s references left out.
    private static func spotOut(_ fingerprint: Fingerprint, spot: Int, in map: RadioMap, locator: Locator) -> Position? {
        let query = map.query(for: fingerprint)
        guard query.presentCount > 0 else { return nil }
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: max(1, map.count)) { buffer in
            let distances = UnsafeMutableBufferPointer(rebasing: buffer[..<map.count])
            locator.metric.distances(from: query, in: map, into: distances)
            for row in map.spotRanges[spot] { distances[row] = .infinity }
            guard case .located(let position) = locator.locate(rowDistances: UnsafeBufferPointer(distances), query: query, in: map).outcome
            else { return nil }
            return position
        }
    }
}

extension Fingerprint {
    /// The fingerprint without `beacons`, relative powers recomputed among the others with `scale`.
    func without(_ beacons: Set<BeaconID>, scale: any RelativePowerScale) -> Fingerprint {
        guard entries.keys.contains(where: beacons.contains) else { return self }
        var copy = self
        for beacon in beacons { copy.entries.removeValue(forKey: beacon) }
        return copy.rescaled(with: scale)
    }
}

extension Position {
    /// The position with its radius (and covariance) widened by `factor`.
    public func widened(by factor: Double) -> Position {
        guard factor != 1 else { return self }
        var copy = self
        copy.accuracy *= factor
        copy.covariance = covariance?.scaled(toRadius: copy.accuracy)
        return copy
    }
}
