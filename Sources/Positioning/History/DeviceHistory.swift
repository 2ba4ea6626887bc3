/// A stay of a device in a zone: from its enter event to its exit (nil while it is still there).
public struct ZoneVisit: Hashable, Sendable {
    public var zone: String
    /// Seconds since the Unix epoch, on the track's clock (the samples' times).
    public var enteredAt: Double
    public var exitedAt: Double?

    public init(zone: String, enteredAt: Double, exitedAt: Double? = nil) {
        self.zone = zone
        self.enteredAt = enteredAt
        self.exitedAt = exitedAt
    }

    /// Seconds between enter and exit; nil while open.
    public var duration: Double? { exitedAt.map { $0 - enteredAt } }
}

/// One point of a device's thinned position trace, with the seconds of presence it stands for.
public struct TracePoint: Hashable, Sendable {
    public var time: Double
    public var floor: Int
    public var x: Double
    public var y: Double
    /// The zone the device was in (after hysteresis), nil outside every zone.
    public var zone: String?
    /// Seconds since the device's previous trace point, at most ``DeviceHistory/longestGap`` (or the thinning
    /// interval, if longer): what this point adds to the heatmap's device-seconds (0 for a device's first
    /// point, whose past is unknown).
    public var seconds: Double

    public init(time: Double, floor: Int, x: Double, y: Double, zone: String?, seconds: Double) {
        self.time = time
        self.floor = floor
        self.x = x
        self.y = y
        self.zone = zone
        self.seconds = seconds
    }
}

/// What one tracked update adds to a device's history.
public struct HistoryChanges: Hashable, Sendable {
    /// Visits opened or closed by the update, in order (a visit opened and closed by the same update
    /// appears once, closed).
    public var visits: [ZoneVisit] = []
    /// The trace point the update is kept as, when the thinning interval has passed.
    public var trace: TracePoint?

    public init(visits: [ZoneVisit] = [], trace: TracePoint? = nil) {
        self.visits = visits
        self.trace = trace
    }

    public var isEmpty: Bool { visits.isEmpty && trace == nil }
}

/// The history of one tracked device as it happens: its open zone visit, when it was last seen and last
/// traced. Turns the tracker's updates and zone events into visits and a trace thinned to one point per
/// `traceInterval` seconds, and closes an open visit at the device's last sighting when it is forgotten.
///
/// A value type with no references, like ``DeviceTracker``: the daemon keeps one per device under a lock.
public struct DeviceHistory: Sendable, Hashable {
    /// At most one trace point per this many seconds.
    public let traceInterval: Double
    /// The longest gap between trace points credited in full to the later point: a phone that sends its
    /// samples in batches (30 s of them a request) is there all along; one silent for longer may have been
    /// anywhere, so its gap counts this much only.
    public static let longestGap = 60.0
    /// The visit in progress.
    public private(set) var openVisit: ZoneVisit?
    /// Time of the newest update seen (the device's last sighting).
    public private(set) var lastSeen: Double?
    private var lastTraced: Double?

    public init(traceInterval: Double) {
        self.traceInterval = traceInterval.isFinite ? max(0, traceInterval) : 10
    }

    /// Records an update: its zone events open and close visits, and it becomes a trace point when the
    /// device was last traced at least ``traceInterval`` seconds earlier (and it has a position).
    ///
    /// An enter while a visit is open (the tracker was restarted, or forgot the device and met it again)
    /// first closes the open visit at the device's previous sighting: a visit is never left open.
    public mutating func record(time: Double, position: Position?, zone: String?, events: [ZoneEvent]) -> HistoryChanges {
        var changes = HistoryChanges()
        let previousSighting = lastSeen
        for event in events {
            switch event.kind {
            case .exit:
                if var open = openVisit, open.zone == event.zone {
                    open.exitedAt = max(open.enteredAt, event.time)
                    changes.close(open)
                    openVisit = nil
                }
            case .enter:
                if var open = openVisit {
                    open.exitedAt = max(open.enteredAt, previousSighting ?? event.time)
                    changes.close(open)
                }
                let opened = ZoneVisit(zone: event.zone, enteredAt: event.time)
                openVisit = opened
                changes.visits.append(opened)
            }
        }
        if openVisit?.zone != zone, events.isEmpty || zone != nil {
            // The tracker's zone is the truth: a history forgotten while the tracker kept the device (their
            // idle timers are not one) reopens the visit here, and a zone lost without an exit (the track
            // restarted) closes it at the previous sighting.
            if var open = openVisit {
                open.exitedAt = max(open.enteredAt, previousSighting ?? time)
                changes.close(open)
                openVisit = nil
            }
            if let zone {
                let opened = ZoneVisit(zone: zone, enteredAt: time)
                openVisit = opened
                changes.visits.append(opened)
            }
        }
        lastSeen = max(lastSeen ?? time, time)
        if let position {
            if let lastTraced, time - lastTraced < traceInterval, time >= lastTraced {
                return changes
            }
            let seconds = lastTraced.map { min(max(0, time - $0), max(traceInterval, Self.longestGap)) } ?? 0
            changes.trace = TracePoint(time: time, floor: position.floor, x: position.x, y: position.y, zone: zone, seconds: seconds)
            lastTraced = time
        }
        return changes
    }

    /// Closes the open visit at the last sighting, for a device that is forgotten (idle, evicted, or the
    /// daemon stopping); nil when no visit is open.
    public mutating func close() -> ZoneVisit? {
        guard var open = openVisit else { return nil }
        open.exitedAt = max(open.enteredAt, lastSeen ?? open.enteredAt)
        openVisit = nil
        return open
    }
}

extension HistoryChanges {
    /// Adds a closed visit, replacing its opening when the same update opened it.
    fileprivate mutating func close(_ visit: ZoneVisit) {
        if let index = visits.firstIndex(where: { $0.zone == visit.zone && $0.enteredAt == visit.enteredAt && $0.exitedAt == nil }) {
            visits[index] = visit
        } else {
            visits.append(visit)
        }
    }
}
