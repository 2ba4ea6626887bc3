public import Positioning

/// A change to a venue's beacons injected into a recorded walk from a moment on, to measure what a fault
/// costs and how soon the health monitor names it, with the product itself (`survey evaluate`).
public struct BeaconFault: Hashable, Sendable, Codable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable, Codable {
        /// The beacon is never heard again.
        case kill(BeaconID)
        /// The beacon is heard `decibels` louder (negative: quieter).
        case shift(BeaconID, decibels: Double)
        /// The two beacons were hung in each other's place: each reading of one is heard as the other.
        case swap(BeaconID, BeaconID)
        /// `old` died and `new` (an id the survey does not have) hangs in its place, `decibels` louder.
        case swapIn(old: BeaconID, new: BeaconID, decibels: Double)
    }

    public var kind: Kind
    /// From this time on (seconds since the Unix epoch) the fault holds.
    public var time: Double

    public init(_ kind: Kind, from time: Double) {
        self.kind = kind
        self.time = time
    }

    /// The beacons the fault concerns (for a swap-in, the old one).
    public var beacons: [BeaconID] {
        switch kind {
        case .kill(let beacon), .shift(let beacon, _): [beacon]
        case .swap(let first, let second): [first, second]
        case .swapIn(let old, _, _): [old]
        }
    }

    /// `sample` as heard under the fault (unchanged before ``time``).
    public func apply(to sample: Sample) -> Sample {
        guard sample.time >= time else { return sample }
        var copy = sample
        switch kind {
        case .kill(let beacon):
            copy.readings.removeAll { $0.beacon == beacon }
        case .shift(let beacon, let decibels):
            for index in copy.readings.indices where copy.readings[index].beacon == beacon { copy.readings[index].rssi += decibels }
        case .swap(let first, let second):
            for index in copy.readings.indices {
                if copy.readings[index].beacon == first {
                    copy.readings[index].beacon = second
                } else if copy.readings[index].beacon == second {
                    copy.readings[index].beacon = first
                }
            }
        case .swapIn(let old, let new, let decibels):
            for index in copy.readings.indices where copy.readings[index].beacon == old {
                copy.readings[index].beacon = new
                copy.readings[index].rssi += decibels
            }
        }
        return copy
    }

    public var description: String {
        switch kind {
        case .kill(let beacon): "\(beacon) dead"
        case .shift(let beacon, let decibels): "\(beacon) \(decibels > 0 ? "+" : "")\(decibels) dB"
        case .swap(let first, let second): "\(first) and \(second) swapped"
        case .swapIn(let old, let new, let decibels): "\(old) replaced by \(new) \(decibels > 0 ? "+" : "")\(decibels) dB"
        }
    }
}

extension Array where Element == BeaconFault {
    /// `sample` under every fault, in order.
    public func apply(to sample: Sample) -> Sample {
        reduce(sample) { $1.apply(to: $0) }
    }
}
