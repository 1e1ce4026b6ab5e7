import CLibPQ
import Foundation
public import Logging

/// One libpq connection to PostgreSQL.
///
/// Not `Sendable`: the compiler keeps a connection inside one task or thread at a time, which is
/// what libpq requires. Open one connection per worker. All calls block the calling thread.
/// The connection owns its `PGconn` and frees it exactly once, in `deinit`.
public final class PostgresConnection {
    let handle: OpaquePointer
    public let logger: Logger
    private let noticeSink: Unmanaged<NoticeSink>
    /// Names nested transactions' savepoints uniquely.
    var savepointCount = 0

    /// Connects using a libpq connection string: a URL (`postgresql://user@host/db`), a
    /// `key=value` string, or "" for libpq's own defaults (`PG*` variables, service file).
    /// The session uses UTF-8, ISO dates and UTC, so decoding never depends on server settings.
    /// Errors never contain the password.
    public init(connecting conninfo: String, applicationName: String = "funnel",
                logger: Logger = Logger(label: "funnel.postgres")) throws {
        self.logger = logger
        var keywords = ["fallback_application_name", "client_encoding"]
        var values = [applicationName, "UTF8"]
        if !conninfo.isEmpty {
            keywords.insert("dbname", at: 0)
            values.insert(conninfo, at: 0)
        }
        let connection = withCStringArray(keywords) { keywordPointers in
            withCStringArray(values) { valuePointers in
                PQconnectdbParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let connection else {
            throw PostgresError(code: .connectionFailed, message: "out of memory allocating a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = ConnectionString.scrub(errorText(PQerrorMessage(connection)), conninfo: conninfo)
            PQfinish(connection)
            throw PostgresError(code: .connectionFailed, message: message,
                                hint: "check that the server runs and the connection settings are right")
        }
        self.handle = connection
        self.noticeSink = Unmanaged.passRetained(NoticeSink(logger: logger))
        PQsetNoticeProcessor(connection, { context, message in
            guard let context, let message else { return }
            let sink = Unmanaged<NoticeSink>.fromOpaque(context).takeUnretainedValue()
            sink.logger.debug("postgres notice", metadata: [
                "db.notice": .string(String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)),
            ])
        }, noticeSink.toOpaque())
        try execute("set datestyle = 'ISO, YMD'; set intervalstyle = 'postgres'; set timezone = 'UTC'")
    }

    deinit {
        PQfinish(handle)
        noticeSink.release()
    }

    /// The server's version as an integer (150004 for 15.4).
    public var serverVersion: Int { Int(PQserverVersion(handle)) }

    /// The process id of the server backend serving this connection.
    public var backendPID: Int32 { PQbackendPID(handle) }

    /// Whether the connection is still usable.
    public var isHealthy: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Whether a transaction block is open (or failed and awaiting rollback).
    public var isInTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// Runs one or more statements with no parameters (simple protocol): for scripts such as
    /// migrations. Use `query` for anything with values.
    public func execute(_ sql: String) throws {
        let result = PQexec(handle, sql)
        _ = try consume(result, query: sql)
    }

    /// Runs one statement with bound parameters (`$1`, `$2`, ...) and returns its rows.
    /// Values travel separately from the SQL text; `nil` binds SQL NULL.
    @discardableResult
    public func query(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) throws -> PostgresResult {
        var texts: [String?] = []
        texts.reserveCapacity(parameters.count)
        for (index, parameter) in parameters.enumerated() {
            let text = parameter?.postgresText
            if let text, text.utf8.contains(0) {
                throw PostgresError(code: .invalidParameter,
                                    message: "parameter $\(index + 1) contains a NUL byte, which PostgreSQL text cannot hold",
                                    query: sql)
            }
            texts.append(text)
        }
        let result = withOptionalCStringArray(texts) { pointers in
            PQexecParams(handle, sql, Int32(texts.count), nil, pointers, nil, nil, 0)
        }
        return try consume(result, query: sql)
    }

    /// Quotes an identifier for SQL (`"my table"`). Identifiers in funnel come from fixed lists
    /// in code; this is for the few that are generated (test database names).
    public func quoteIdentifier(_ identifier: String) throws -> String {
        guard let quoted = PQescapeIdentifier(handle, identifier, identifier.utf8.count) else {
            throw PostgresError(code: .client, message: errorText(PQerrorMessage(handle)))
        }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }

    /// Whether the extension `name` is installed in the connected database (e.g. `citus`).
    public func hasExtension(_ name: String) throws -> Bool {
        try query("select exists (select 1 from pg_extension where extname = $1)", [name]).scalar(Bool.self)
    }

    /// Turns a finished `PGresult` into rows or a thrown error, and frees it.
    func consume(_ result: OpaquePointer?, query: String) throws -> PostgresResult {
        guard let result else {
            throw connectionError(query: query)
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return Self.rows(of: result)
        case PGRES_FATAL_ERROR, PGRES_NONFATAL_ERROR, PGRES_BAD_RESPONSE:
            throw serverError(result, query: query)
        default:
            throw PostgresError(code: .client,
                                message: "unexpected result status \(String(cString: PQresStatus(PQresultStatus(result))))",
                                query: query)
        }
    }

    static func rows(of result: OpaquePointer) -> PostgresResult {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        var columns: [PostgresColumn] = []
        columns.reserveCapacity(columnCount)
        for column in 0..<columnCount {
            columns.append(PostgresColumn(name: String(cString: PQfname(result, Int32(column))),
                                          type: PostgresType(rawValue: PQftype(result, Int32(column)))))
        }
        var rows: [PostgresRow] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                    values.append(nil)
                } else {
                    values.append(String(cString: PQgetvalue(result, Int32(row), Int32(column))))
                }
            }
            rows.append(PostgresRow(columns: columns, values: values))
        }
        let tag = String(cString: PQcmdStatus(result))
        let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        return PostgresResult(columns: columns, rows: rows, affectedRows: affected, commandTag: tag)
    }

    /// The error a failed result carries, with SQLSTATE and the server's detail fields.
    func serverError(_ result: OpaquePointer, query: String?) -> PostgresError {
        func field(_ code: Character) -> String? {
            guard let value = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return String(cString: value)
        }
        let sqlState = field("C").map(SQLState.init(rawValue:))
        let message = field("M") ?? errorText(PQresultErrorMessage(result))
        let lost = PQstatus(handle) != CONNECTION_OK
        return PostgresError(code: lost ? .connectionLost : .server, message: message, sqlState: sqlState,
                             detail: field("D"), hint: field("H"), context: field("W"), query: query)
    }

    /// The error for a call that returned no result: the connection failed.
    func connectionError(query: String?) -> PostgresError {
        PostgresError(code: PQstatus(handle) == CONNECTION_OK ? .client : .connectionLost,
                      message: errorText(PQerrorMessage(handle)), query: query)
    }
}

/// Routes server notices (`relation already exists, skipping`) to the logger instead of stderr.
private final class NoticeSink {
    let logger: Logger
    init(logger: Logger) { self.logger = logger }
}

func errorText(_ pointer: UnsafePointer<CChar>?) -> String {
    guard let pointer else { return "unknown libpq error" }
    let text = String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
    return text.isEmpty ? "unknown libpq error" : text
}

func errorText(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
    errorText(UnsafePointer(pointer))
}

/// Calls `body` with a NULL-terminated array of C strings that live for the call.
func withCStringArray<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    withOptionalCStringArray(strings.map(Optional.some)) { pointers in
        body(pointers!)
    }
}

/// Calls `body` with an array of C strings (NULL for nil), terminated by NULL; the strings live
/// for the call only.
func withOptionalCStringArray<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    var owned: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0)! } }
    owned.append(nil)
    defer { for pointer in owned { free(pointer) } }
    return owned.withUnsafeBufferPointer { buffer in
        buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { body($0) }
    }
}
