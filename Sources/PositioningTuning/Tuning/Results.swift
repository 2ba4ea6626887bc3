public import Positioning

/// What `survey tune` found: the chosen configuration and the figures it was chosen on.
public struct TuningResult: Hashable, Sendable, Codable {
    public var configuration: TunedConfiguration
    /// The winner's cross-validation.
    public var score: CrossValidationScore
    /// The best estimator of every map candidate tried, best first.
    public var candidates: [CrossValidationScore]
    /// Every tracker setting tried, best first; the first with window 0 and gain 1 is the single-scan figure.
    public var tracker: [TrackerScore]
    /// Cross-validation queries (stored survey fingerprints).
    public var queries: Int
    /// Devices that surveyed (leave-one-device-out runs when more than one).
    public var devices: Int
    /// Share of cross-validation answers within their calibrated accuracy radius.
    public var withinAccuracy: Double
    /// Cross-validation answers beyond the derived `unknown` threshold.
    public var unknownAtThreshold: Int
    /// The protocols the radius was calibrated on; nil in tunings stored before they were recorded.
    public var calibrationProtocols: [SurveyCrossValidation.ValidationProtocol]?
    /// Devices, or recording sessions of the one device, the survey holds; nil in older tunings.
    public var groups: Int?
    /// `device` or `session`: what ``groups`` counts; nil in older tunings.
    public var groupKind: String?
    /// How well ``configuration`` locates each surveyed spot with the spot left out
    /// (``SurveyCrossValidation/spotErrors(of:)``), by spot name so that it still reads right after spots
    /// are added or removed. Computed once here so that maps need not cross-validate again; nil in tunings
    /// stored before it existed.
    public var spotErrors: [NamedSpotError]?
    /// Every uncertainty model tried, in the search space's order, with its score (lower is better); nil in
    /// older tunings.
    public var uncertaintyScores: [UncertaintyScore]?
    /// The strongest-beacon search's recall on the survey under the chosen metric, measured when the map
    /// is large enough for it to narrow anything (``SurveyCrossValidation/candidateSearch(for:aggregation:)``);
    /// nil for smaller maps, which are read whole, and in older tunings.
    public var candidateSearchRecall: CandidateSearchRecall? = nil
}

/// How well one uncertainty model's calibrated radius fitted the cross-validation truths
/// (``SurveyTuner/uncertaintyScore(of:protocols:)``).
public struct UncertaintyScore: Hashable, Sendable, Codable {
    public var model: UncertaintyModel
    /// Mean negative log-likelihood of the truths (lower is better).
    public var logLoss: Double
}


/// The cross-validated error at one spot of the survey.
public struct SpotError: Hashable, Sendable, Codable {
    /// Index into the validation's spots.
    public var spot: Int
    /// Mean error in metres of the spot's queries, each located with the spot left out; nil when none
    /// was located.
    public var meanError: Double?
    /// Queries of the spot that were located.
    public var located: Int
    /// Queries of the spot answered `unknown`.
    public var unknown: Int
}

/// ``SpotError`` with its spot named: what a ``TuningResult`` stores, since a spot's index means nothing
/// outside the cross-validation that numbered it.
public struct NamedSpotError: Hashable, Sendable, Codable {
    /// The spot's name.
    public var name: String
    /// Mean error in metres of the spot's queries, each located with the spot left out; nil when none
    /// was located (every one answered `unknown`).
    public var meanError: Double?
    /// Queries of the spot that were located.
    public var located: Int
    /// Queries of the spot answered `unknown`.
    public var unknown: Int

    public init(name: String, meanError: Double?, located: Int, unknown: Int) {
        self.name = name
        self.meanError = meanError
        self.located = located
        self.unknown = unknown
    }
}

