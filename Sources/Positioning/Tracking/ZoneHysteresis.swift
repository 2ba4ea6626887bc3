/// A zone entered or left by a device.
public struct ZoneEvent: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable {
        case enter, exit
    }

    public var kind: Kind
    public var zone: String
    /// Seconds since the Unix epoch.
    public var time: Double

    public init(kind: Kind, zone: String, time: Double) {
        self.kind = kind
        self.zone = zone
        self.time = time
    }
}

/// Decides which zone a device is in without flickering at borders.
///
/// Each (smoothed) position has a zone (``ZoneLayout/zone(atX:y:floor:)``: the polygon it lies in, else
/// the zone of its nearest spot). The device changes zone only when another zone has been its zone for
/// `requiredUpdates` updates in a row, each time by at least `margin` metres: that far inside a drawn
/// zone's polygon, that far outside the polygon of the drawn zone it leaves, or, between zones of spots,
/// that much nearer the new zone's nearest spot than the current zone's. A notification storm at a zone
/// border is the classic failure this prevents.
public struct ZoneHysteresis: Sendable, Hashable {
    public var margin: Double
    public var requiredUpdates: Int

    /// The zone the device is in; nil outside every zone (or before the first decision).
    public private(set) var currentZone: String?
    private var challenger: String??
    private var streak = 0

    public init(margin: Double = 2.0, requiredUpdates: Int = 5) {
        self.margin = max(0, margin)
        self.requiredUpdates = max(1, requiredUpdates)
    }

    /// Feeds a position and returns the events it causes (none, or an exit and/or an enter).
    public mutating func update(x: Double, y: Double, floor: Int, zones: ZoneLayout, time: Double) -> [ZoneEvent] {
        update(x: x, y: y, floor: floor, zone: zones.zone(atX: x, y: y, floor: floor), zones: zones, time: time)
    }

    /// ``update(x:y:floor:zones:time:)`` with the position's zone already decided by the caller
    /// (``ZoneLayout/zone(atX:y:floor:)``), as the tracker has it.
    mutating func update(x: Double, y: Double, floor: Int, zone candidate: String?, zones: ZoneLayout, time: Double) -> [ZoneEvent] {
        guard zones.hasZones(onFloor: floor) else { return [] }
        guard candidate != currentZone, zones.lead(of: candidate, over: currentZone, atX: x, y: y, floor: floor) >= margin else {
            streak = 0
            challenger = nil
            return []
        }
        if challenger == .some(candidate) {
            streak += 1
        } else {
            challenger = .some(candidate)
            streak = 1
        }
        guard streak >= requiredUpdates else { return [] }

        var events: [ZoneEvent] = []
        if let old = currentZone { events.append(ZoneEvent(kind: .exit, zone: old, time: time)) }
        if let new = candidate { events.append(ZoneEvent(kind: .enter, zone: new, time: time)) }
        currentZone = candidate
        challenger = nil
        streak = 0
        return events
    }
}
