import Foundation
import FunnelSQL
import Testing

/// The layout of `sql/` (docs/architecture.md, "SQL by layer"), checked without a database: every
/// file the code asks for is embedded, every statement file sits in a layer folder and opens with
/// the header that names it.
@Suite struct SQLLayoutTests {
    /// The folders a statement file may live in: the layers, then the readers and the ledgered sets.
    static let folders = [
        "staging/", "intermediate/metrics/", "intermediate/friction/", "marts/metrics/", "marts/friction/",
        "bookkeeping/ingest/", "bookkeeping/metrics/", "bookkeeping/friction/", "bookkeeping/apps/", "dashboards/", "checks/",
        "reports/", "query/", "migrations/", "schema/", "bench/", "citus/",
    ]

    static var sourcesFolder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Sources")
    }

    /// Every `SQLCatalog.text("...")` in the sources: literal paths, and the fixed folder before an
    /// interpolated name.
    static func requestedPaths() throws -> [(path: String, interpolated: Bool, file: String)] {
        let pattern = try Regex(#"SQLCatalog\.text\("([^"]*)"\)"#)
        var found: [(String, Bool, String)] = []
        let walker = FileManager.default.enumerator(at: sourcesFolder, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            for match in text.matches(of: pattern) {
                let argument = String(match.output[1].substring ?? "")
                if let open = argument.range(of: "\\(") {
                    found.append((String(argument[..<open.lowerBound]), true, url.lastPathComponent))
                } else {
                    found.append((argument, false, url.lastPathComponent))
                }
            }
        }
        return found
    }

    @Test func everyRequestedFileIsEmbedded() throws {
        let requested = try Self.requestedPaths()
        #expect(requested.count > 100, "the scan found \(requested.count) requests: has the catalog's API moved?")
        for request in requested {
            if request.interpolated {
                let folder = request.path.contains("/") ? String(request.path[...request.path.lastIndex(of: "/")!]) : request.path
                #expect(SQLCatalog.files.keys.contains { $0.hasPrefix(request.path) } && Self.folders.contains(folder),
                        "\(request.file): no embedded file starts with \(request.path)")
            } else {
                #expect(SQLCatalog.files[request.path] != nil, "\(request.file) asks for sql/\(request.path), which is not embedded")
            }
        }
    }

    @Test func everyFileSitsInALayerFolder() {
        for path in SQLCatalog.files.keys where path != "schema.sql" {
            #expect(Self.folders.contains { path.hasPrefix($0) }, "sql/\(path) is outside the layer folders")
        }
    }

    /// A statement file's first line names it (`-- int_user_facts.fold: ...`) and a `Grain` line
    /// follows in its header; migrations, benchmarks, the Citus layout and
    /// the generated snapshot `schema.sql` have headers of their own.
    @Test func statementFilesOpenWithTheirHeader() {
        let statements = SQLCatalog.files.filter { path, _ in
            path != "schema.sql" && !["migrations/", "bench/", "citus/"].contains { path.hasPrefix($0) }
        }
        #expect(statements.count > 150)
        for (path, text) in statements {
            let name = String(path.split(separator: "/").last!.dropLast(4))
            #expect(text.hasPrefix("-- \(name):"), "sql/\(path) should open with \"-- \(name):\"")
            let header = text.split(separator: "\n").prefix { $0.hasPrefix("--") }
            #expect(header.contains { $0.contains("Grain") }, "sql/\(path): its header has no Grain line")
        }
    }
}
