package import Foundation
import OpenAPIRuntime
import Yams

/// openapi.yaml, the document the server and its types are generated from, compiled into the binary,
/// converted once at start-up and served as JSON at /openapi.json: what is served is what was generated
/// from.
package struct APIDocument: Sendable {
    /// The document as a JSON object.
    let object: OpenAPIObjectContainer
    /// The document as JSON bytes.
    package let json: Data

    /// The copy of openapi.yaml compiled into positiond (the EmbedOpenAPIDocument build plugin).
    package init() throws {
        try self.init(yaml: EmbeddedOpenAPIDocument.yaml)
    }

    init(yaml: String) throws {
        guard let mapping = try Yams.load(yaml: yaml) as? [String: Any] else {
            throw StartupError(message: "openapi.yaml is not a YAML mapping")
        }
        json = try JSONSerialization.data(withJSONObject: mapping, options: [.sortedKeys, .withoutEscapingSlashes])
        object = try JSONDecoder().decode(OpenAPIObjectContainer.self, from: json)
    }
}
