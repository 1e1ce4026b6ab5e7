/// The SQL files of `sql/`, compiled into the binary by the `EmbedSQL` plugin.
///
/// Paths are relative to `sql/` (`migrations/0001_raw_tables.sql`). Swift code never holds big
/// queries: it asks the catalog for a file by name.
public enum SQLCatalog {
    /// Every embedded file, keyed by its path relative to `sql/`.
    public static var files: [String: String] { EmbeddedSQL.files }

    /// The text of one file; a missing file is a packaging bug, so this traps with its name.
    public static func text(_ path: String) -> String {
        guard let text = EmbeddedSQL.files[path] else {
            preconditionFailure("sql/\(path) is not embedded in this binary")
        }
        return text
    }

    /// The files under one folder (`migrations/`), sorted by path.
    public static func files(under folder: String) -> [(path: String, text: String)] {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return EmbeddedSQL.files
            .filter { $0.key.hasPrefix(prefix) }
            .sorted { $0.key < $1.key }
            .map { (path: $0.key, text: $0.value) }
    }
}
