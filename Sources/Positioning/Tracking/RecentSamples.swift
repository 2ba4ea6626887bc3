/// A device's samples of the last few seconds, in time order: what a tracker merges into its live
/// fingerprint, and what the smoothed k-NN baseline averages, so the two see the same samples.
public struct RecentSamples: Sendable, Hashable {
    /// Seconds of samples kept, counted back from the newest sample's time.
    public var window: Double
    /// At most this many samples are kept (the newest).
    public var maximumSamples: Int
    /// A sample arriving more than this many seconds after the newest one starts afresh: samples from
    /// before a silence describe another moment, perhaps another place.
    public var silenceReset: Double

    /// The kept samples, oldest first.
    public private(set) var samples: [Sample] = []

    public init(window: Double, maximumSamples: Int, silenceReset: Double) {
        self.window = max(0, window)
        self.maximumSamples = max(1, maximumSamples)
        self.silenceReset = silenceReset
    }

    /// The newest sample kept.
    public var newest: Sample? { samples.last }

    /// Adds `sample` in time order, forgetting everything before a silence and what fell out of the window.
    public mutating func add(_ sample: Sample) {
        if let newest = samples.last, sample.time - newest.time > silenceReset { samples.removeAll() }
        let index = samples.lastIndex { $0.time <= sample.time }.map { $0 + 1 } ?? 0
        samples.insert(sample, at: index)
        let newest = samples.last!.time
        samples.removeAll { newest - $0.time > window }
        if samples.count > maximumSamples { samples.removeFirst(samples.count - maximumSamples) }
    }

    /// Forgets every sample.
    public mutating func removeAll() {
        samples.removeAll()
    }
}
