/// Where funnel keeps its tables: one schema, `funnel`, so it can share a database with other
/// applications. Sessions set `search_path` to it, so the SQL in `sql/` names tables unqualified.
public enum FunnelSchema {
    public static let name = "funnel"
    /// The session search path: funnel's schema, then `public` for extensions.
    public static let searchPath = [name, "public"]
}
