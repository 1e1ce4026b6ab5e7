import Foundation

/// Expands the paths given to `funnel ingest` into input files: a file as given; a directory
/// recursively, taking the files whose names end in `.csv`, `.ndjson`, `.jsonl` or `.json`
/// (optionally `.gz`) and skipping hidden files and directories. Sorted within each directory.
public enum InputDiscovery {
    /// A path that does not exist or cannot be listed (a usage error).
    public struct Missing: Error, Sendable, CustomStringConvertible {
        public let path: String
        public var description: String { "\(path): no such file or directory" }
    }

    static let extensions = ["csv", "ndjson", "jsonl", "json"]

    /// The input files under `paths`, in order, each once.
    public static func expand(_ paths: [String]) throws -> [String] {
        var files: [String] = []
        var seen = Set<String>()
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw Missing(path: path) }
            let found = isDirectory.boolValue ? try walk(path) : [path]
            for file in found where seen.insert(file).inserted { files.append(file) }
        }
        return files
    }

    /// Whether a file name looks like an input file.
    public static func isInputFile(_ name: String) -> Bool {
        var lowered = name.lowercased()
        if lowered.hasSuffix(".gz") { lowered.removeLast(3) }
        return extensions.contains { lowered.hasSuffix(".\($0)") }
    }

    private static func walk(_ directory: String) throws -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw Missing(path: directory)
        }
        var files: [String] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                files += try walk(path)
            } else if isInputFile(name) {
                files.append(path)
            }
        }
        return files
    }
}
