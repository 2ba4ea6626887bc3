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
/// A zone's distance is the planar distance from the (smoothed) position to the zone's nearest spot on
/// the same floor; spots without a zone form the "outside any zone" area. The device changes zone only
/// when another zone is nearer than the current one by at least `margin` metres for `requiredUpdates`
/// updates in a row. A notification storm at a zone border is the classic failure this prevents.
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
    public mutating func update(x: Double, y: Double, floor: Int, spots: [Spot], time: Double) -> [ZoneEvent] {
        var nearest: [String?: Double] = [:]
        for spot in spots where spot.floor == floor {
            let distance = spot.planarDistance(toX: x, y: y)
            if distance < nearest[spot.zone, default: .infinity] { nearest[spot.zone] = distance }
        }
        guard let closest = nearest.min(by: { $0.value < $1.value }) else { return [] }
        let currentDistance = nearest[currentZone, default: .infinity]
        guard closest.key != currentZone, currentDistance - closest.value >= margin else {
            streak = 0
            challenger = nil
            return []
        }
        if challenger == .some(closest.key) {
            streak += 1
        } else {
            challenger = .some(closest.key)
            streak = 1
        }
        guard streak >= requiredUpdates else { return [] }

        var events: [ZoneEvent] = []
        if let old = currentZone { events.append(ZoneEvent(kind: .exit, zone: old, time: time)) }
        if let new = closest.key { events.append(ZoneEvent(kind: .enter, zone: new, time: time)) }
        currentZone = closest.key
        challenger = nil
        streak = 0
        return events
    }
}
