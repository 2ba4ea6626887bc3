import FingerprintStore
import Foundation
import HummingbirdTesting
import Positioning
import positiond
import Testing

@Suite("positiond zone polygons")
struct ZoneRouteTests {
    @Test("the venue and its coverage give the drawn zones, and the spots' zones resolved from them")
    func drawnZones() async throws {
        // Given demo-hall, whose spots name no zone and whose six rooms are drawn as polygons
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        try await app.test(.router) { client in
            // When the venue and its coverage are read
            let venue = try await client.call(.get, "/v1/venues/demo-hall")
            let coverage = try await client.call(.get, "/v1/venues/demo-hall/coverage")
            // Then both list the six polygons, floor by floor
            for response in [venue, coverage] {
                let zones = try #require(response.json["zones"] as? [[String: Any]])
                #expect(zones.compactMap { $0["name"] as? String } == ["Entrance", "Main hall", "Bar", "Gallery west", "Meeting rooms", "Gallery east"])
                #expect(zones[2]["floor"] as? Int == 0)
                #expect(zones[2]["polygon"] as? [[Double]] == [[31, 0], [40, 0], [40, 24], [31, 24]])
            }
            // And every spot carries the zone of the room it stands in
            let spots = try #require(venue.json["spots"] as? [[String: Any]])
            let zoneOfSpot = Dictionary(uniqueKeysWithValues: spots.map { ($0["name"] as! String, $0["zone"] as? String) })
            #expect(zoneOfSpot["G-A1"] == "Entrance" && zoneOfSpot["G-F3"] == "Bar" && zoneOfSpot["U-D3"] == "Meeting rooms")
            #expect(spots.allSatisfy { $0["zone"] != nil })
        }
    }

    @Test("a device walking from the entrance through the hall into the bar enters each room once, by its polygon")
    func walkThroughRooms() async throws {
        // Given the ground-floor part of the demo walk, which ends in the bar
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        let ground = try TestEnvironment.walk.prefix { $0.floor == 0 }
        #expect(try #require(ground.last?.x) > 31, "the walk's ground floor leg ends in the bar")
        try await app.test(.router) { client in
            // When it is posted one sample at a time
            var entered: [String] = []
            var last: TestResponse?
            for line in ground {
                let response = try await client.call(.post, "/v1/venues/demo-hall/devices/walker/samples", body: TestEnvironment.body([line]))
                #expect(response.status == .ok)
                entered += (response.json["events"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "enter" }.compactMap { $0["zone"] as? String }
                last = response
            }
            // Then it entered the three rooms in order, once each, and stands in the bar
            #expect(entered == ["Entrance", "Main hall", "Bar"])
            let state = try #require(last)
            #expect(state.json["zone"] as? String == "Bar")
            #expect((state.json["position"] as? [String: Any])?["zone"] as? String == "Bar")
        }
    }
}
