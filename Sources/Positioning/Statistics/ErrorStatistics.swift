/// Summary of positioning errors in metres (or the venue's units).
public struct ErrorStatistics: Hashable, Sendable, Codable {
    public var count: Int
    public var mean: Double
    public var median: Double
    public var p75: Double
    public var p90: Double
    public var max: Double
    /// Standard error of the mean (sample standard deviation / sqrt(count); 0 for one error): how far
    /// apart two means must be to differ by more than noise.
    public var standardError: Double

    /// Statistics of `errors`; nil when there are none. Percentiles interpolate linearly between
    /// order statistics (NumPy's default), so figures compare with the usual tools.
    public init?(errors: [Double]) {
        guard !errors.isEmpty else { return nil }
        let sorted = errors.sorted()
        count = sorted.count
        mean = sorted.reduce(0, +) / Double(sorted.count)
        median = Self.percentile(50, of: sorted)
        p75 = Self.percentile(75, of: sorted)
        p90 = Self.percentile(90, of: sorted)
        max = sorted.last!
        let mean = mean
        let variance = sorted.count > 1 ? sorted.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(sorted.count - 1) : 0
        standardError = (variance / Double(sorted.count)).squareRoot()
    }

    /// The `p`-th percentile of ascending `sorted`, linear interpolation.
    public static func percentile(_ p: Double, of sorted: [Double]) -> Double {
        let rank = p / 100 * Double(sorted.count - 1)
        let lower = Int(rank.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (rank - Double(lower))
    }
}
