import FingerprintStore
import Foundation
import Positioning
import ScanFormats
import Testing

/// The visitor history on both engines: what a batch writes, and what presence, dwell, funnels and
/// heatmaps answer from it, against numbers worked out by hand.
@Suite("Store: visitor history and its analytics")
struct HistoryStoreTests {
    static func store(_ engine: StoreEngine) async throws -> FingerprintStore {
        let store = try await BackendTests.store(engine)
        _ = try await store.importVenue(StoreFixtures.venue)
        return store
    }

    static func visit(_ device: String, _ zone: String, _ entered: Double, _ exited: Double?) -> DeviceVisit {
        DeviceVisit(device: device, visit: ZoneVisit(zone: zone, enteredAt: entered, exitedAt: exited))
    }

    @Test("visits opened in one batch and closed in the next are one row; dwell counts visits of at least the minimum, with nearest-rank percentiles", arguments: BackendTests.engines)
    func dwell(engine: StoreEngine) async throws {
        // Given visits of 10 devices to 'west' lasting 10, 20, ..., 100 s, opened in one batch and closed in the next
        let store = try await Self.store(engine)
        try await store.recordHistory(["hall": VenueHistoryBatch(visits: (1...10).map { Self.visit("d\($0)", "west", 1000, nil) })])
        try await store.recordHistory(["hall": VenueHistoryBatch(visits: (1...10).map { Self.visit("d\($0)", "west", 1000, 1000 + 10 * Double($0)) })])
        // And one short visit to 'east' and one still open there
        try await store.recordHistory(["hall": VenueHistoryBatch(visits: [Self.visit("d1", "east", 1200, 1205), Self.visit("d2", "east", 1300, nil)])])

        // When dwell is asked with a minimum of 15 s
        let report = try await store.dwell(of: "hall", from: 0, to: 2000, minimumVisit: 15)

        // Then 'west' has the 9 visits of 20...100 s, median the 5th (60 s), p90 the 9th (100 s); 'east' none
        #expect(report.zones == [ZoneDwell(zone: "west", visits: 9, median: 60, p90: 100, mean: 60)])
        // And read as whole days (SQLite's daily histogram) the answer is the same
        #expect(try await store.dwell(of: "hall", from: -86_400, to: 2 * 86_400, minimumVisit: 15).zones == report.zones)
        // And a visit whose exit is corrected (a dead replica's visit closed by the sweep, then by its device) counts once, at its new length
        try await store.recordHistory(["hall": VenueHistoryBatch(visits: [Self.visit("d10", "west", 1000, 1200)])])
        let corrected = try await store.dwell(of: "hall", from: -86_400, to: 2 * 86_400, minimumVisit: 15).zones
        #expect(corrected.map(\.visits) == [9] && corrected.first?.p90 == 200, "\(corrected)")
        #expect(try await store.dwell(of: "hall", from: 0, to: 2000, minimumVisit: 15).zones == corrected)
        // And a period that starts after the visits to 'west' entered counts only the finished one to 'east'
        #expect(try await store.dwell(of: "hall", from: 1001, to: 2000, minimumVisit: 0).zones == [ZoneDwell(zone: "east", visits: 1, median: 5, p90: 5, mean: 5)])
    }

    @Test("dwell answers the same on both engines to the fraction of a second: fractional minimums, ties, whole and partial days, empty ranges", arguments: BackendTests.engines)
    func dwellExact(engine: StoreEngine) async throws {
        // Given visits with fractional durations, several tied, on two days and a partial third
        let durations: [(zone: String, entered: Double, seconds: Double)] = [
            ("west", 1000, 2.25), ("west", 1010, 2.75), ("west", 1020, 3.5), ("west", 1030, 3.5), ("west", 1040, 3.5),
            ("west", 1050, 7.125), ("west", 86_400 + 500, 10), ("west", 86_400 + 510, 10.9), ("west", 86_400 + 520, 3.25),
            ("east", 1100, 0.5), ("east", 86_400 + 600, 2.5), ("east", 2 * 86_400 + 100, 2.5), ("east", 2 * 86_400 + 200, 60.75),
        ]
        let store = try await Self.store(engine)
        try await store.recordHistory(["hall": VenueHistoryBatch(visits: durations.enumerated().map { index, visit in
            Self.visit("d\(index)", visit.zone, visit.entered, visit.entered + visit.seconds)
        })])
        // A visit lasts its exit less its entry, as stored (10.9 s entered at 86910 s lasts 10.89999999999418 s).
        let stored = durations.map { (zone: $0.zone, entered: $0.entered, seconds: ($0.entered + $0.seconds) - $0.entered) }
        // The answer by its definition: visits entered in the period lasting at least the minimum; the
        // median and p90 the visits of nearest rank ceil(p·n); the mean of the durations.
        func expected(from: Double, to: Double, minimum: Double) -> [ZoneDwell] {
            Dictionary(grouping: stored.filter { $0.entered >= from && $0.entered < to && $0.seconds >= minimum }, by: \.zone)
                .map { zone, visits in
                    let sorted = visits.map(\.seconds).sorted()
                    func rank(_ p: Double) -> Double { sorted[max(1, Int((p * Double(sorted.count)).rounded(.up))) - 1] }
                    return ZoneDwell(zone: zone, visits: sorted.count, median: rank(0.5), p90: rank(0.9), mean: sorted.reduce(0, +) / Double(sorted.count))
                }
                .sorted { $0.zone < $1.zone }
        }
        // When dwell is asked over whole days, partial days, fractional and tied minimums, and periods with no visit
        let periods: [(from: Double, to: Double, minimum: Double)] = [
            (-86_400, 3 * 86_400, 0), (-86_400, 3 * 86_400, 2.5), (-86_400, 3 * 86_400, 2.74), (-86_400, 3 * 86_400, 3.5),
            (0, 2 * 86_400, 3.25), (500, 2 * 86_400 + 150, 2.3), (1005, 1045, 3.5), (0, 86_400, 0.5),
            (-86_400, 3 * 86_400, 61), (5000, 6000, 0),
        ]
        for period in periods {
            let answer = try await store.dwell(of: "hall", from: period.from, to: period.to, minimumVisit: period.minimum).zones
            let truth = expected(from: period.from, to: period.to, minimum: period.minimum)
            // Then every count and percentile is the definition's exactly, and the mean to rounding of the sum
            #expect(answer.map(\.zone) == truth.map(\.zone) && answer.map(\.visits) == truth.map(\.visits), "\(period): \(answer) vs \(truth)")
            #expect(answer.map(\.median) == truth.map(\.median) && answer.map(\.p90) == truth.map(\.p90), "\(period): \(answer) vs \(truth)")
            #expect(zip(answer, truth).allSatisfy { abs($0.mean - $1.mean) < 1e-9 }, "\(period): \(answer) vs \(truth)")
        }
    }

