import Foundation
import ScanFormats
import Positioning
import PropertyBased
import Synchronization
import Testing

/// The fast parser promises to change speed, never results: whatever it accepts, `JSONDecoder` accepts
/// with the same values (what it declines goes to `JSONDecoder` anyway). Random and mutated bodies and
/// lines hold it to that promise.
@Suite("Fast parser: differential fuzzing against JSONDecoder")
struct ParserDifferentialTests {
    /// positiond's request body, decoded the way its fallback decodes it.
    struct SamplesDocument: Decodable {
        struct Sample: Decodable {
            var t: Double?
            var device: String?
            var beacons: [ScanLine.BeaconReading]
        }

        var samples: [Sample]
    }

    /// Bodies compared, and how many of them the fast path took (a fuzz that only ever hits the fallback
    /// would prove nothing).
    static let counts = Mutex((bodies: 0, fastBodies: 0, lines: 0, fastLines: 0))

    /// Cases per property: 20,000 in `make test`; `PARSER_FUZZ_CASES=500000` for a longer hunt.
    static let cases = ProcessInfo.processInfo.environment["PARSER_FUZZ_CASES"].flatMap(Int.init) ?? 20_000

    @Test("random and mutated request bodies: whatever the fast path accepts, JSONDecoder accepts with the same values")
    func samplesDocuments() async {
        // Given 20,000 generated bodies, 40% of them well formed and the rest mutated
        await propertyCheck(count: Self.cases, input: Gen.uint64(in: 0 ... .max)) { seed in
            var generator = JSONFuzzer(seed: seed)
            let body = generator.samplesBody()
            // When both paths read it
            let bytes = Array(body.utf8)
            let fast = bytes.withUnsafeBytes { ScanLineParser.parseSamplesDocument($0) }
            let slow = try? JSONDecoder().decode(SamplesDocument.self, from: Data(bytes))
            // Then an acceptance by the fast path is an acceptance by JSONDecoder, value for value
            Self.counts.withLock { $0.bodies += 1; if fast != nil { $0.fastBodies += 1 } }
            guard let fast else { return }
            guard let slow else {
                Issue.record("the fast path accepted a body JSONDecoder refuses: \(body)")
                return
            }
            #expect(fast.count == slow.samples.count, "\(body)")
            for (mine, theirs) in zip(fast, slow.samples) {
                #expect(mine.t == theirs.t && mine.device == theirs.device && mine.beacons == theirs.beacons, "\(body)")
                #expect(mine.t?.isFinite ?? true && mine.beacons.allSatisfy(\.rssi.isFinite), "\(body)")
            }
        }
        let counts = Self.counts.withLock { $0 }
        print("differential fuzz: \(counts.bodies) bodies, \(counts.fastBodies) taken by the fast path")
        #expect(counts.fastBodies > counts.bodies / 10, "too few generated bodies reach the fast path to test it")
    }

    @Test("random and mutated scan-log lines: the line parser agrees with JSONDecoder")
    func scanLines() async {
        await propertyCheck(count: Self.cases, input: Gen.uint64(in: 0 ... .max)) { seed in
            var generator = JSONFuzzer(seed: seed)
            let line = generator.scanLine()
            let bytes = Array(line.utf8)
            var strings = ScanLineParser.StringCache()
            let fast = bytes.withUnsafeBytes { ScanLineParser.parse($0, strings: &strings) }
            let slow = try? JSONDecoder().decode(ScanLine.self, from: Data(bytes))
            Self.counts.withLock { $0.lines += 1; if fast != nil { $0.fastLines += 1 } }
            guard let fast else { return }
            #expect(slow == fast, "\(line)")
        }
        let counts = Self.counts.withLock { $0 }
        print("differential fuzz: \(counts.lines) lines, \(counts.fastLines) taken by the fast path")
        #expect(counts.fastLines > counts.lines / 10, "too few generated lines reach the fast path to test it")
    }

    @Test("numbers beyond Double, and values nested without end, leave the fast path without a crash", arguments: [
        #"{"samples": [{"t": 1e999, "beacons": []}]}"#,
        // Foundation refuses `0e5` (valid JSON) but takes `0e10`: the fast path leaves both to it.
        #"{"samples": [{"t": 0e5, "beacons": []}]}"#,
        #"{"samples": [{"t": 1, "beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 1, "rssi": -1e400}]}]}"#,
        #"{"samples": [{"beacons": []}], "junk": "# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}",
        #"{"samples": [{"beacons": [], "x": "# + String(repeating: #"{"a":"#, count: 50_000) + "1" + String(repeating: "}", count: 50_000) + "}]}",
    ])
    func hostileBodies(body: String) {
        // When the fast path reads a hostile body
        let fast = Array(body.utf8).withUnsafeBytes { ScanLineParser.parseSamplesDocument($0) }
        // Then it declines it (JSONDecoder, with its own limits, decides) and never returns infinity
        #expect(fast == nil)
    }
}

/// Generates JSON bodies and lines from a seed: valid ones in the documented shape with unusual but legal
/// spellings, then, for most, random mutations (bytes deleted, inserted, duplicated, cut).
struct JSONFuzzer {
    private var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    private mutating func next() -> UInt64 { random.next() }

    private mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    private mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    private mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

