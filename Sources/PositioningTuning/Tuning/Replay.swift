public import Positioning

extension SurveyCrossValidation {
    /// Replays runs of the survey through the tracker's merging and smoothing, leave-one-spot-out, for
    /// every tracker window and smoothing gain: the survey walk stands in for a live walk (it stops at
    /// spots and moves between them, as real walks do).
    ///
    /// Blocks of `blockLength` consecutive fingerprints of one device, spread evenly over the survey, are
    /// replayed as separate walks so that a large survey costs at most `maximumQueries` locates per window.
    ///
    /// The answers' radii and covariances are scaled by `accuracyScale` (the venue's calibration), as live
    /// answers are, so that a Kalman gain (``SmootherGain/covariance(processNoise:measurementScale:)``) weighs
    /// them as it will live. Each score also calibrates the tracker's radius: the scale under which the
    /// smoothed radii divided by `accuracyScale` (so uncalibrated, for a fixed gain) hold 68% of the replayed
    /// truths.
    public func replayScores(
        of candidate: MapCandidate, estimator: EstimatorChoice, windows: [Double], smoothings: [TrackerSmoothing],
        resolution: Double = 0, accuracyScale: Double = 1, blockLength: Int = 60, maximumQueries: Int = 3000
    ) throws(RadioMapError) -> [TrackerScore] {
        let map = try map(of: candidate).map
        let metric = candidate.metric.make()
        let locator = Locator(
            metric: metric, aggregation: estimator.spotBest <= 1 ? .best : .meanOfBest(estimator.spotBest),
            neighbours: estimator.neighbours,
            estimator: estimator.estimator(resolution: resolution, accuracyScale: accuracyScale))
        let blockCount = max(1, min(survey.count / max(1, blockLength), maximumQueries / max(1, blockLength)))
        let spacing = max(blockLength, survey.count / blockCount)
        var blocks: [Range<Int>] = []
        var start = 0
        while start < survey.count, blocks.count < blockCount {
            var end = start + 1
            while end < min(start + blockLength, survey.count), survey[end].device == survey[start].device { end += 1 }
            blocks.append(start..<end)
            start += spacing
        }
        var errors = [[Double]](repeating: [], count: windows.count * smoothings.count)
        var ratios = [[Double]](repeating: [], count: windows.count * smoothings.count)
        var rowDistance = [Float](repeating: .infinity, count: map.count)
        for (windowIndex, window) in windows.enumerated() {
            for block in blocks {
                // The raw answer for each sample of the block, from the samples of the last `window` seconds.
                var measured: [(time: Double, position: Position?)] = []
                for index in block {
                    let now = survey[index].time
                    var first = index
                    while first > block.lowerBound, now - survey[first - 1].time <= window, survey[first - 1].time <= now { first -= 1 }
                    let parts = (first...index).map { survey[$0].fingerprint }
                    let vector = map.query(for: Fingerprint.merging(parts, scale: scale))
                    guard vector.presentCount > 0 else {
                        measured.append((now, nil))
                        continue
                    }
                    rowDistance.withUnsafeMutableBufferPointer { metric.distances(from: vector, in: map, into: $0) }
                    for spot in Set((first...index).map { survey[$0].spot }) {
                        for row in map.spotRanges[spot] { rowDistance[row] = .infinity }
                    }
                    let result = rowDistance.withUnsafeBufferPointer { locator.locate(rowDistances: $0, query: vector, in: map) }
                    measured.append((now, result.position))
                }
                for (smoothingIndex, smoothing) in smoothings.enumerated() {
                    var smoother = AlphaBetaSmoother(alpha: smoothing.alpha, gain: smoothing.gain)
                    var last: Position?
                    for (offset, index) in block.enumerated() {
                        if let position = measured[offset].position { last = smoother.smooth(position, at: measured[offset].time) }
                        guard let last else { continue }
                        let error = spots[survey[index].spot].planarDistance(toX: last.x, y: last.y)
                        errors[windowIndex * smoothings.count + smoothingIndex].append(error)
                        // Against the radius before calibration, as the single-scan scale is.
                        if last.accuracy > 0 { ratios[windowIndex * smoothings.count + smoothingIndex].append(error * accuracyScale / last.accuracy) }
                    }
                }
            }
        }
        return windows.indices.flatMap { windowIndex in
            smoothings.indices.map { smoothingIndex in
                let setting = windowIndex * smoothings.count + smoothingIndex
                let sorted = ratios[setting].sorted()
                return TrackerScore(
                    window: windows[windowIndex], alpha: smoothings[smoothingIndex].alpha,
                    gain: smoothings[smoothingIndex].gain == .fixed ? nil : smoothings[smoothingIndex].gain, errors: ErrorStatistics(errors: errors[setting]),
                    accuracyScale: sorted.isEmpty ? nil : max(0.1, ErrorStatistics.percentile(68, of: sorted)))
            }
        }
    }
}

/// One way of smoothing a tracked phone's answers: a fixed gain, or a Kalman gain from their covariance.
public struct TrackerSmoothing: Hashable, Sendable, Codable {
    /// The fixed gain, or with a covariance gain only the fallback for a degenerate covariance.
    public var alpha: Double
    public var gain: SmootherGain

    public init(alpha: Double, gain: SmootherGain) {
        self.alpha = alpha
        self.gain = gain
    }
}

/// Cross-validation figures of one tracker setting.
public struct TrackerScore: Hashable, Sendable, Codable {
    /// Seconds of samples merged.
    public var window: Double
    /// Smoothing gain (1: none); with a covariance ``gain``, only the fallback for a degenerate covariance.
    public var alpha: Double
    /// The covariance gain; nil: the fixed gain ``alpha``.
    public var gain: SmootherGain?
    public var errors: ErrorStatistics?
    /// The scale under which the tracker's radii held 68% of the replayed truths; nil in older tunings.
    public var accuracyScale: Double?
}

