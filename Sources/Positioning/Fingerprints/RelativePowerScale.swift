/// Maps a beacon's mean RSSI to its relative power in 0...1, given the strongest beacon of the same
/// window. Working relative to the strongest beacon cancels a phone's constant gain offset.
public protocol RelativePowerScale: Sendable {
    /// Relative power of a beacon heard at `rssi` dBm when the strongest beacon was heard at `strongest` dBm.
    /// 1 for the strongest beacon, decreasing to 0 for beacons `strongest - rssi` or more below it.
    func relativePower(rssi: Double, strongest: Double) -> Float
}

/// Linear in decibels below the strongest beacon, optionally raised to a power ("powed" representation,
/// Torres-Sospedra et al. 2015): `max(0, 1 - (strongest - rssi) / dynamicRange) ^ exponent`.
///
/// An exponent above 1 stretches the differences between strong beacons (near, informative) and
/// compresses those between weak ones (far, noisy).
public struct DecibelScale: RelativePowerScale, Hashable {
    /// Decibels below the strongest beacon that map to 0.
    public var dynamicRange: Double
    public var exponent: Double

    public init(dynamicRange: Double = 40, exponent: Double = 1) {
        precondition(dynamicRange > 0, "dynamicRange must be positive")
        precondition(exponent > 0, "exponent must be positive")
        self.dynamicRange = dynamicRange
        self.exponent = exponent
    }

    public func relativePower(rssi: Double, strongest: Double) -> Float {
        let linear = min(1, max(0, 1 - (strongest - rssi) / dynamicRange))
        // The usual exponents without pow(), which costs as much as the rest of a fingerprint.
        return Float(exponent == 1 ? linear : exponent == 2 ? linear * linear : pow(linear, exponent))
    }
}

/// The ratio of received powers in milliwatts: `10^((rssi - strongest) / 10)`.
///
/// Physically meaningful but very compressive: a beacon 10 dB below the strongest maps to 0.1.
public struct PowerRatioScale: RelativePowerScale, Hashable {
    public init() {}

    public func relativePower(rssi: Double, strongest: Double) -> Float {
        Float(min(1, pow(10, (rssi - strongest) / 10)))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
