import Foundation
import Logging
import NIOCore

/// The files of the web pages, read once at start-up: the pages' own HTML, scripts and styles (package
/// resources in `Web/`) and Leaflet from the system's folder (setting `web.leaflet`, Debian's
/// libjs-leaflet). Only these files are ever served, so no request path reaches the file system.
struct WebAssets: Sendable {
    struct File: Sendable {
        let bytes: ByteBuffer
        let contentType: String
    }

    /// The pages' own files, by name (`map.html`, `map.js`, ...).
    let own: [String: File]
    /// Leaflet's files, by path below its folder (`leaflet.js`, `images/layers.png`, ...).
    let leaflet: [String: File]
    /// Why a part is missing, for the pages to say; nil when everything is there.
    let problems: [String]

    /// Reads the resources that the build put beside the executable, and Leaflet's folder; whatever is
    /// missing is logged and said by the pages, and the API serves on regardless.
    init(leafletDirectory: String, logger: Logger) {
        var problems: [String] = []
        let ownDirectory = Self.resourceDirectory()
        own = ownDirectory.map { Self.files(in: $0, matching: ["html", "js", "css", "svg"]) } ?? [:]
        if ownDirectory == nil || own.isEmpty {
            problems.append("the web pages' files are missing (the folder beaconfix_positiond.resources/Web must lie beside the positiond executable)")
        }
        var leaflet = Self.files(in: URL(fileURLWithPath: leafletDirectory), matching: ["js", "css"])
            .filter { !$0.key.contains(".esm") }
        for (name, file) in Self.files(in: URL(fileURLWithPath: leafletDirectory).appendingPathComponent("images"), matching: ["png", "svg"]) {
            leaflet["images/" + name] = file
        }
        self.leaflet = leaflet
        if leaflet["leaflet.js"] == nil || leaflet["leaflet.css"] == nil {
            problems.append("Leaflet is not in \(leafletDirectory) (apt-get install libjs-leaflet, or set web.leaflet)")
        }
        self.problems = problems
        for problem in problems { logger.warning("the map page cannot work: \(problem)") }
    }

    private static func resourceDirectory() -> URL? {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [Bundle.main.bundleURL, executable].map {
            $0.appendingPathComponent("beaconfix_positiond.resources").appendingPathComponent("Web")
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
    }

    private static func files(in directory: URL, matching extensions: Set<String>) -> [String: File] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [:] }
        var files: [String: File] = [:]
        for name in names where extensions.contains((name as NSString).pathExtension) && !name.hasPrefix(".") {
            guard let data = try? Data(contentsOf: directory.appendingPathComponent(name)) else { continue }
            files[name] = File(bytes: ByteBuffer(bytes: data), contentType: contentType(of: name))
        }
        return files
    }

    static func contentType(of name: String) -> String {
        switch (name as NSString).pathExtension {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "png": "image/png"
        case "svg": "image/svg+xml"
        default: "application/octet-stream"
        }
    }
}
