public import Foundation

/// The PostgreSQL server programs the embedded cluster runs: found on PATH or in the usual
/// install locations (Debian's /usr/lib/postgresql/N/bin, PGDG's /usr/pgsql-N/bin, ...).
public struct PostgresBinaries: Sendable {
    public let directory: URL
    public var initdb: URL { directory.appending(path: "initdb") }
    public var pgCtl: URL { directory.appending(path: "pg_ctl") }
    public var postgres: URL { directory.appending(path: "postgres") }

    /// Whether the server's contrib module `name` is installed beside the programs (`../lib`, as
    /// Debian's and PGDG's packages lay them out).
    public func hasModule(_ name: String) -> Bool {
        FileManager.default.fileExists(
            atPath: directory.deletingLastPathComponent().appending(path: "lib/\(name).so").path)
    }

    /// The usual install locations, searched after PATH.
    public static let installRoots = ["/usr/lib/postgresql", "/usr/local/lib/postgresql", "/usr"]

    /// Finds a directory holding initdb, pg_ctl and postgres. The newest major version wins among
    /// the install locations; PATH wins over them.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment,
                              installRoots: [String] = installRoots) throws -> PostgresBinaries {
        let fileManager = FileManager.default
        func complete(_ directory: String) -> Bool {
            ["initdb", "pg_ctl", "postgres"].allSatisfy {
                fileManager.isExecutableFile(atPath: directory + "/" + $0)
            }
        }
        var candidates = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for pattern in installRoots where pattern != "/usr" {
            let versions = (try? fileManager.contentsOfDirectory(atPath: pattern)) ?? []
            for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
                candidates.append("\(pattern)/\(version)/bin")
            }
        }
        let pgdg = (installRoots.contains("/usr") ? (try? fileManager.contentsOfDirectory(atPath: "/usr")) ?? [] : [])
            .filter { $0.hasPrefix("pgsql-") }
            .sorted { (Int($0.dropFirst(6)) ?? 0) > (Int($1.dropFirst(6)) ?? 0) }
            .map { "/usr/\($0)/bin" }
        candidates += pgdg
        if !installRoots.isEmpty { candidates += ["/usr/local/pgsql/bin", "/opt/homebrew/bin", "/usr/local/bin"] }
        for candidate in candidates where complete(candidate) {
            // Resolve symlinks so the three programs come from one installation.
            let resolved = URL(fileURLWithPath: candidate + "/pg_ctl").resolvingSymlinksInPath()
                .deletingLastPathComponent()
            return PostgresBinaries(directory: complete(resolved.path) ? resolved : URL(fileURLWithPath: candidate))
        }
        throw EmbeddedClusterError.binariesMissing
    }
}