    @Test("a funnel follows each device's first entry into each step, within the time limit, with the median gap", arguments: BackendTests.engines)
    func funnel(engine: StoreEngine) async throws {
        // Given d1 and d2 go west then east (after 100 s and 300 s), d3 goes west then east too late, d4 only east
        let store = try await Self.store(engine)
        try await store.recordHistory(["hall": VenueHistoryBatch(visits: [
            Self.visit("d1", "west", 1000, 1050), Self.visit("d1", "east", 1100, 1200),
            Self.visit("d2", "west", 2000, 2100), Self.visit("d2", "east", 2300, 2400),
            Self.visit("d3", "west", 3000, 3100), Self.visit("d3", "east", 9000, 9100),
            Self.visit("d4", "east", 1000, 1100),
        ])])

        // When the funnel west → east is asked with 1000 s between steps
        let report = try await store.funnel(of: "hall", zones: ["west", "east"], from: 0, to: 10_000, within: 1000)

        // Then 3 devices entered west, 2 reached east (2/3), the median gap the lower of 100 and 300 s
        #expect(report.steps.map(\.devices) == [3, 2])
        #expect(abs(report.steps[1].conversion - 2.0 / 3) < 1e-9)
        #expect(report.steps[1].medianSeconds == 100 && report.steps[0].medianSeconds == nil)
        // And an unknown zone is refused by name
        await #expect(throws: StoreError.self) { try await store.funnel(of: "hall", zones: ["west", "lobby"], from: 0, to: 10, within: 10) }
    }

    @Test("trace points add their seconds to hourly 1 m cells, merged into larger cells on request; presence counts the newest sighting per device", arguments: BackendTests.engines)
    func heatmapAndPresence(engine: StoreEngine) async throws {
        // Given trace points at (0.5, 0.5) worth 10 s twice, (1.5, 0.2) worth 5 s and (-0.5, 3) worth 7 s in one hour
        let store = try await Self.store(engine)
        let hour = 3600.0 * 500_000
        func point(_ device: String, _ t: Double, _ x: Double, _ y: Double, _ seconds: Double) -> DeviceTracePoint {
            DeviceTracePoint(device: device, point: TracePoint(time: hour + t, floor: 0, x: x, y: y, zone: "west", seconds: seconds))
        }
        try await store.recordHistory(["hall": VenueHistoryBatch(trace: [point("a", 0, 0.5, 0.5, 10), point("a", 10, 0.5, 0.5, 10), point("b", 0, 1.5, 0.2, 5)])])
        try await store.recordHistory(["hall": VenueHistoryBatch(trace: [point("c", 0, -0.5, 3, 7)])])

        // When the heatmap is asked in 1 m and 2 m cells
        let fine = try await store.heatmap(of: "hall", floor: 0, cell: 1, from: hour + 60, to: hour + 120)
        let coarse = try await store.heatmap(of: "hall", floor: 0, cell: 2, from: hour, to: hour + 3600)

        // Then the 1 m cells hold 20, 5 and 7 s, the period widened to the hour; in 2 m cells (0,0) holds 25 s and (-2,2) 7 s
        #expect(Set(fine.cells) == [HeatmapCell(x: 0, y: 0, seconds: 20), HeatmapCell(x: 1, y: 0, seconds: 5), HeatmapCell(x: -1, y: 3, seconds: 7)])
        #expect(fine.from == hour && fine.to == hour + 3600 && fine.totalSeconds == 32 && fine.maximumSeconds == 20)
        #expect(Set(coarse.cells) == [HeatmapCell(x: 0, y: 0, seconds: 25), HeatmapCell(x: -2, y: 2, seconds: 7)])

        // Given sightings: d1 in west now, d2 in east a minute ago then in west (newer), d3 outside, d4 long ago;
        // and a late batch that says d1 was in east earlier
        let now = 2_000_000_000.0
        try await store.recordHistory(["hall": VenueHistoryBatch(sightings: [
            DeviceSighting(device: "d1", time: now - 5, floor: 0, zone: "west"),
            DeviceSighting(device: "d2", time: now - 60, floor: 0, zone: "east"),
            DeviceSighting(device: "d3", time: now - 30, floor: 0, zone: nil),
            DeviceSighting(device: "d4", time: now - 3600, floor: 0, zone: "east"),
        ])])
        try await store.recordHistory(["hall": VenueHistoryBatch(sightings: [
            DeviceSighting(device: "d2", time: now - 10, floor: 0, zone: "west"),
            DeviceSighting(device: "d1", time: now - 100, floor: 0, zone: "east"),
        ])])
        // When presence over 5 minutes is asked
        let presence = try await store.presence(of: "hall", window: 300, now: now)
        // Then west has d1 and d2, d3 is outside every zone, d4 is not present
        #expect(presence.zones == [ZonePresence(zone: "west", devices: 2)] && presence.outside == 1 && presence.total == 3)
    }

