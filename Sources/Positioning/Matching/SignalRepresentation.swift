/// What a ``RadioMap``'s compact matrix and a ``QueryVector`` hold for each beacon a fingerprint hears.
///
/// Both are at least 0, so ``RadioMap/absent`` (-1) still tells "not heard" apart from any heard beacon,
/// however weak.
public enum SignalRepresentation: Hashable, Sendable, Codable {
    /// ``FingerprintEntry/relativePower``: 0...1 relative to the strongest beacon of the window. What
    /// every metric compared before ``DecibelOffsetMetric``; a weak beacon is squeezed towards 0.
    case relativePower
    /// The beacon's mean RSSI in dB above `floor`, `max(0, meanRSSI - floor)`, rounded to 1/16 dB: levels
    /// keep their dB differences, so a weak beacon carries as much information per dB as a strong one. A
    /// reading at or below the floor is 0, still heard. The rounding (at most 1/32 dB, against dB of noise
    /// in every reading) lets ``DecibelOffsetMetric`` compare levels as 16-bit integers (``DecibelLevels``).
    case decibels(floor: Float)

    /// The value an entry stands for in this representation.
    @inline(__always)
    public func value(of entry: FingerprintEntry) -> Float {
        switch self {
        case .relativePower: entry.relativePower
        case .decibels(let floor): (max(0, Float(entry.meanRSSI) - floor) * DecibelLevels.steps).rounded() / DecibelLevels.steps
        }
    }
}
