import FingerprintStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import Logging
import Positioning
import positiond
import ScanFormats
import Synchronization
import Testing
import VenueSimulator

@Suite("the web pages, coverage and live tickets")
struct WebTests {
    @Test("the pages and their files are served with their media types; nothing else is")
    func pagesAndFiles() async throws {
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        try await app.test(.router) { client in
            // The venue list and the map are HTML that load their own scripts and Leaflet from this daemon
            let list = try await client.call(.get, "/")
            #expect(list.status == .ok)
            #expect(list.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(list.text.contains("/web/venues.js"))
            let map = try await client.call(.get, "/venues/demo-hall/map")
            #expect(map.text.contains("/web/map.js") && map.text.contains("/web/leaflet/leaflet.js"))
            // Their files come with their media types, Leaflet from the system's folder (make installs it)
            let script = try await client.call(.get, "/web/map.js")
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.text.contains("L.CRS.Simple"))
            #expect(try await client.call(.get, "/web/map.css").headers[.contentType] == "text/css; charset=utf-8")
            let leaflet = try await client.call(.get, "/web/leaflet/leaflet.js")
            #expect(leaflet.status == .ok, "libjs-leaflet must be installed (make deps)")
            #expect(try await client.call(.get, "/web/leaflet/images/layers.png").headers[.contentType] == "image/png")
            // Nothing outside the two lists is served, however it is named
            for path in ["/web/nothing.js", "/web/map.html", "/web/..%2F..%2Fetc%2Fpasswd", "/web/leaflet/..%2Fjquery%2Fjquery.js"] {
                #expect(try await client.call(.get, path).status == .notFound, "\(path)")
            }
        }
    }

    @Test("coverage counts each spot's fingerprints and flags thin spots; beacons carry their state")
    func coverage() async throws {
        // Given the demo venue with one beacon replaced and another removed
        let store = try await TestEnvironment.demoStore()
        let uuid = SimulatedVenues.uuid
        let replaced = try BeaconID(parsing: "\(uuid):1:1"), successor = try BeaconID(parsing: "\(uuid):9:1")
        let removed = try BeaconID(parsing: "\(uuid):1:2")
        _ = try await store.replaceBeacon(ReplacementRequest(venue: "demo-hall", old: replaced, new: successor), scale: PositioningConfiguration.defaultScale)
        _ = try await store.replaceBeacon(ReplacementRequest(venue: "demo-hall", old: removed, new: nil), scale: PositioningConfiguration.defaultScale)
        let app = try await TestEnvironment.app(store: store)
        try await app.test(.router) { client in
            // When the map asks for the coverage
            let response = try await client.call(.get, "/v1/venues/demo-hall/coverage")
            let coverage = try APIJSON.decoder.decode(Components.Schemas.Coverage.self, from: Data(buffer: response.body))
            // Then every spot is there with its fingerprints, which add up to the venue's, and its thin spots
            // are the ones `survey stats` names
            let venue = try APIJSON.decoder.decode(
                Components.Schemas.VenueList.self, from: Data(buffer: try await client.call(.get, "/v1/venues").body)).venues[0]
            #expect(coverage.spots.count == venue.spots)
            #expect(coverage.spots.map(\.fingerprints).reduce(0, +) == venue.fingerprints)
            #expect(Set(coverage.spots.filter(\.thin).map(\.name)) == Set(try await store.stats(of: "demo-hall").thinSpots.map(\.spot)))
            #expect(coverage.spots.allSatisfy { $0.thin == ($0.fingerprints < 3 || $0.medianBeacons < 3) })
            // And the beacons are active, replaced (naming the successor) or retired
            let byID = Dictionary(uniqueKeysWithValues: coverage.beacons.map { ($0.id, $0) })
            #expect(byID[replaced.description]?.status == .replaced)
            #expect(byID[replaced.description]?.replacedBy == successor.description)
            #expect(byID[removed.description]?.status == .retired)
            #expect(byID[successor.description]?.status == .active)
            #expect(coverage.beacons.count == byID.count)
        }
    }

    @Test("coverage carries each spot's cross-validation error once the venue is tuned, and none before")
    func crossValidationErrors() async throws {
        // Given demo-hall recorded but not tuned
        let store = try await TestEnvironment.untunedDemoStore()
        let untuned = try await TestEnvironment.app(store: store)
        try await untuned.test(.router) { client in
            // When the map asks for its coverage
            let response = try await client.call(.get, "/v1/venues/demo-hall/coverage")
            let coverage = try APIJSON.decoder.decode(Components.Schemas.Coverage.self, from: Data(buffer: response.body))
            // Then no spot has an error to colour by, and nothing says the venue was tuned
            #expect(!coverage.spots.isEmpty)
            #expect(coverage.spots.allSatisfy { $0.crossValidation == nil })
            #expect(coverage.tunedRevision == nil)
        }
        // When the venue is tuned, as `survey tune` stores it
        let result = try await TestEnvironment.demoTuning.value
        let stored = try await store.saveTuning(result, of: "demo-hall", surveyRevision: try store.venue("demo-hall").revision, seconds: 0)
        let tuned = try await TestEnvironment.app(store: store)
        try await tuned.test(.router) { client in
            let response = try await client.call(.get, "/v1/venues/demo-hall/coverage")
            let coverage = try APIJSON.decoder.decode(Components.Schemas.Coverage.self, from: Data(buffer: response.body))
            // Then every surveyed spot carries the error the tuning measured, and the coverage its revision
            #expect(coverage.tunedRevision == stored.revision)
            let errors = Dictionary(uniqueKeysWithValues: try #require(result.spotErrors).map { ($0.name, $0) })
            let surveyed = coverage.spots.filter { $0.fingerprints > 0 }
            #expect(!surveyed.isEmpty)
            for spot in coverage.spots {
                let expected = errors[spot.name]
                #expect(spot.crossValidation?.meanErrorM == expected?.meanError, "\(spot.name)")
                #expect(spot.crossValidation?.located == expected?.located && spot.crossValidation?.unknown == expected?.unknown, "\(spot.name)")
            }
            #expect(surveyed.allSatisfy { $0.crossValidation != nil })
            // And the errors are of located fingerprints: a mean in metres whenever one was located
            #expect(coverage.spots.compactMap(\.crossValidation).allSatisfy { ($0.meanErrorM != nil) == ($0.located > 0) })
            #expect(coverage.spots.compactMap(\.crossValidation?.meanErrorM).allSatisfy { $0 >= 0 && $0.isFinite })
        }
    }

    @Test("a ticket is good once, for its venue, until it expires; waiting tickets are capped")
    func ticketRules() throws {
        // Given tickets that live 30 s, at most 2 waiting
        let tickets = LiveTickets(lifetime: .seconds(30), maximumPending: 2)
        let start = ContinuousClock.now
        let first = try tickets.issue(venue: "hall", scope: .locate, client: "k", now: start)
        let second = try tickets.issue(venue: "hall", scope: .admin, client: "k", now: start)
        // Then a third waits for a place, which expired tickets free
        #expect(throws: LiveTickets.Refusal.self) { try tickets.issue(venue: "hall", scope: nil, client: "k", now: start) }
        // A ticket is refused for another venue, and used up by trying
        #expect(tickets.redeem(first, venue: "other", now: start) == nil)
        #expect(tickets.redeem(first, venue: "hall", now: start) == nil)
        // After its lifetime it is refused; in time it carries its key's scope, once
        #expect(tickets.redeem(second, venue: "hall", now: start + .seconds(31)) == nil)
        let third = try tickets.issue(venue: "hall", scope: .admin, client: "k", now: start + .seconds(31))
        #expect(tickets.redeem(third, venue: "hall", now: start + .seconds(40))?.scope == .admin)
        #expect(tickets.redeem(third, venue: "hall", now: start + .seconds(40)) == nil)
        #expect(tickets.redeem("made-up", venue: "hall", now: start) == nil)
    }

    @Test("a live ticket opens the feed once, with its key's scope, and is no key for anything else")
    func liveTickets() async throws {
        // Given a daemon with a locate key
        let store = try await TestEnvironment.demoStore()
        let app = try await store.createKey(name: "app", scope: .locate)
        let daemon = try await TestEnvironment.app(store: store)
        try await daemon.test(.live) { client in
            func ticket(_ venue: String = "demo-hall") async throws -> String {
                let response = try await client.executeRequest(
                    uri: "/v1/venues/\(venue)/live/tickets", method: .post, headers: [.authorization: "Bearer \(app.token)"], body: nil)
                #expect(response.status == .created)
                return try APIJSON.decoder.decode(Components.Schemas.LiveTicket.self, from: Data(buffer: response.body)).ticket
            }
            func firstMessage(_ query: String) async throws -> String? {
                let received = Mutex<String?>(nil)
                _ = try await client.ws("/v1/venues/demo-hall/live?\(query)") { inbound, _, _ in
                    for try await message in inbound.messages(maxSize: 1 << 16) {
                        if case .text(let text) = message { received.withLock { $0 = text } }
                        break
                    }
                }
                return received.withLock { $0 }
            }
            // When a ticket of the locate key opens one device's feed
            let first = try await ticket()
            let hello = try await firstMessage("device=phone-1&ticket=\(first)")
            // Then the socket is subscribed
            #expect(hello?.contains(#""type":"subscribed""#) == true)
            // And the same ticket does not work twice
            await #expect(throws: (any Error).self) { _ = try await firstMessage("device=phone-1&ticket=\(first)") }
            // Nor for the venue-wide feed, which needs admin: the ticket carries the key's scope
            let second = try await ticket()
            await #expect(throws: (any Error).self) { _ = try await firstMessage("ticket=\(second)") }
            // And a ticket is no key for any other route
            let other = try await ticket()
            let refused = try await client.executeRequest(uri: "/v1/venues?ticket=\(other)", method: .get, headers: [:], body: nil)
            #expect(refused.status == .unauthorized)
        }
    }
}
