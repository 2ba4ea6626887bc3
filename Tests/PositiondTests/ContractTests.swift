import FingerprintStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ScanFormats
import positiond
import Testing
import VenueSimulator
import Yams

@Suite("the HTTP contract: openapi.yaml, the generated types and the served document")
struct ContractTests {
    @Test("/openapi.json is openapi.yaml, and every response schema it names has a generated type")
    func servedDocumentIsTheSource() async throws {
        // Given the spec file in the source tree
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/positiond/openapi.yaml")
        let text = try String(contentsOf: source, encoding: .utf8)
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        try await app.test(.router) { client in
            // When the daemon serves its document
            let served = try await client.call(.get, "/openapi.json")
            // Then it is the same document, operation for operation
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: served.body)) as? NSDictionary)
            let yaml = try #require(try Yams.load(yaml: text) as? NSDictionary)
            #expect(json.isEqual(yaml))
            #expect(((json["paths"] as? NSDictionary)?.count ?? 0) == 35)
        }
        // And the contract check can decode every schema a response names
        #expect(try Contract.shared.get().undecodableSchemas == [])
    }

    @Test("the contract check refuses bodies that drift from the document", arguments: [
        // An unknown member where the schema forbids them
        (200, "application/json", #"{"status": "alive", "uptime": 3}"#, "not a Health"),
        // A required member missing
        (200, "application/json", #"{}"#, "not a Health"),
        // A value outside the enum
        (200, "application/json", #"{"status": "dead"}"#, "not a Health"),
        // A status the operation does not document
        (201, "application/json", #"{"status": "alive"}"#, "not a documented response"),
        // A content type it does not document
        (200, "text/html", #"{"status": "alive"}"#, "is not documented"),
    ])
    func refusesDrift(status: Int, contentType: String, body: String, problem: String) throws {
        let problems = try Contract.shared.get().problems(
            method: "GET", path: "/healthz", status: status, contentType: contentType, body: Data(body.utf8))
        #expect(problems.contains { $0.contains(problem) }, "\(problems)")
        // While the right body passes
        #expect(try Contract.shared.get().problems(
            method: "GET", path: "/healthz", status: 200, contentType: "application/json", body: Data(#"{"status": "alive"}"#.utf8)) == [])
    }

    @Test("a locate answer with a wrong type deep inside is refused")
    func refusesDeepDrift() throws {
        let body = #"{"candidates": [{"distance": "far", "floor": 0, "spot": "A"}], "matched_beacons": 1, "revision": 1, "status": "located", "unmapped_beacons": [], "venue": "v"}"#
        let problems = try Contract.shared.get().problems(
            method: "POST", path: "/v1/venues/v/locate", status: 200, contentType: "application/json", body: Data(body.utf8))
        #expect(problems.contains { $0.contains("not a Locate") }, "\(problems)")
    }

    @Test("a plan whose bytes are not the media type it is served as is refused")
    func refusesMislabelledImage() throws {
        let problems = try Contract.shared.get().problems(
            method: "GET", path: "/v1/venues/v/floors/0/plan", status: 200, contentType: "image/png", body: Data("<svg/>".utf8))
        #expect(problems == ["the body is not image/png"])
        #expect(try Contract.shared.get().problems(
            method: "GET", path: "/v1/venues/v/floors/0/plan", status: 200, contentType: "image/svg+xml", body: Data("<svg/>".utf8)) == [])
    }

    @Test("generated routes answer the API's errors: wrong content type 415, malformed JSON 400, body over the limit 413")
    func generatedRouteErrors() async throws {
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        let walk = try TestEnvironment.walk
        try await app.test(.router) { client in
            // Given the generated proximity route and a body that is not JSON by its type
            let typed = try await client.execute(
                uri: "/v1/venues/demo-hall/proximity", method: .post, headers: [.contentType: "text/plain"],
                body: ByteBuffer(string: TestEnvironment.body([walk[0]])))
            #expect(typed.status == .unsupportedMediaType)
            #expect(typed.errorMessage.contains("application/json"))
            // The hot routes, hand-registered, say the same
            let hot = try await client.execute(
                uri: "/v1/venues/demo-hall/locate", method: .post, headers: [.contentType: "text/plain"],
                body: ByteBuffer(string: TestEnvironment.body([walk[0]])))
            #expect(hot.status == .unsupportedMediaType)
            #expect(hot.errorMessage == typed.errorMessage)
            // Malformed JSON names the field, through the generated decoder
            let malformed = try await client.call(.post, "/v1/venues/demo-hall/proximity", body: #"{"samples": [{"beacons": [{"uuid": 7}]}]}"#)
            #expect(malformed.status == .badRequest)
            #expect(malformed.errorMessage.contains("samples[0].beacons[0].uuid"), "\(malformed.errorMessage)")
            // A body over the limit is refused before anything decodes it
            let huge = "{\"samples\": [], \"padding\": \"" + String(repeating: "x", count: 70_000) + "\"}"
            let tooLarge = try await client.call(.post, "/v1/venues/demo-hall/proximity", body: huge)
            #expect(tooLarge.status == .contentTooLarge)
            // A path parameter that is not a number is a 400 that says so
            let level = try await client.call(.get, "/v1/venues/demo-hall/floors/first/plan")
            #expect(level.status == .badRequest)
            #expect(level.errorMessage == "a path or query parameter of /v1/venues/demo-hall/floors/first/plan should be an integer", "\(level.errorMessage)")
            // A device id with spaces is refused on the generated read route too
            let device = try await client.call(.get, "/v1/venues/demo-hall/devices/a%20b")
            #expect(device.status == .unprocessableContent)
        }
    }

    @Test("proximity reasons are typed: a stable code and a message")
    func proximityReasonIsTyped() async throws {
        let app = try await TestEnvironment.app(store: try TestEnvironment.demoStore())
        let uuid = SimulatedVenues.uuid
        try await app.test(.router) { client in
            // Given two beacons heard almost equally in every sample
            let sample = #"{"beacons": [{"uuid": "\#(uuid)", "major": 1, "minor": 1, "rssi": -60}, {"uuid": "\#(uuid)", "major": 1, "minor": 3, "rssi": -62}]}"#
            let response = try await client.call(
                .post, "/v1/venues/demo-hall/proximity", body: "{\"samples\": [" + Array(repeating: sample, count: 5).joined(separator: ",") + "]}")
            // Then the decision is undecided, and the generated type reads the reason's code
            let proximity = try APIJSON.decoder.decode(Components.Schemas.Proximity.self, from: Data(buffer: response.body))
            #expect(proximity.decision == .undecided)
            #expect(proximity.reason?.code == .marginTooSmall)
            #expect(proximity.reason?.message.contains("dB") == true)
        }
    }
}
