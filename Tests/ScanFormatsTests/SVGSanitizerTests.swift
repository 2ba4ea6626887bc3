import Foundation
import ScanFormats
import Testing

@Suite("SVG floor plans made safe at import")
struct SVGSanitizerTests {
    /// A plan that tries every way an SVG can run script, load something or read a file, around drawing
    /// that must survive.
    static let hostile = #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <?xml-stylesheet href="http://evil.example/x.css"?>
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 40 24" onload="alert(1)">
          <script>document.title = 'pwned'</script>
          <style>@import url(http://evil.example/a.css); rect { fill: #eee }</style>
          <style>.wall { stroke: #333 }</style>
          <defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs>
          <rect class="wall" x="0" y="0" width="40" height="24" fill="url(#g)" onclick="steal()"/>
          <rect x="1" y="1" width="2" height="2" style="background: url(http://evil.example/track.png)"/>
          <a xlink:href="javascript:alert(2)"><text x="2" y="12">Main hall &amp; bar</text></a>
          <use href="#g"/>
          <image href="http://evil.example/x.png" width="1" height="1"/>
          <image xlink:href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/>
          <foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml"><iframe src="x"/></div></foreignObject>
          <set attributeName="href" to="javascript:alert(3)"/>
          <svg:script xmlns:svg="http://www.w3.org/2000/svg">alert(4)</svg:script>
        </svg>
        """#

    @Test("a hostile plan keeps its drawing and loses every script, event attribute and external reference")
    func hostilePlan() throws {
        // Given a plan with scripts, event attributes, external links and styles, and a processing instruction
        // When it is imported
        let imported = try FloorPlanImage.importing(Data(Self.hostile.utf8), path: "plans/ground.svg")
        let text = String(decoding: imported.image.data, as: UTF8.self)

        // Then nothing that runs or loads is left
        for banned in ["<script", "script>", "onload", "onclick", "javascript:", "evil.example", "foreignObject", "iframe", "<set", "@import", "xml-stylesheet"] {
            #expect(!text.contains(banned), "\(banned) is still in the plan: \(text)")
        }
        // And the drawing, local references and inline images are kept, escaped as they were
        for kept in ["viewBox=\"0 0 40 24\"", "fill=\"url(#g)\"", "class=\"wall\"", ".wall { stroke: #333 }", "Main hall &amp; bar",
                     "<use href=\"#g\"/>", "data:image/png;base64,iVBORw0KGgo=", "<linearGradient id=\"g\">"] {
            #expect(text.contains(kept), "\(kept) is missing from the plan: \(text)")
        }
        // And what went is said, kind by kind
        #expect(imported.removed.contains("2 <script> elements"))
        #expect(imported.removed.contains("1 event attribute (onload)"))
        #expect(imported.removed.contains("1 event attribute (onclick)"))
        #expect(imported.removed.contains("1 external link (xlink:href)"))
        #expect(imported.removed.contains("1 external link (href)"))
        #expect(imported.removed.contains("1 <foreignObject> element"))
        #expect(imported.removed.contains("1 <set> element"))
        #expect(imported.removed.contains("1 external style reference (style)"))
        #expect(imported.removed.contains("1 external style reference (<style>)"))
        #expect(imported.removed.contains("1 processing instruction"))
        // And the result is still an SVG whose size is read as before
        #expect(imported.image.mediaType == .svg)
        #expect(imported.image.pixelSize == PixelSize(width: 40, height: 24))
        // And it is safe as it stands: importing it again takes nothing out
        let again = try FloorPlanImage.importing(imported.image.data, path: "plans/ground.svg")
        #expect(again.removed.isEmpty)
        #expect(again.image.data == imported.image.data)
    }

    @Test("a clean plan is stored byte for byte")
    func cleanPlanKept() throws {
        // Given the demo venue's ground plan, drawn without script
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("venues/demo-hall/plans/ground.svg")
        let data = try Data(contentsOf: url)
        // When it is imported
        let imported = try FloorPlanImage.importing(data, path: "plans/ground.svg")
        // Then its bytes are the author's
        #expect(imported.removed.isEmpty)
        #expect(imported.image.data == data)
    }

    @Test("a plan that cannot be made safe is refused with a sentence naming the file", arguments: [
        (#"<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><svg xmlns="http://www.w3.org/2000/svg">&b;</svg>"#,
         "plans/p.svg declares XML entities"),
        (#"<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg>&x;</svg>"#, "plans/p.svg declares XML entities"),
        (#"<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>"#, "plans/p.svg is not well-formed XML (line 1"),
        (#"<html><svg xmlns="http://www.w3.org/2000/svg"/></html>"#, "plans/p.svg is not an SVG image: its root element is <html>, not <svg>"),
    ])
    func refusals(svg: String, message: String) {
        // Given a plan that is not XML, not an SVG, or declares entities
        // When it is imported
        // Then it is refused, the sentence naming the file and why
        #expect {
            _ = try FloorPlanImage.importing(Data(svg.utf8), path: "plans/p.svg")
        } throws: { error in
            (error as? FloorPlanError)?.description.hasPrefix(message) == true
        }
    }

    @Test("a DOCTYPE without entities is dropped, the plan kept")
    func doctypeDropped() throws {
        // Given a plan as drawing programs export it, with the SVG 1.1 DOCTYPE naming its DTD on the web
        let svg = #"<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg xmlns="http://www.w3.org/2000/svg" width="10" height="5"><rect width="10" height="5"/></svg>"#
        // When it is imported
        let imported = try FloorPlanImage.importing(Data(svg.utf8), path: "plans/p.svg")
        let text = String(decoding: imported.image.data, as: UTF8.self)
        // Then the DOCTYPE is gone and the drawing is whole
        #expect(!text.contains("DOCTYPE"))
        #expect(text.contains(#"<rect height="5" width="10"/>"#))
        #expect(imported.removed == ["the DOCTYPE (its DTD is an external reference)"])
    }
}
