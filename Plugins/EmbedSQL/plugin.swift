import Foundation
import PackagePlugin

/// Build-tool plugin that compiles every `sql/**/*.sql` file of the package into the `FunnelSQL`
/// target, so the `funnel` binary carries its SQL and runs without the source tree beside it.
@main
struct EmbedSQL: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let sqlDirectory = context.package.directoryURL.appending(path: "sql")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedSQL.swift")
        var inputs: [URL] = []
        if let walker = FileManager.default.enumerator(at: sqlDirectory, includingPropertiesForKeys: nil) {
            for case let url as URL in walker where url.pathExtension == "sql" {
                inputs.append(url)
            }
        }
        inputs.sort { $0.path < $1.path }
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) SQL files",
                executable: try context.tool(named: "EmbedSQLTool").url,
                arguments: [sqlDirectory.path, output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output]
            ),
        ]
    }
}
