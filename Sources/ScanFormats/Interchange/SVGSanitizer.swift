public import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// An SVG floor plan made safe to show in positiond's origin: what an SVG can do beyond drawing is taken
/// out at import, so a plan opened on its own (or embedded by a page that trusts it) runs nothing and
/// fetches nothing.
///
/// Taken out, each counted in ``removed``:
/// - elements that run or embed code, with everything inside them: `script`, `foreignObject` (it holds
///   HTML), `iframe`, `embed`, `object`, `handler`, `listener`, and animations (`set`, `animate`) that
///   rewrite a link or an event attribute;
/// - event attributes (`onload`, `onclick`, ...);
/// - links that leave the file: an `href` (any prefix, `xlink:href` too) other than a `#fragment` or an
///   inline PNG, JPEG, GIF or WebP (`data:image/png;base64,...`), and `xml:base`;
/// - `url(...)` references other than `url(#...)` in attributes and style sheets, `@import`, and
///   `javascript:` anywhere in a style;
/// - processing instructions (`<?xml-stylesheet href=...?>`) and the DOCTYPE (its DTD is an external
///   reference).
///
/// A file that cannot be made safe is refused with a sentence: one that is not well-formed XML, whose root
/// is not `<svg>`, or that declares entities (`<!ENTITY`: entity expansion is a classic denial of service,
/// and an external entity reads files).
///
/// When nothing had to go the author's bytes are kept as they are; otherwise the plan is written anew from
/// the parsed document (attributes in name order, comments dropped).
public struct SVGSanitizer: Sendable {
    /// The plan to store, and what was taken out of it (empty when the file was kept as it is).
    public struct Result: Sendable, Hashable {
        public var data: Data
        /// One phrase per kind of thing taken out: `2 <script> elements`, `1 event attribute (onload)`.
        public var removed: [String]
    }

    public init() {}

    /// Makes `data`, read from `path`, safe.
    ///
    /// - Throws: ``FloorPlanError`` naming `path` when the file cannot be made safe.
    public func sanitize(_ data: Data, path: String) throws(FloorPlanError) -> Result {
        // Checked on the bytes before parsing: the parser would expand the entities it is given.
        if data.range(of: Data("<!ENTITY".utf8)) != nil {
            throw FloorPlanError("\(path) declares XML entities (<!ENTITY ...>), which a floor plan may not: export the plan again without a DOCTYPE")
        }
        let rewriter = Rewriter()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = rewriter
        let parsed = parser.parse()
        if let refusal = rewriter.refusal {
            throw FloorPlanError("\(path) \(refusal)")
        }
        if let malformed = rewriter.malformed {
            throw FloorPlanError("\(path) is not well-formed XML (\(malformed)); a floor plan must be a valid SVG file")
        }
        guard parsed, rewriter.sawRoot, rewriter.balanced else {
            let reason = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "the parser stopped"
            throw FloorPlanError("\(path) is not well-formed XML (line \(parser.lineNumber), column \(parser.columnNumber): \(reason)); a floor plan must be a valid SVG file")
        }
        var removed = rewriter.removed.sorted { $0.key < $1.key }.map { kind, count in kind.phrase(count: count) }
        if data.range(of: Data("<!DOCTYPE".utf8)) != nil { removed.append("the DOCTYPE (its DTD is an external reference)") }
        guard !removed.isEmpty else { return Result(data: data, removed: []) }
        return Result(data: Data(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + rewriter.output).utf8), removed: removed)
    }
}

extension SVGSanitizer {
    /// What can be taken out of a plan, as counted.
    enum Removal: Hashable, Comparable {
        case element(String)
        case eventAttribute(String)
        case externalLink(String)
        case externalStyle(String)
        case processingInstruction

        func phrase(count: Int) -> String {
            let times = count == 1 ? "1" : "\(count)"
            switch self {
            case .element(let name): return "\(times) <\(name)> element\(count == 1 ? "" : "s")"
            case .eventAttribute(let name): return "\(times) event attribute\(count == 1 ? "" : "s") (\(name))"
            case .externalLink(let name): return "\(times) external link\(count == 1 ? "" : "s") (\(name))"
            case .externalStyle(let name): return "\(times) external style reference\(count == 1 ? "" : "s") (\(name))"
            case .processingInstruction: return "\(times) processing instruction\(count == 1 ? "" : "s")"
            }
        }
    }

    /// Elements dropped whole: they run code, hold HTML or embed other documents.
    static let droppedElements: Set<String> = ["script", "foreignobject", "iframe", "embed", "object", "handler", "listener"]
    /// Animations, dropped when they target a link or an event attribute.
    static let animations: Set<String> = ["set", "animate", "animatecolor", "animatemotion", "animatetransform"]

    static func localName(_ qualified: String) -> String {
        (qualified.split(separator: ":").last.map(String.init) ?? qualified).lowercased()
    }