    private mutating func space() -> String { chance(80) ? "" : pick([" ", "\n", "\t", "  ", "\r\n"]) }

    mutating func number() -> String {
        pick([
            "\(below(2000) - 1000)", "-\(below(120))", "\(below(100)).\(below(1000))", "1795000000", "1795000000.25",
            "1e3", "1.5E+2", "-2e-3", "0", "-0", "0.0", "1e999", "-1e999", "1e-400", "01", "1.", ".5", "+1", "1e", "--1",
            "123456789012", "9007199254740993", "70000", "65535", "-1", "1.0", "2.5", "1e2", "NaN", "Infinity", "\"1\"", "null",
            "true",
        ])
    }

    mutating func string() -> String {
        pick([
            #""phone-1""#, #""""#, #""a\"b""#, #""d\u00e9vice""#, #""tab\there""#, "\"\u{e9}t\u{e9}\"", #""\/""#, #""x""#,
            #""E2C56DB5-DFFB-48D2-B060-D0F5A71096E0""#, #""e2c56db5-dffb-48d2-b060-d0f5a71096e0""#, #""not-a-uuid""#,
            "\"\u{1}\"", #""\ud83d\ude00""#,
        ])
    }

    mutating func anyValue(depth: Int = 0) -> String {
        switch below(depth > 3 ? 4 : 6) {
        case 0: return number()
        case 1: return string()
        case 2: return pick(["true", "false", "null"])
        case 3: return pick(["[]", "{}"])
        case 4: return "[" + (0..<below(4)).map { _ in anyValue(depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            return "{" + (0..<below(4)).map { _ in "\(pick([#""k""#, #""t""#, #""rssi""#, #""nested""#])):\(anyValue(depth: depth + 1))" }
                .joined(separator: ",") + "}"
        }
    }

    mutating func reading() -> String {
        var fields = [
            #""uuid":"# + space() + (chance(95) ? #""E2C56DB5-DFFB-48D2-B060-D0F5A71096E0""# : string()),
            #""major":"# + space() + (chance(92) ? "\(below(5))" : number()),
            #""minor":"# + space() + (chance(92) ? "\(below(20))" : number()),
            #""rssi":"# + space() + (chance(92) ? "-\(40 + below(60))" : number()),
        ]
        if chance(10) { fields.removeLast(below(2) + 1) }
        if chance(15) { fields.append(#""extra":"# + anyValue()) }
        if chance(5) { fields.append(fields[below(fields.count)]) }
        shuffle(&fields)
        return "{" + space() + fields.joined(separator: "," + space()) + space() + "}"
    }

    mutating func sampleFields(line: Bool) -> [String] {
        var fields: [String] = []
        if line || chance(70) { fields.append(#""t":"# + space() + (chance(92) ? "\(1_795_000_000 + below(100_000))" : number())) }
        if line || chance(40) { fields.append(#""device":"# + space() + (chance(92) ? #""phone-\#(below(9))""# : string())) }
        if line, chance(60) {
            fields.append(#""spot":"# + (chance(80) ? #""p\#(below(9))""# : "null"))
            fields.append(#""x":"# + (chance(80) ? "\(below(40)).5" : number()))
            fields.append(#""y":"# + (chance(80) ? "\(below(20))" : number()))
            fields.append(#""floor":"# + (chance(80) ? "\(below(3))" : number()))
        }
        fields.append(#""beacons":"# + space() + "[" + (0..<below(5)).map { _ in reading() }.joined(separator: ",") + "]")
        if chance(15) { fields.append(#""extra":"# + anyValue()) }
        if chance(5) { fields.append(fields[below(fields.count)]) }
        shuffle(&fields)
        return fields
    }

    mutating func samplesBody() -> String {
        let samples = (0..<(1 + below(4))).map { _ in "{" + sampleFields(line: false).joined(separator: ",") + "}" }
        var top = [#""samples":"# + space() + "[" + samples.joined(separator: "," + space()) + "]"]
        if chance(15) { top.append(#""meta":"# + anyValue()) }
        shuffle(&top)
        return mutated(space() + "{" + top.joined(separator: ",") + "}" + space())
    }

    mutating func scanLine() -> String {
        mutated("{" + sampleFields(line: true).joined(separator: ",") + "}")
    }

    /// `text` unchanged 40% of the time, otherwise with 1 to 3 random edits.
    private mutating func mutated(_ text: String) -> String {
        guard chance(60) else { return text }
        var bytes = Array(text.utf8)
        for _ in 0..<(1 + below(3)) where !bytes.isEmpty {
            let at = below(bytes.count)
            switch below(5) {
            case 0: bytes.remove(at: at)
            case 1: bytes.insert(pick(Array(#"{}[]",:"\-+.0123456789eE tnul"#.utf8)), at: at)
            case 2: bytes[at] = pick(Array(#"{}[]",:"\-.019eE x"#.utf8))
            case 3:
                let end = min(bytes.count, at + 1 + below(12))
                bytes.insert(contentsOf: bytes[at..<end], at: end)
            default: bytes.removeSubrange(at...)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func shuffle(_ values: inout [String]) {
        guard values.count > 1 else { return }
        for index in stride(from: values.count - 1, to: 0, by: -1) { values.swapAt(index, below(index + 1)) }
    }
}
