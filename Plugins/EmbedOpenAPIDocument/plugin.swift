import Foundation
import PackagePlugin

/// Compiles the target's `openapi.yaml` into it, as the source text of `EmbeddedOpenAPIDocument.yaml`:
/// positiond serves the very document its server was generated from, and needs no resource bundle
/// beside the binary (a missing bundle would stop it at start-up).
@main
struct EmbedOpenAPIDocument: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        guard let document = target.sourceFiles.first(where: { $0.url.lastPathComponent == "openapi.yaml" }) else {
            throw EmbedError(message: "target \(target.name) has no openapi.yaml to embed")
        }
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("EmbeddedOpenAPIDocument.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(document.url.lastPathComponent) in \(target.name)",
                executable: try context.tool(named: "EmbedText").url,
                arguments: [document.url.path, output.path, "EmbeddedOpenAPIDocument", "yaml"],
                inputFiles: [document.url],
                outputFiles: [output])
        ]
    }
}

struct EmbedError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
