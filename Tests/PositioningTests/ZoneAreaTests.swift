import Foundation
import Positioning
import Testing

@Suite("Zones drawn as polygons")
struct ZoneAreaTests {
    /// A 10 × 10 m room with an L-shaped bar beside it, and spots that name no zone.
    static let room = ZoneArea(name: "Room", floor: 0, polygon: [.init(x: 0, y: 0), .init(x: 10, y: 0), .init(x: 10, y: 10), .init(x: 0, y: 10)])
    static let bar = ZoneArea(name: "Bar", floor: 0, polygon: [
        .init(x: 10, y: 0), .init(x: 20, y: 0), .init(x: 20, y: 4), .init(x: 14, y: 4), .init(x: 14, y: 10), .init(x: 10, y: 10),
    ])
    static let spots = [
        Spot(name: "r", x: 5, y: 5, floor: 0), Spot(name: "b", x: 12, y: 2, floor: 0),
        Spot(name: "corridor", x: 17, y: 8, floor: 0), Spot(name: "stage", x: 30, y: 5, floor: 0, zone: "Stage"),
    ]

    @Test("a point's zone is the polygon it lies in, concave ones too, edges included")
    func containment() {
        // Given the L-shaped bar
        // Then its inner corner's notch is outside and its arms inside, and an edge counts as inside
        #expect(Self.bar.contains(x: 12, y: 8))
        #expect(Self.bar.contains(x: 18, y: 2))
        #expect(!Self.bar.contains(x: 17, y: 8))
        #expect(Self.bar.contains(x: 20, y: 2))
        #expect(Self.bar.boundaryDistance(x: 17, y: 8) == 3)
    }

    @Test("spots without a zone take the polygon's; a spot's own zone wins; outside polygons, spot zones still work")
    func layout() {
        // Given a layout with the room and the bar drawn, and a stage named only by its spot
        let layout = ZoneLayout(spots: Self.spots, areas: [Self.room, Self.bar])
        // Then the spots inside polygons take them, and the others keep what they had
        #expect(layout.spots.map(\.zone) == ["Room", "Bar", nil, "Stage"])
        // And a point's zone is its polygon, else its nearest spot's zone unless that zone is drawn
        #expect(layout.zone(atX: 2, y: 2, floor: 0) == "Room")
        #expect(layout.zone(atX: 17, y: 9, floor: 0) == nil)
        #expect(layout.zone(atX: 29, y: 5, floor: 0) == "Stage")
        #expect(layout.zone(atX: 12, y: -1, floor: 0) == nil) // nearest spot is the bar's, but this is outside it
        #expect(layout.zone(atX: 2, y: 2, floor: 1) == nil)
    }

    @Test("hysteresis: a drawn zone is entered only 'margin' metres inside it and left only that far outside")
    func hysteresisWithPolygons() {
        // Given the room and the bar, a 1 m margin and 2 updates in a row
        let layout = ZoneLayout(spots: Self.spots, areas: [Self.room, Self.bar])
        var zones = ZoneHysteresis(margin: 1, requiredUpdates: 2)
        var events: [ZoneEvent] = []
        // When a device stands 0.5 m inside the room, then 3 m inside
        for t in 0..<4 { events += zones.update(x: 0.5, y: 5, floor: 0, zones: layout, time: Double(t)) }
        #expect(events.isEmpty)
        for t in 4..<6 { events += zones.update(x: 3, y: 5, floor: 0, zones: layout, time: Double(t)) }
        // Then it enters the room once it is clearly inside
        #expect(events == [ZoneEvent(kind: .enter, zone: "Room", time: 5)])
        // When it dithers across the wall to the bar (x = 9.6 ... 10.5) for a minute
        events = []
        for t in 6..<66 { events += zones.update(x: t % 2 == 0 ? 9.6 : 10.5, y: 5, floor: 0, zones: layout, time: Double(t)) }
        // Then nothing is emitted
        #expect(events.isEmpty)
        #expect(zones.currentZone == "Room")
        // And when it walks well into the bar, one exit and one enter follow
        for t in 66..<68 { events += zones.update(x: 12, y: 5, floor: 0, zones: layout, time: Double(t)) }
        #expect(events == [ZoneEvent(kind: .exit, zone: "Room", time: 67), ZoneEvent(kind: .enter, zone: "Bar", time: 67)])
        // And leaving the bar for the corridor needs the margin outside it
        events = []
        for t in 68..<72 { events += zones.update(x: 14.5, y: 8, floor: 0, zones: layout, time: Double(t)) }
        #expect(events.isEmpty)
        for t in 72..<74 { events += zones.update(x: 17, y: 8, floor: 0, zones: layout, time: Double(t)) }
        #expect(events == [ZoneEvent(kind: .exit, zone: "Bar", time: 73)])
    }

    @Test("polygons are checked: too few vertices, crossing edges, no area, unknown floor")
    func problems() {
        // Given broken polygons
        let line = ZoneArea(name: "Line", floor: 0, polygon: [.init(x: 0, y: 0), .init(x: 1, y: 1), .init(x: 2, y: 2)])
        let bowtie = ZoneArea(name: "Bow", floor: 0, polygon: [.init(x: 0, y: 0), .init(x: 4, y: 2), .init(x: 4, y: 0), .init(x: 0, y: 3)])
        let pair = ZoneArea(name: "Pair", floor: 3, polygon: [.init(x: 0, y: 0), .init(x: 2, y: 2)])
        // Then each says what is wrong, naming the zone
        #expect(line.problems(levels: [0]) == ["zone 'Line' on floor 0: the polygon encloses no area"])
        #expect(bowtie.problems(levels: [0]) == ["zone 'Bow' on floor 0: the polygon's edges 1 and 3 cross; list its vertices in order around it"])
        #expect(pair.problems(levels: [0]) == [
            "zone 'Pair' on floor 3: the venue does not define floor 3", "zone 'Pair' on floor 3: a polygon needs at least 3 vertices, it has 2",
        ])
        #expect(Self.bar.problems(levels: [0]).isEmpty)
    }

    @Test("a polygon is [[x, y], ...] in JSON, and a vertex of three numbers is refused")
    func json() throws {
        // Given the room as JSON
        let json = #"{"name":"Room","floor":0,"polygon":[[0,0],[10,0],[10,10],[0,10]]}"#
        // Then it decodes, and encodes back to the same members
        let decoded = try JSONDecoder().decode(ZoneArea.self, from: Data(json.utf8))
        #expect(decoded == Self.room)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(decoded), as: UTF8.self) == #"{"floor":0,"name":"Room","polygon":[[0,0],[10,0],[10,10],[0,10]]}"#)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ZoneArea.self, from: Data(#"{"name":"R","floor":0,"polygon":[[0,0,1],[1,0],[1,1]]}"#.utf8))
        }
    }
}
