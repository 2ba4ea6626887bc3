import Foundation
import ScanFormats
import Positioning
import Testing

@Suite("Scan-log decoding: the fast path agrees with JSONDecoder")
struct ScanLogDecoderTests {
    static let demoLog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("venues/demo-hall/survey.jsonl")

    @Test("every line of the demo survey parses to exactly what JSONDecoder gives")
    func parserMatchesJSONDecoder() throws {
        let data = try Data(contentsOf: Self.demoLog)
        var strings = ScanLineParser.StringCache()
        var parsed = 0
        for line in data.split(separator: UInt8(ascii: "\n")) {
            let expected = try JSONDecoder().decode(ScanLine.self, from: line)
            let fast = line.withUnsafeBytes { ScanLineParser.parse($0, strings: &strings) }
            #expect(fast == expected)
            parsed += 1
        }
        #expect(parsed == 720)
    }

    @Test("unusual but valid JSON goes through one path or the other to the same line", arguments: [
        #"{"device":"a","t":1.5e3,"beacons":[],"extra":{"nested":[1,2,{"x":null}],"flag":true}}"#,
        #"{ "t" : 0.25 , "device" : "d\u00e9vice" , "beacons" : [ { "rssi" : -60.5 , "minor" : 2 , "major" : 1 , "uuid" : "e2c56db5-dffb-48d2-b060-d0f5a71096e0" } ] }"#,
        #"{"t":1,"device":"a","spot":null,"x":null,"y":null,"floor":null,"beacons":[{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1.0,"minor":7,"rssi":-70}]}"#,
        #"{"t":1,"device":"a\"b","beacons":[]}"#,
    ])
    func unusualLines(line: String) throws {
        let expected = try JSONDecoder().decode(ScanLine.self, from: Data(line.utf8))
        let decoded = ScanLogDecoder().decode(Data(line.utf8))
        #expect(decoded.errors.isEmpty)
        #expect(decoded.lines.first?.line == expected)
    }

    @Test("a log large enough to be decoded in parallel chunks keeps its lines, order and line numbers")
    func chunkedDecoding() throws {
        // Given 5,000 copies of the demo survey's first line (over 1 MB) with two broken lines
        let line = try String(decoding: Data(contentsOf: Self.demoLog).split(separator: UInt8(ascii: "\n"))[0], as: UTF8.self)
        var lines = Array(repeating: line, count: 5000)
        lines[1234] = "{broken"
        lines[4999] = #"{"t": 1}"#
        let data = Data((lines.joined(separator: "\n") + "\n").utf8)
        #expect(data.count > 1 << 20)
        // When decoded
        let decoded = ScanLogDecoder().decode(data)
        // Then every good line is there in order, and the bad ones are reported at their line numbers
        #expect(decoded.lines.count == 4998)
        #expect(decoded.lines.map(\.number) == (1...5000).filter { $0 != 1235 && $0 != 5000 })
        #expect(decoded.errors.map(\.line) == [1235, 5000])
    }

    @Test("a log decoded piece by piece gives the lines, numbers and errors of the whole", arguments: [1, 100, 1000, 1 << 20])
    func pieces(pieceBytes: Int) throws {
        // Given the demo survey's first 300 lines with blank and broken lines, and no newline at the end
        var lines = try Data(contentsOf: Self.demoLog).split(separator: UInt8(ascii: "\n")).prefix(300)
            .map { String(decoding: $0, as: UTF8.self) }
        lines[10] = ""
        lines[11] = "   "
        lines[150] = "{broken"
        lines[299] = #"{"t": 1}"#
        let data = Data(lines.joined(separator: "\n").utf8)
        // When decoded whole and in pieces of about `pieceBytes`
        let whole = ScanLogDecoder().decode(data)
        let pieces = ScanLogDecoder.Pieces(data, pieceBytes: pieceBytes)
        // (decoded last to first: each piece stands alone)
        var decoded: [(lines: [(number: Int, line: ScanLine)], errors: [ScanLogDecoder.LineError])] = []
        for index in (0..<pieces.count).reversed() { decoded.insert(pieces.decode(index), at: 0) }
        let lines2 = decoded.flatMap(\.lines)
        let errors = decoded.flatMap(\.errors)
        // Then both agree, and the pieces cover the whole log, end to end
        #expect(lines2.map(\.number) == whole.lines.map(\.number))
        #expect(lines2.map(\.line) == whole.lines.map(\.line))
        #expect(errors == whole.errors)
        #expect(errors.map(\.line) == [151, 300])
        #expect(pieces.bounds.first?.bytes.lowerBound == 0)
        #expect(pieces.bounds.last?.bytes.upperBound == data.count)
        #expect(zip(pieces.bounds, pieces.bounds.dropFirst()).allSatisfy { $0.bytes.upperBound == $1.bytes.lowerBound })
        #expect(pieceBytes >= data.count ? pieces.count == 1 : pieces.count > 1)
    }
}

