public import Positioning

/// A sample and as much as windowing needs of where it was taken: consecutive samples of one device at
/// one place form a window (``SampleWindows``).
public protocol PlacedSample: Sendable {
    var sample: Sample { get }

    /// Whether `other` was taken by the same device at the same place.
    func isSamePlace(as other: Self) -> Bool
}

/// A sample together with where it was really taken (survey logs and test walks).
public struct LabelledSample: PlacedSample, Hashable {
    public var sample: Sample
    public var truth: GroundTruth

    public init(sample: Sample, truth: GroundTruth) {
        self.sample = sample
        self.truth = truth
    }

    /// Whether `other` was taken by the same device at the same place: the same spot name, or, for
    /// samples without one, the same coordinates. This is what groups consecutive samples into windows.
    public func isSamePlace(as other: LabelledSample) -> Bool {
        guard sample.device == other.sample.device else { return false }
        if let spot = truth.spot { return other.truth.spot == spot }
        return other.truth.spot == nil && other.truth.x == truth.x && other.truth.y == truth.y
            && other.truth.floor == truth.floor
    }
}

/// A sample to locate, with the name of the spot it was taken at when its log names one (a test walk
/// does, a live scan does not): `survey locate`'s input, where ground truth may be partial or absent.
public struct SpotLabelledSample: PlacedSample, Hashable {
    public var sample: Sample
    /// The spot the log names, nil for a scan without one.
    public var spot: String?

    public init(sample: Sample, spot: String?) {
        self.sample = sample
        self.spot = spot
    }

    /// Whether `other` was taken by the same device with the same spot label (two unlabelled samples of
    /// one device count as one place: a live scan says nothing about where it was taken).
    public func isSamePlace(as other: SpotLabelledSample) -> Bool {
        sample.device == other.sample.device && spot == other.spot
    }
}

/// Grouping of consecutive samples of one device at one place into windows.
public enum SampleWindows {
    /// Splits `samples` into runs of consecutive samples of one device at one place
    /// (``PlacedSample/isSamePlace(as:)``), then chops every run into windows of `size`. A run's last
    /// window keeps what is left (from 1 to `size` samples), so no sample is lost.
    public static func windows<Element: PlacedSample>(of samples: [Element], size: Int) -> [[Element]] {
        var windower = SampleWindower<Element>(size: size)
        return windower.add(samples) + windower.finish()
    }
}

/// The windows of ``SampleWindows/windows(of:size:)`` for samples that arrive in pieces (a long log
/// read a piece at a time): feeding the pieces in order gives exactly the windows of the whole.
public struct SampleWindower<Element: PlacedSample>: Sendable {
    public let size: Int
    private var current: [Element] = []

    public init(size: Int) {
        precondition(size >= 1, "a window holds at least one sample")
        self.size = size
        current.reserveCapacity(size)
    }

    /// Adds the next samples and returns the windows they complete.
    public mutating func add(_ samples: [Element]) -> [[Element]] {
        var windows: [[Element]] = []
        windows.reserveCapacity(samples.count / size + 1)
        for sample in samples {
            if let first = current.first, !first.isSamePlace(as: sample) {
                windows.append(current)
                current.removeAll(keepingCapacity: true)
            }
            current.append(sample)
            if current.count == size {
                windows.append(current)
                current.removeAll(keepingCapacity: true)
            }
        }
        return windows
    }

    /// The last, incomplete window, if any: call once the samples are over.
    public mutating func finish() -> [[Element]] {
        defer { current.removeAll() }
        return current.isEmpty ? [] : [current]
    }
}

/// Reference fingerprints built from a survey log, ready for a ``RadioMap``.
public struct SurveyFingerprints: Sendable {
    /// The venue's spots followed by the spots created from the log's coordinates.
    public var spots: [Spot]
    /// The fingerprints in log order, with their runs (consecutive windows of one device at one spot), as
    /// the store reads them back: what ``SurveyCrossValidation`` and ``ReferenceWindow`` need.
    public var surveyed: [SurveyedFingerprint]
    /// The fingerprints with their spots.
    public var fingerprints: [(spot: Int, fingerprint: Fingerprint)] { surveyed.map { ($0.spot, $0.fingerprint) } }
    /// Samples skipped because no beacon was heard in them.
    public var emptySamples: Int
    /// Windows skipped because no reading survived cleaning.
    public var unusableWindows: Int
    public var cleaning: CleaningReport

    /// Builds one fingerprint per window of `windowSize` consecutive samples of one device at one spot.
    ///
    /// Samples with no beacon at all are skipped and counted before windowing (a scan that heard
    /// nothing says nothing about a place). Spots absent from `spots` are created from the samples'
    /// coordinates.
    public init(survey: [LabelledSample], windowSize: Int, spots: [Spot] = [], builder: FingerprintBuilder) {
        var spots = spots
        var spotIndex: [String: Int] = [:]
        for (index, spot) in spots.enumerated() { spotIndex[spot.name] = index }
        let heard = survey.filter { !$0.sample.readings.isEmpty }
        emptySamples = survey.count - heard.count
        unusableWindows = 0
        cleaning = CleaningReport()
        surveyed = []
        var previous: (spot: Int, device: String)?
        var run = -1
        for window in SampleWindows.windows(of: heard, size: windowSize) {
            let truth = window[0].truth
            let name = truth.spotName
            let index: Int
            if let known = spotIndex[name] {
                index = known
            } else {
                index = spots.count
                spots.append(Spot(name: name, x: truth.x, y: truth.y, floor: truth.floor))
                spotIndex[name] = index
            }
            do {
                let fingerprint = try builder.fingerprint(of: window.map(\.sample), report: &cleaning)
                let device = window[0].sample.device
                if previous.map({ $0.spot != index || $0.device != device }) ?? true { run += 1 }
                previous = (index, device)
                surveyed.append(SurveyedFingerprint(
                    spot: index, run: run, device: device, time: window[0].sample.time, fingerprint: fingerprint))
            } catch {
                unusableWindows += 1
            }
        }
        self.spots = spots
    }

    /// The radio map `configuration` locates in: these fingerprints merged into its reference windows, in
    /// its metric's representation (what the store's `VenueSurvey` builds from the same survey).
    public func radioMap(configuration: PositioningConfiguration) throws(RadioMapError) -> RadioMap {
        try RadioMap(
            spots: spots, fingerprints: configuration.referenceWindow.references(of: surveyed, scale: configuration.builder.scale),
            representation: configuration.locator.metric.representation)
    }
}
