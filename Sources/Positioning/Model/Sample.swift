/// One beacon heard in one ranging sample.
public struct Reading: Hashable, Sendable {
    public var beacon: BeaconID
    /// Received signal strength in dBm. 0 means "unknown" on iOS and is dropped by cleaning.
    public var rssi: Double

    public init(beacon: BeaconID, rssi: Double) {
        self.beacon = beacon
        self.rssi = rssi
    }
}

/// One ranging sample of one device: every beacon it heard at one moment.
///
/// The order of `readings` carries no meaning (iOS's order says nothing about distance).
public struct Sample: Hashable, Sendable {
    /// The device that heard the beacons; the unit of tracking and of stuck-beacon detection.
    public var device: String
    /// Seconds since the Unix epoch.
    public var time: Double
    public var readings: [Reading]

    public init(device: String, time: Double, readings: [Reading]) {
        self.device = device
        self.time = time
        self.readings = readings
    }
}
