public import Foundation

/// Devices present in a venue now: seen within the window, by the zone of their newest sighting.
public struct PresenceReport: Hashable, Sendable, Codable {
    public var venue: String
    /// The instant counted back from, seconds since the Unix epoch.
    public var at: Double
    /// Seconds: a device seen at most this long before `at` is present.
    public var window: Double
    /// Every present device, in a zone or not.
    public var total: Int
    /// Zones with at least one device present, most crowded first.
    public var zones: [ZonePresence]
    /// Present devices outside every zone.
    public var outside: Int
}

public struct ZonePresence: Hashable, Sendable, Codable {
    public var zone: String
    public var devices: Int

    package init(zone: String, devices: Int) {
        self.zone = zone
        self.devices = devices
    }
}

/// Dwell per zone over a period.
public struct DwellReport: Hashable, Sendable, Codable {
    public var venue: String
    public var from: Double
    public var to: Double
    /// Visits shorter than this many seconds were not counted.
    public var minimumVisit: Double
    /// Zones with at least one visit, by name.
    public var zones: [ZoneDwell]

    /// The keys of the HTTP API's answer, so `survey analytics --json` prints the same document.
    enum CodingKeys: String, CodingKey {
        case venue, from, to, zones
        case minimumVisit = "min_visit_s"
    }
}

public struct ZoneDwell: Hashable, Sendable, Codable {
    public var zone: String
    /// Finished visits that entered within the period and lasted at least the minimum.
    public var visits: Int
    /// Seconds; percentiles are nearest-rank (a duration that was measured, never interpolated).
    public var median: Double
    public var p90: Double
    public var mean: Double

    enum CodingKeys: String, CodingKey {
        case zone, visits
        case median = "median_s", p90 = "p90_s", mean = "mean_s"
    }

    package init(zone: String, visits: Int, median: Double, p90: Double, mean: Double) {
        self.zone = zone
        self.visits = visits
        self.median = median
        self.p90 = p90
        self.mean = mean
    }
}

/// How devices moved through an ordered list of zones.
public struct FunnelReport: Hashable, Sendable, Codable {
    public var venue: String
    public var from: Double
    public var to: Double
    /// Seconds allowed between one step and the next.
    public var within: Double
    public var steps: [FunnelStep]

    enum CodingKeys: String, CodingKey {
        case venue, from, to, steps
        case within = "within_s"
    }
}

public struct FunnelStep: Hashable, Sendable, Codable {
    public var zone: String
    /// Devices that reached this step (for the first: entered it within the period).
    public var devices: Int
    /// Of the devices of the previous step, the share that reached this one (1 for the first step).
    public var conversion: Double
    /// Median seconds from the previous step to this one; nil for the first step or when none reached it.
    public var medianSeconds: Double?

    enum CodingKeys: String, CodingKey {
        case zone, devices, conversion
        case medianSeconds = "median_s"
    }
}

/// Device-seconds per cell of a floor over a period.
public struct HeatmapReport: Hashable, Sendable, Codable {
    public var venue: String
    public var floor: Int
    /// The period covered: the one asked for widened to whole hours, the heatmap's time resolution.
    public var from: Double
    public var to: Double
    /// The cells' side, metres.
    public var cell: Double
    /// Cells with any presence; `x` and `y` are their lower-left corner in venue metres.
    public var cells: [HeatmapCell]
    public var totalSeconds: Double
    public var maximumSeconds: Double

    enum CodingKeys: String, CodingKey {
        case venue, floor, from, to, cells
        case cell = "cell_m", totalSeconds = "total_s", maximumSeconds = "max_s"
    }
}

public struct HeatmapCell: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public var seconds: Double

    package init(x: Double, y: Double, seconds: Double) {
        self.x = x
        self.y = y
        self.seconds = seconds
    }
}

