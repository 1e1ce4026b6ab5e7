public import Logging

/// Everything needed to open connections to one database: the libpq connection string and the
/// session's schema search path. `Sendable`, so each worker opens its own connection from it.
public struct ConnectionSettings: Sendable {
    /// A libpq connection string (URL, `key=value`, or "" for libpq's environment defaults).
    public var conninfo: String
    /// Schemas set as the session's `search_path`, first one first.
    public var searchPath: [String]
    public var applicationName: String

    public init(conninfo: String, searchPath: [String] = [], applicationName: String = "funnel") {
        self.conninfo = conninfo
        self.searchPath = searchPath
        self.applicationName = applicationName
    }

    /// Where the connection goes, safe to print (no password).
    public var redactedDescription: String { ConnectionString.redacted(conninfo) }

    /// Opens a new connection with the search path set.
    public func connect(logger: Logger = Logger(label: "funnel.postgres")) throws -> PostgresConnection {
        let connection = try PostgresConnection(connecting: conninfo, applicationName: applicationName, logger: logger)
        if !searchPath.isEmpty {
            let schemas = try searchPath.map { try connection.quoteIdentifier($0) }.joined(separator: ", ")
            try connection.execute("set search_path = \(schemas)")
        }
        return connection
    }
}