    @Test("devices are stored as pseudonyms, never as sent; switching a venue off drops its batches; retention and abandoned visits", arguments: BackendTests.engines)
    func privacyAndMaintenance(engine: StoreEngine) async throws {
        // Given a visit of 'alice-phone' and a sighting
        let store = try await Self.store(engine)
        try await store.recordHistory(["hall": VenueHistoryBatch(
            visits: [Self.visit("alice-phone", "west", 1000, nil)],
            sightings: [DeviceSighting(device: "alice-phone", time: 1090, floor: 0, zone: "west")])])
        // Then no stored value holds the id as sent
        let stored = try await Self.storedValues(store)
        #expect(!stored.contains(.text("alice-phone")) && stored.contains(where: { if case .integer = $0 { true } else { false } }))

        // When the replica that opened the visit is gone and the device was last seen before the cutoff
        let closed = try await store.closeAbandonedVisits(lastSeenBefore: 2000)
        // Then the visit is closed at its last sighting
        #expect(closed == 1)
        #expect(try await store.dwell(of: "hall", from: 0, to: 5000, minimumVisit: 0).zones == [ZoneDwell(zone: "west", visits: 1, median: 90, p90: 90, mean: 90)])

        // When recording is switched off
        #expect(try await store.setHistoryRecording(of: "hall", to: false).recording == false)
        let summary = try await store.recordHistory(["hall": VenueHistoryBatch(visits: [Self.visit("bob", "east", 3000, 3100)])])
        // Then the batch is dropped and the setting reads back off
        #expect(summary.skippedVenues == ["hall"] && summary.visits == 0)
        #expect(try await store.historyRecording(of: "hall").recording == false)
        #expect(try await store.dwell(of: "hall", from: 0, to: 5000, minimumVisit: 0).zones.map(\.visits) == [1])

        // When retention deletes what is older than 1500
        let deleted = try await store.pruneHistory(before: 1500)
        // Then the visit (entered at 1000) and the sighting (1090) are gone
        #expect(deleted == 2)
        #expect(try await store.dwell(of: "hall", from: 0, to: 5000, minimumVisit: 0).zones.isEmpty)
    }

    /// Every value of the history's device tables.
    static func storedValues(_ store: FingerprintStore) async throws -> [SQLValue] {
        try await store.sqlRead { transaction in
            var values: [SQLValue] = []
            for table in ["zoneVisit", "devicePresence"] { values += try await transaction.rows("SELECT * FROM \(sql: table)").flatMap(\.values) }
            return values
        }
    }

    @Test("bad periods, windows and cells are refused with a sentence", arguments: BackendTests.engines)
    func refusals(engine: StoreEngine) async throws {
        let store = try await Self.store(engine)
        await #expect(throws: StoreError.invalidInput("from must be before to")) { try await store.dwell(of: "hall", from: 10, to: 10, minimumVisit: 0) }
        await #expect(throws: StoreError.self) { try await store.presence(of: "hall", window: 0) }
        await #expect(throws: StoreError.self) { try await store.heatmap(of: "hall", floor: 0, cell: 0, from: 0, to: 10) }
        await #expect(throws: StoreError.self) { try await store.heatmap(of: "hall", floor: 7, cell: 1, from: 0, to: 10) }
        await #expect(throws: StoreError.unknownVenue("nowhere")) { try await store.presence(of: "nowhere", window: 10) }
    }
}