extension FingerprintStore {
    /// The devices of `venue` seen within `window` seconds before `now`, per zone of their newest sighting.
    public func presence(of venue: String, window: Double, now: Double = Date().timeIntervalSince1970) async throws -> PresenceReport {
        guard window.isFinite, window > 0, window <= 86_400 else {
            throw StoreError.invalidInput("window must be more than 0 and at most 86400 seconds, not \(window)")
        }
        return try await sqlRead { transaction in
            _ = try await self.revision(of: venue, transaction)
            let rows = try await transaction.rows(
                "SELECT zone, COUNT(*) AS devices FROM devicePresence WHERE venueId = \(venue) AND lastSeen > \(now - window) GROUP BY zone")
            var zones: [ZonePresence] = []
            var outside = 0
            for row in rows {
                let devices = try Int(row.integer("devices"))
                if let zone = try row.optionalText("zone") { zones.append(ZonePresence(zone: zone, devices: devices)) } else { outside += devices }
            }
            zones.sort { ($0.devices, $1.zone) > ($1.devices, $0.zone) }
            return PresenceReport(
                venue: venue, at: now, window: window, total: zones.reduce(outside) { $0 + $1.devices }, zones: zones, outside: outside)
        }
    }

    /// Per zone of `venue`: the finished visits that entered in `from..<to` and lasted at least
    /// `minimumVisit` seconds, with their median, 90th percentile and mean duration.
    public func dwell(of venue: String, from: Double, to: Double, minimumVisit: Double) async throws -> DwellReport {
        try Self.checkPeriod(from: from, to: to)
        guard minimumVisit.isFinite, minimumVisit >= 0, minimumVisit <= 366 * 86_400 else {
            throw StoreError.invalidInput("the minimum visit must be from 0 to 31622400 seconds (366 days), not \(minimumVisit)")
        }
        return try await sqlRead { transaction in
            _ = try await self.revision(of: venue, transaction)
            let zones = try await transaction.zoneDwell(venue: venue, from: from, to: to, minimumVisit: minimumVisit)
            return DwellReport(venue: venue, from: from, to: to, minimumVisit: minimumVisit, zones: zones)
        }
    }

    /// Of the devices of `venue` that entered `zones[0]` in `from..<to` (their first entry counts), how many
    /// then entered `zones[1]` within `within` seconds, then `zones[2]` within `within` seconds of that,
    /// and so on (every step before `to`), with the median time between steps.
    public func funnel(of venue: String, zones: [String], from: Double, to: Double, within: Double) async throws -> FunnelReport {
        try Self.checkPeriod(from: from, to: to)
        guard (2...10).contains(zones.count) else {
            throw StoreError.invalidInput("a funnel has 2 to 10 zones, not \(zones.count)")
        }
        guard within.isFinite, within > 0, within <= 366 * 86_400 else {
            throw StoreError.invalidInput("the time limit between steps must be more than 0 and at most 31622400 seconds (366 days), not \(within)")
        }
        return try await sqlRead { transaction in
            _ = try await self.revision(of: venue, transaction)
            let known = try await self.zoneNames(of: venue, transaction)
            if let unknown = zones.first(where: { !known.contains($0) }) {
                throw StoreError.invalidInput(
                    "venue '\(venue)' has no zone '\(unknown)'; its zones are \(known.sorted().map { "'\($0)'" }.joined(separator: ", "))")
            }
            // One common table per step: each device's first entry into the step's zone after its previous
            // step, found through the unique index (venueId, device, zone, enteredAt).
            var steps: [SQLStatement] = [
                "s1 AS (SELECT device, MIN(enteredAt) AS t FROM zoneVisit WHERE venueId = \(venue) AND zone = \(zones[0]) AND enteredAt >= \(from) AND enteredAt < \(to) GROUP BY device)"
            ]
            for index in 1..<zones.count {
                // The step names (s1, s2, ...) are SQL the code writes; the venue, zones and times are bound.
                let (step, previous) = ("s\(index + 1)", "s\(index)")
                steps.append(
                    """
                    \(sql: step) AS (SELECT device, t, previous FROM (SELECT s.device, s.t AS previous, (SELECT MIN(v.enteredAt) FROM zoneVisit v
                    WHERE v.venueId = \(venue) AND v.device = s.device AND v.zone = \(zones[index]) AND v.enteredAt > s.t AND v.enteredAt <= s.t + \(within)
                    AND v.enteredAt < \(to)) AS t FROM \(sql: previous) s) reached WHERE t IS NOT NULL)
                    """)
            }
            let select = ["SELECT 1 AS step, 0.0 AS gap FROM s1"] + (1..<zones.count).map { "SELECT \($0 + 1) AS step, t - previous AS gap FROM s\($0 + 1)" }
            let rows = try await transaction.rows("WITH \(sql: steps.joined(separator: ", ")) \(sql: select.joined(separator: " UNION ALL "))")
            var gaps = Array(repeating: [Double](), count: zones.count)
            for row in rows {
                gaps[Int(try row.integer("step")) - 1].append(try row.real("gap"))
            }
            var report: [FunnelStep] = []
            for (index, zone) in zones.enumerated() {
                let devices = gaps[index].count
                let previous = index == 0 ? devices : report[index - 1].devices
                let sorted = gaps[index].sorted()
                report.append(FunnelStep(
                    zone: zone, devices: devices, conversion: previous == 0 ? 0 : Double(devices) / Double(previous),
                    medianSeconds: index == 0 || sorted.isEmpty ? nil : sorted[max(0, Int((0.5 * Double(sorted.count)).rounded(.up)) - 1)]))
            }
            return FunnelReport(venue: venue, from: from, to: to, within: within, steps: report)
        }
    }

