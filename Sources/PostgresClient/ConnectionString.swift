import CLibPQ
import Foundation

/// Helpers for libpq connection strings that never reveal a password.
public enum ConnectionString {
    /// A description of the connection safe to print and log: `host=... port=... dbname=...
    /// user=...`, with the password (and any other secret) left out. Invalid strings describe
    /// themselves as such without echoing their content.
    public static func redacted(_ conninfo: String) -> String {
        guard let options = parse(conninfo) else { return "<invalid connection string>" }
        let shown = ["service", "host", "hostaddr", "port", "dbname", "user", "sslmode"]
        let parts = shown.compactMap { key in options[key].map { "\(key)=\($0)" } }
        return parts.isEmpty ? "<libpq defaults>" : parts.joined(separator: " ")
    }

    /// The options a connection string sets, as libpq parses it (URL or key=value), or nil when
    /// it does not parse.
    public static func parse(_ conninfo: String) -> [String: String]? {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &errorMessage) else {
            if let errorMessage { PQfreemem(errorMessage) }
            return nil
        }
        defer { PQconninfoFree(options) }
        var result: [String: String] = [:]
        var cursor = options
        while let keyword = cursor.pointee.keyword {
            if let value = cursor.pointee.val {
                result[String(cString: keyword)] = String(cString: value)
            }
            cursor += 1
        }
        return result
    }

    /// Removes the connection string's password from a message, should libpq ever echo it.
    static func scrub(_ message: String, conninfo: String) -> String {
        guard let password = parse(conninfo)?["password"], !password.isEmpty else { return message }
        return message.replacingOccurrences(of: password, with: "********")
    }

    /// Whether a server answers at the address, without authenticating.
    public static func ping(_ conninfo: String) -> PingStatus {
        switch PQping(conninfo) {
        case PQPING_OK: .accepting
        case PQPING_REJECT: .rejecting
        case PQPING_NO_RESPONSE: .noResponse
        default: .invalidParameters
        }
    }
}

/// What `ConnectionString.ping` found at an address.
public enum PingStatus: Sendable, Equatable {
    /// The server accepts connections.
    case accepting
    /// The server is up but refuses connections (starting up, shutting down, recovery).
    case rejecting
    /// Nothing answered.
    case noResponse
    /// The connection string is invalid.
    case invalidParameters
}
