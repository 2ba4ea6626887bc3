import Foundation
import Positioning
import Testing
import TestSupport

@Suite("BeaconID")
struct BeaconIDTests {
    @Test("parses its text form and prints it back with an upper-case UUID")
    func roundTrip() throws {
        // Given the text form with a lower-case UUID
        let text = "e2c56db5-dffb-48d2-b060-d0f5a71096e0:1:23"
        // When it is parsed
        let id = try BeaconID(parsing: text)
        // Then it prints upper-case and equals the upper-case spelling
        #expect(id.description == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:23")
        #expect(id == Fixtures.beacon(23))
    }

    @Test("rejects malformed identities with a message", arguments: [
        ("nope", "not a beacon identity"),
        ("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1", "not a beacon identity"),
        ("not-a-uuid:1:2", "is not a UUID"),
        ("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:70000:2", "outside 0...65535"),
        ("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:-1", "outside 0...65535"),
    ])
    func rejects(text: String, message: String) {
        #expect(throws: BeaconIDError.self) { try BeaconID(parsing: text) }
        do {
            _ = try BeaconID(parsing: text)
        } catch {
            #expect(error.description.contains(message))
        }
    }

    @Test("the parsing cache gives each text its own UUID and remembers only good parses")
    func parsingCache() throws {
        // Given a cache and texts that repeat, change case, change value and break
        var cache = UUIDParsingCache()
        let upper = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
        let other = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"
        // Then every answer is the plain parser's
        for text in [upper, upper, upper.lowercased(), other, "E2C5", other, "", upper] {
            #expect(cache.parse(text) == UUID(uuidString: text), "\(text)")
        }
        var uuids = UUIDParsingCache()
        #expect(throws: BeaconIDError.invalidUUID("nope")) {
            try BeaconID(uuidString: "nope", major: 1, minor: 2, cache: &uuids)
        }
        #expect(try BeaconID(uuidString: upper, major: 1, minor: 2, cache: &uuids) == BeaconID(uuidString: upper, major: 1, minor: 2))
        #expect(throws: BeaconIDError.outOfRange(field: "minor", value: 70000)) {
            try BeaconID(uuidString: upper, major: 1, minor: 70000, cache: &uuids)
        }
    }

    @Test("decodes from and encodes to JSON as a string")
    func codable() throws {
        // Given an identity in JSON
        let json = Data(#"["E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:7"]"#.utf8)
        // When decoded and encoded again
        let decoded = try JSONDecoder().decode([BeaconID].self, from: json)
        let encoded = try JSONEncoder().encode(decoded)
        // Then nothing changed
        #expect(decoded == [Fixtures.beacon(7)])
        #expect(String(decoding: encoded, as: UTF8.self) == String(decoding: json, as: UTF8.self))
    }

    @Test("identities sort as their text forms do")
    func ordering() throws {
        let texts = [
            "FFFFFFFF-0000-0000-0000-000000000000:1:1", "0A000000-0000-0000-0000-000000000000:2:1",
            "0A000000-0000-0000-0000-000000000000:1:9", "0A000000-0000-0000-0000-000000000000:1:10",
            "A0000000-0000-0000-0000-000000000000:0:0",
        ]
        let ids = try texts.map { try BeaconID(parsing: $0) }
        let byText = ids.sorted { ($0.uuid.uuidString, $0.major, $0.minor) < ($1.uuid.uuidString, $1.major, $1.minor) }
        #expect(ids.sorted() == byText)
    }
}