    /// Device-seconds per `cell`-metre cell of `floor` of `venue` in the hours overlapping `from..<to`.
    public func heatmap(of venue: String, floor: Int, cell: Int, from: Double, to: Double) async throws -> HeatmapReport {
        try Self.checkPeriod(from: from, to: to)
        guard (1...100).contains(cell) else {
            throw StoreError.invalidInput("cell is a whole number of metres from 1 to 100, not \(cell)")
        }
        return try await sqlRead { transaction in
            _ = try await self.revision(of: venue, transaction)
            guard try await transaction.count("SELECT COUNT(*) FROM floor WHERE venueId = \(venue) AND level = \(floor)") > 0 else {
                throw StoreError.invalidInput("venue '\(venue)' has no floor \(floor)")
            }
            let firstHour = Int64((from / 3600).rounded(.down)), endHour = Int64((to / 3600).rounded(.up))
            let rows = try await transaction.rows(
                "SELECT cellX, cellY, SUM(seconds) AS seconds FROM heatCell WHERE venueId = \(venue) AND level = \(floor) AND hour >= \(firstHour) AND hour < \(endHour) GROUP BY cellX, cellY")
            let size = Int64(cell)
            var merged: [Pair: Double] = [:]
            for row in rows {
                let x = try row.integer("cellX"), y = try row.integer("cellY")
                // Floor division: cells left of or below the origin (the survey's margin) stay apart.
                merged[Pair(x: Self.floorDivide(x, size), y: Self.floorDivide(y, size)), default: 0] += try row.real("seconds")
            }
            let cells = merged.map { key, seconds in
                HeatmapCell(x: Double(key.x * size) * Self.heatCellSize, y: Double(key.y * size) * Self.heatCellSize, seconds: seconds)
            }.sorted { ($0.y, $0.x) < ($1.y, $1.x) }
            return HeatmapReport(
                venue: venue, floor: floor, from: Double(firstHour * 3600), to: Double(endHour * 3600), cell: Double(cell) * Self.heatCellSize,
                cells: cells, totalSeconds: cells.reduce(0) { $0 + $1.seconds }, maximumSeconds: cells.map(\.seconds).max() ?? 0)
        }
    }

    /// The venue's zone names: those of its drawn zones and of its spots.
    func zoneNames(of venue: String, _ transaction: any SQLTransaction) async throws -> Set<String> {
        let rows = try await transaction.rows(
            "SELECT name FROM zoneArea WHERE venueId = \(venue) UNION SELECT zone AS name FROM spot WHERE venueId = \(venue) AND zone IS NOT NULL")
        return Set(try rows.map { try $0.text("name") })
    }

    static func checkPeriod(from: Double, to: Double) throws {
        guard from.isFinite, to.isFinite, abs(from) < 1e11, abs(to) < 1e11 else {
            throw StoreError.invalidInput("from and to must be times within 3,000 years of 1970, in seconds")
        }
        guard from < to else { throw StoreError.invalidInput("from must be before to") }
        guard to - from <= 366 * 86_400 else { throw StoreError.invalidInput("a period is at most 366 days long") }
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

private struct Pair: Hashable {
    var x: Int64
    var y: Int64
}
