public import Foundation
public import Positioning
/// One line of a scan log (JSON Lines): one ranging sample of one device.
///
/// ```json
/// {"t": 1543000001.0, "device": "galaxy-a5-2017", "spot": "p_29.22_12.91", "x": 29.22, "y": 12.91, "floor": 0,
///  "beacons": [{"uuid": "E2C5…", "major": 1, "minor": 23, "rssi": -57}]}
/// ```
/// `spot`, `x`, `y` and `floor` are the ground truth of survey logs and test walks; live scans omit them.
public struct ScanLine: Codable, Hashable, Sendable {
    public struct BeaconReading: Codable, Hashable, Sendable {
        public var uuid: String
        public var major: Int
        public var minor: Int
        /// dBm; 0 means unknown.
        public var rssi: Double

        public init(uuid: String, major: Int, minor: Int, rssi: Double) {
            self.uuid = uuid
            self.major = major
            self.minor = minor
            self.rssi = rssi
        }

        /// A reading as a scan log writes it.
        public init(_ reading: Reading) {
            self.init(uuid: reading.beacon.uuid.uuidString, major: Int(reading.beacon.major), minor: Int(reading.beacon.minor), rssi: reading.rssi)
        }
    }

    /// Seconds since the Unix epoch.
    public var t: Double
    public var device: String
    public var spot: String?
    public var x: Double?
    public var y: Double?
    public var floor: Int?
    public var beacons: [BeaconReading]

    public init(
        t: Double, device: String, spot: String? = nil, x: Double? = nil, y: Double? = nil, floor: Int? = nil,
        beacons: [BeaconReading]
    ) {
        self.t = t
        self.device = device
        self.spot = spot
        self.x = x
        self.y = y
        self.floor = floor
        self.beacons = beacons
    }

    /// The line as a sample, validating every beacon identity (readings are not cleaned here).
    public func sample() throws(BeaconIDError) -> Sample {
        var readings: [Reading] = []
        readings.reserveCapacity(beacons.count)
        var uuids = UUIDParsingCache()
        for beacon in beacons {
            let id = try BeaconID(uuidString: beacon.uuid, major: beacon.major, minor: beacon.minor, cache: &uuids)
            readings.append(Reading(beacon: id, rssi: beacon.rssi))
        }
        return Sample(device: device, time: t, readings: readings)
    }

    /// The ground truth of this line, when it carries one.
    public var groundTruth: GroundTruth? {
        guard let x, let y else { return nil }
        return GroundTruth(spot: spot, x: x, y: y, floor: floor ?? 0)
    }
}


extension ScanLine {
    /// `lines` as a scan log: JSON Lines, keys sorted, one line each, as `survey simulate` writes its logs
    /// and a survey session keeps its batches.
    public static func jsonLines(_ lines: [ScanLine]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = Data()
        for line in lines {
            data.append(try encoder.encode(line))
            data.append(UInt8(ascii: "\n"))
        }
        return data
    }
}
