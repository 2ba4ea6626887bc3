public import Positioning
/// What a sample may hold before anything uses it: the same rules for survey and test lines
/// (`survey record`, `survey evaluate`) and for positiond's request bodies.
///
/// Validation refuses only what cannot be a measurement (an RSSI no BLE radio reports, a time or a
/// coordinate that is not a finite, plausible number). Within those limits, ``ReadingCleaner`` decides
/// which readings positioning uses, and drops and counts the others, never refusing the scan.
public struct SampleValidation: Sendable, Hashable {
    /// What BLE radios report, in dBm: -127 is the floor of the HCI RSSI field, +20 the strongest
    /// transmit power a BLE device may use. 0 means "unknown" (iOS) and is always accepted.
    public static let reportableRSSI: ClosedRange<Double> = -127 ... 20

    /// Venue coordinates, in metres, beyond which a position is a unit or sign mistake (100 km).
    public static let maximumCoordinate: Double = 100_000

    /// RSSI values a sample may carry besides 0.
    public var reportableRSSI: ClosedRange<Double>
    /// How far ahead of the reference clock a sample's time may be, in seconds (phones' clocks drift).
    public var futureTolerance: Double

    /// Past times are not limited: a recorded walk replayed days later, a phone uploading what it buffered
    /// offline, or a rig that counts seconds from its start still describes a walk, and the tracker orders
    /// what it is given (and restarts a track whose clock jumps back). Only the future is impossible.
    public init(reportableRSSI: ClosedRange<Double> = SampleValidation.reportableRSSI, futureTolerance: Double = 300) {
        self.reportableRSSI = reportableRSSI
        self.futureTolerance = max(0, futureTolerance)
    }

    /// What is wrong with the time `t` of field `field`, judged against the clock reading `now` (seconds
    /// since the Unix epoch); nil when it is plausible.
    ///
    /// The field names of these checks are autoclosures, made only for a problem: positiond checks every
    /// reading of every request.
    public func problem(time t: Double, field: @autoclosure () -> String, now: Double) -> String? {
        guard t.isFinite else { return "\(field()) is not a finite number" }
        if t < 0 { return "\(field()) \(Self.format(t)) is negative: it must be seconds since the Unix epoch" }
        if t > now + futureTolerance {
            let hint = t > 1e11 ? " (milliseconds instead of seconds?)" : " (is the device's clock wrong?)"
            return "\(field()) \(Self.format(t)) is \(Self.format(t - now)) s ahead of the server's clock, more than \(Self.format(futureTolerance)) s\(hint)"
        }
        return nil
    }

    /// What is wrong with an RSSI value at `field`; nil when a radio can report it.
    public func problem(rssi: Double, field: @autoclosure () -> String) -> String? {
        guard rssi.isFinite else { return "\(field()) is not a finite number" }
        guard rssi == 0 || reportableRSSI.contains(rssi) else {
            return "\(field()) \(Self.format(rssi)) is outside \(Int(reportableRSSI.lowerBound))...\(Int(reportableRSSI.upperBound)) dBm, what BLE radios report (0 means unknown)"
        }
        return nil
    }

    /// What is wrong with a venue coordinate at `field`; nil when it is plausible.
    public func problem(coordinate: Double, field: @autoclosure () -> String) -> String? {
        guard coordinate.isFinite else { return "\(field()) is not a finite number" }
        guard abs(coordinate) <= Self.maximumCoordinate else {
            return "\(field()) \(Self.format(coordinate)) is more than \(Int(Self.maximumCoordinate)) m from the venue's origin"
        }
        return nil
    }

    /// A number as people write it: no exponent below 10^15, at most 3 decimals.
    static func format(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        if abs(value) < 1e15 {
            var text = String(Int64((value * 1000).rounded()))
            let negative = text.hasPrefix("-")
            if negative { text.removeFirst() }
            while text.count < 4 { text = "0" + text }
            var fraction = String(text.suffix(3))
            while fraction.hasSuffix("0") { fraction.removeLast() }
            let whole = String(text.dropLast(3))
            return (negative ? "-" : "") + whole + (fraction.isEmpty ? "" : "." + fraction)
        }
        return "\(value)"
    }
}
