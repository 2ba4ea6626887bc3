import Positioning
import Testing

/// A device's history as the tracker's updates make it: visits from zone events, a thinned trace, and a
/// visit never left open.
@Suite("DeviceHistory: visits, thinned trace, closing")
struct DeviceHistoryTests {
    static func position(_ x: Double) -> Position {
        Position(x: x, y: 0, floor: 0, accuracy: 2, spot: "s", zone: nil)
    }

    @Test("an enter opens a visit, an exit closes it; the trace keeps one point per interval with the seconds it stands for")
    func visitsAndTrace() {
        // Given a history thinned to one point per 10 s
        var history = DeviceHistory(traceInterval: 10)
        // When a device is seen every second for 25 s, entering 'Bar' at 3 and leaving it for 'Hall' at 20
        var visits: [ZoneVisit] = []
        var trace: [TracePoint] = []
        for second in 0...25 {
            let time = 1000 + Double(second)
            var events: [ZoneEvent] = []
            if second == 3 { events = [ZoneEvent(kind: .enter, zone: "Bar", time: time)] }
            if second == 20 { events = [ZoneEvent(kind: .exit, zone: "Bar", time: time), ZoneEvent(kind: .enter, zone: "Hall", time: time)] }
            let zone: String? = second < 3 ? nil : second < 20 ? "Bar" : "Hall"
            let changes = history.record(time: time, position: Self.position(Double(second)), zone: zone, events: events)
            visits += changes.visits
            trace += changes.trace.map { [$0] } ?? []
        }
        // Then 'Bar' was opened at 1003 and closed at 1020, 'Hall' opened at 1020
        #expect(visits == [
            ZoneVisit(zone: "Bar", enteredAt: 1003), ZoneVisit(zone: "Bar", enteredAt: 1003, exitedAt: 1020), ZoneVisit(zone: "Hall", enteredAt: 1020),
        ])
        // And the trace has points at 0, 10 and 20 s, the first worth nothing (its past is unknown), then 10 s each
        #expect(trace.map(\.time) == [1000, 1010, 1020] && trace.map(\.seconds) == [0, 10, 10])
        // And when the device is forgotten, 'Hall' closes at its last sighting
        #expect(history.close() == ZoneVisit(zone: "Hall", enteredAt: 1020, exitedAt: 1025))
        #expect(history.close() == nil)
    }

    @Test("a history forgotten while the tracker kept the zone reopens the visit; a zone lost without an exit closes it")
    func reconcilesWithTheTracker() {
        var history = DeviceHistory(traceInterval: 10)
        // Given a device already in 'Bar' by the tracker's account, with no enter event in this history
        let reopened = history.record(time: 2000, position: Self.position(1), zone: "Bar", events: [])
        // Then a visit opens at that update
        #expect(reopened.visits == [ZoneVisit(zone: "Bar", enteredAt: 2000)])
        // When the tracker restarts (its zone is nil) without an exit
        _ = history.record(time: 2030, position: Self.position(1), zone: "Bar", events: [])
        let lost = history.record(time: 2040, position: Self.position(1), zone: nil, events: [])
        // Then the visit closes at the previous sighting
        #expect(lost.visits == [ZoneVisit(zone: "Bar", enteredAt: 2000, exitedAt: 2030)])
    }
}