    /// Whether an `href` stays in the file: a fragment, or an inline raster image.
    static func isSafeLink(_ value: String) -> Bool {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if trimmed.hasPrefix("#") { return true }
        return ["data:image/png;", "data:image/jpeg;", "data:image/jpg;", "data:image/gif;", "data:image/webp;"]
            .contains { trimmed.hasPrefix($0) }
    }

    /// Whether a style or presentation value reaches outside the file or runs script.
    static func isUnsafeStyle(_ value: String) -> Bool {
        let compact = value.lowercased().filter { !$0.isWhitespace && $0 != "\"" && $0 != "'" }
        if compact.contains("@import") || compact.contains("javascript:") || compact.contains("expression(") { return true }
        var rest = compact[...]
        while let open = rest.range(of: "url(") {
            rest = rest[open.upperBound...]
            if !rest.hasPrefix("#") { return true }
        }
        return false
    }

    /// Rebuilds the document from the parser's events, leaving out what is unsafe.
    final class Rewriter: NSObject, XMLParserDelegate {
        var output = ""
        var removed: [Removal: Int] = [:]
        var refusal: String?
        var sawRoot = false
        /// Why the document is not well-formed, where the parser itself did not say.
        var malformed: String?
        /// Whether every element opened was closed.
        var balanced: Bool { open.isEmpty && skipping == 0 }
        /// Depth inside a dropped element (0: not inside one).
        private var skipping = 0
        /// Names of the open elements written, and whether each has had content (else it closes as `/>`).
        private var open: [(name: String, hasContent: Bool)] = []
        /// The text of the `<style>` element being read, written (or dropped) when it closes.
        private var styleText: String?

        private func count(_ removal: Removal) { removed[removal, default: 0] += 1 }

        private func closeStartTag() {
            guard let last = open.last, !last.hasContent else { return }
            output += ">"
            open[open.count - 1].hasContent = true
        }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            let name = SVGSanitizer.localName(elementName)
            if !sawRoot {
                sawRoot = true
                guard name == "svg" else {
                    refusal = "is not an SVG image: its root element is <\(elementName)>, not <svg>"
                    parser.abortParsing()
                    return
                }
            }
            if skipping > 0 {
                skipping += 1
                return
            }
            let animatesUnsafe = SVGSanitizer.animations.contains(name) && attributes.contains { key, value in
                let target = SVGSanitizer.localName(value)
                return SVGSanitizer.localName(key) == "attributename" && (target == "href" || target.hasPrefix("on") || target == "style")
            }
            if SVGSanitizer.droppedElements.contains(name) || animatesUnsafe {
                count(.element(name == "foreignobject" ? "foreignObject" : name))
                skipping = 1
                return
            }
            closeStartTag()
            output += "<" + elementName
            for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
                let attribute = SVGSanitizer.localName(key)
                if attribute.hasPrefix("on") {
                    count(.eventAttribute(key))
                    continue
                }
                if attribute == "href", !SVGSanitizer.isSafeLink(value) {
                    count(.externalLink(key))
                    continue
                }
                if key.lowercased() == "xml:base" {
                    count(.externalLink(key))
                    continue
                }
                if SVGSanitizer.isUnsafeStyle(value) {
                    count(.externalStyle(key))
                    continue
                }
                output += " \(key)=\"\(Self.escape(value, attribute: true))\""
            }
            open.append((elementName, false))
            if name == "style" { styleText = "" }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            if skipping > 0 {
                skipping -= 1
                return
            }
            guard let last = open.popLast(), last.name == elementName else {
                // libxml2 recovers from some mismatched tags and lets parsing succeed; a plan must not.
                malformed = "line \(parser.lineNumber): </\(elementName)> closes \(open.last.map { "<\($0.name)>" } ?? "nothing")"
                parser.abortParsing()
                return
            }
            if let text = styleText, SVGSanitizer.localName(last.name) == "style" {
                styleText = nil
                if SVGSanitizer.isUnsafeStyle(text) {
                    count(.externalStyle("<style>"))
                } else if !text.isEmpty {
                    if !last.hasContent { output += ">" }
                    output += Self.escape(text, attribute: false) + "</\(last.name)>"
                    return
                }
            }
            output += last.hasContent ? "</\(last.name)>" : "/>"
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard skipping == 0, !open.isEmpty else { return }
            if styleText != nil {
                styleText! += string
                return
            }
            closeStartTag()
            output += Self.escape(string, attribute: false)
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            self.parser(parser, foundCharacters: String(decoding: CDATABlock, as: UTF8.self))
        }

        func parser(_ parser: XMLParser, foundProcessingInstructionWithTarget target: String, data: String?) {
            count(.processingInstruction)
        }

        static func escape(_ text: String, attribute: Bool) -> String {
            var escaped = ""
            escaped.reserveCapacity(text.utf8.count)
            for character in text {
                switch character {
                case "&": escaped += "&amp;"
                case "<": escaped += "&lt;"
                case ">": escaped += "&gt;"
                case "\"" where attribute: escaped += "&quot;"
                case "\n" where attribute: escaped += "&#10;"
                default: escaped.append(character)
                }
            }
            return escaped
        }
    }
}
