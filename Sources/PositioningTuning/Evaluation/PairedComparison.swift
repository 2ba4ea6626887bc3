public import Positioning

/// The matcher against a baseline on the same queries: figures over the queries both answered, and how
/// many only one side answered, so that an `unknown` can never flatter either side.
public struct PairedComparison: Hashable, Sendable, Codable {
    /// Matcher / baseline, per figure: below 1 means the matcher is better.
    public struct Ratio: Hashable, Sendable, Codable {
        public var mean: Double
        public var median: Double
        public var p90: Double
    }

    /// Queries both sides were asked.
    public var queries: Int
    /// Queries both located: the ground of ``matcher``, ``baseline`` and ``ratio``.
    public var bothLocated: Int
    /// Queries only the matcher located (the baseline answered `unknown`).
    public var onlyMatcherLocated: Int
    /// Queries only the baseline located (the matcher answered `unknown`).
    public var onlyBaselineLocated: Int
    /// Queries neither located.
    public var neitherLocated: Int
    /// The matcher's errors on the queries both located.
    public var matcher: ErrorStatistics?
    /// The baseline's errors on the queries both located.
    public var baseline: ErrorStatistics?
    public var ratio: Ratio?

    /// Pairs `matcher` and `baseline`, the errors of the same queries in the same order (nil: unknown).
    public init(matcher: [Double?], baseline: [Double?]) {
        precondition(matcher.count == baseline.count, "a paired comparison needs the same queries on both sides")
        queries = matcher.count
        var ours: [Double] = [], theirs: [Double] = []
        var onlyMatcher = 0, onlyBaseline = 0, neither = 0
        for (mine, other) in zip(matcher, baseline) {
            switch (mine, other) {
            case (let mine?, let other?):
                ours.append(mine)
                theirs.append(other)
            case (.some, nil): onlyMatcher += 1
            case (nil, .some): onlyBaseline += 1
            case (nil, nil): neither += 1
            }
        }
        bothLocated = ours.count
        onlyMatcherLocated = onlyMatcher
        onlyBaselineLocated = onlyBaseline
        neitherLocated = neither
        self.matcher = ErrorStatistics(errors: ours)
        self.baseline = ErrorStatistics(errors: theirs)
        if let ours = self.matcher, let theirs = self.baseline, theirs.mean > 0, theirs.median > 0, theirs.p90 > 0 {
            ratio = Ratio(mean: ours.mean / theirs.mean, median: ours.median / theirs.median, p90: ours.p90 / theirs.p90)
        }
    }
}
