/// Why the embedded cluster could not be set up, started or stopped; each message says what to
/// do next.
public enum EmbeddedClusterError: Error, CustomStringConvertible, Sendable {
    case binariesMissing
    case serverAccountMissing
    case directoryUnreachable(directory: String, blockedAt: String)
    case socketPathTooLong(String)
    case commandFailed(command: String, output: String)
    case notReady(seconds: Int, logTail: String)

    public var description: String {
        switch self {
        case .binariesMissing:
            "PostgreSQL server programs (initdb, pg_ctl, postgres) were not found on PATH or in "
                + "/usr/lib/postgresql/*/bin: install them with 'apt-get install postgresql' (Debian/Ubuntu), "
                + "or point funnel at an existing server with --database-url or DATABASE_URL"
        case .serverAccountMissing:
            "running as root, funnel starts PostgreSQL as the unprivileged 'postgres' account, which "
                + "does not exist here: install Debian's postgresql package (it creates the account), or run "
                + "funnel as a normal user"
        case .directoryUnreachable(let directory, let blockedAt):
            "the PostgreSQL server runs as the 'postgres' account, which cannot reach \(directory) "
                + "(\(blockedAt) is closed to it): set FUNNEL_HOME to a directory outside it, e.g. /var/lib/funnel"
        case .socketPathTooLong(let path):
            "the socket path \(path) is longer than the 107 bytes Unix sockets allow: set FUNNEL_HOME to a shorter path"
        case .commandFailed(let command, let output):
            "\(command) failed" + (output.isEmpty ? "" : ":\n\(output)")
        case .notReady(let seconds, let logTail):
            "the embedded PostgreSQL did not accept connections within \(seconds) s"
                + (logTail.isEmpty ? "" : "; its log ends with:\n\(logTail)")
        }
    }
}
