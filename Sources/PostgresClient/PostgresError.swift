/// An error from PostgreSQL or from talking to it.
///
/// `description` is safe for logs and users: it carries the server's message, detail, hint and
/// context and the SQLSTATE, never bound parameter values or the connection string (so never a
/// password). `debugDescription` adds the query text and the Swift source location.
public struct PostgresError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What kind of failure this is. Extensible: compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case connectionFailed, connectionLost, server, copyFailed, typeMismatch
            case unexpectedNull, columnNotFound, invalidParameter, client
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Could not establish a connection (server down, refused, bad credentials, ...).
        public static let connectionFailed = Code(.connectionFailed)
        /// An established connection broke while in use.
        public static let connectionLost = Code(.connectionLost)
        /// The server rejected a statement; see `sqlState`.
        public static let server = Code(.server)
        /// A COPY failed on the client side (the stream could not be sent).
        public static let copyFailed = Code(.copyFailed)
        /// A column's type cannot be decoded as the requested Swift type.
        public static let typeMismatch = Code(.typeMismatch)
        /// A NULL was decoded as a non-optional Swift type.
        public static let unexpectedNull = Code(.unexpectedNull)
        /// No column has the requested name or index.
        public static let columnNotFound = Code(.columnNotFound)
        /// A bound value cannot be sent (for example, text containing a NUL byte).
        public static let invalidParameter = Code(.invalidParameter)
        /// Any other client-side failure.
        public static let client = Code(.client)

        public var description: String { base.rawValue }
    }

    public var code: Code
    /// The SQLSTATE the server reported, if any.
    public var sqlState: SQLState?
    public var message: String
    public var detail: String?
    public var hint: String?
    /// Where in the server the error arose, e.g. `COPY raw_installs, line 5, column day: "x"`.
    public var context: String?
    /// The statement text (never its bound values).
    public var query: String?
    public var file: String
    public var line: Int

    public init(
        code: Code, message: String, sqlState: SQLState? = nil, detail: String? = nil,
        hint: String? = nil, context: String? = nil, query: String? = nil,
        file: String = #fileID, line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.hint = hint
        self.context = context
        self.query = query
        self.file = file
        self.line = line
    }

    /// True when the connection itself failed or broke: the caller may reconnect and retry.
    public var isConnectionFailure: Bool {
        code == .connectionFailed || code == .connectionLost || sqlState?.classCode == "08"
    }

    /// True when retrying the same work later may succeed: connection failures, serialization
    /// failures and deadlocks (class 40), insufficient resources (53), and server shutdown or
    /// start-up (57P01, 57P02, 57P03). Nothing else is retried.
    public var isTransient: Bool {
        if isConnectionFailure { return true }
        guard let sqlState else { return false }
        switch sqlState.classCode {
        case "40", "53": return true
        default: return sqlState == .adminShutdown || sqlState == .crashShutdown || sqlState == .cannotConnectNow
        }
    }

    public var description: String {
        var text = message
        if let detail, !detail.isEmpty { text += "\nDETAIL: \(detail)" }
        if let hint, !hint.isEmpty { text += "\nHINT: \(hint)" }
        if let context, !context.isEmpty { text += "\nCONTEXT: \(context)" }
        if let sqlState { text += " (SQLSTATE \(sqlState.rawValue))" }
        return text
    }

    public var debugDescription: String {
        var text = "PostgresError(\(code)) at \(file):\(line): \(description)"
        if let query { text += "\nQUERY: \(query)" }
        return text
    }
}

/// A five-character SQLSTATE code. Constants are grouped by class; `SQLState.Class` matches a
/// whole class in a `switch` (`case SQLState.Class.integrityConstraintViolation:`).
public struct SQLState: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The first two characters: the class (`23` integrity constraint violation, ...).
    public var classCode: String { String(rawValue.prefix(2)) }
    public var description: String { rawValue }

    // Class 08: connection exception
    public static let connectionException: SQLState = "08000"
    public static let connectionFailure: SQLState = "08006"
    // Class 22: data exception
    public static let invalidTextRepresentation: SQLState = "22P02"
    public static let badCopyFileFormat: SQLState = "22P04"
    public static let characterNotInRepertoire: SQLState = "22021"
    public static let numericValueOutOfRange: SQLState = "22003"
    public static let invalidDatetimeFormat: SQLState = "22007"
    // Class 23: integrity constraint violation
    public static let notNullViolation: SQLState = "23502"
    public static let foreignKeyViolation: SQLState = "23503"
    public static let uniqueViolation: SQLState = "23505"
    public static let checkViolation: SQLState = "23514"
    // Class 25: invalid transaction state
    public static let readOnlySQLTransaction: SQLState = "25006"
    // Class 40: transaction rollback
    public static let serializationFailure: SQLState = "40001"
    public static let deadlockDetected: SQLState = "40P01"
    // Class 42: syntax error or access rule violation
    public static let insufficientPrivilege: SQLState = "42501"
    public static let syntaxError: SQLState = "42601"
    public static let undefinedColumn: SQLState = "42703"
    public static let undefinedTable: SQLState = "42P01"
    public static let undefinedFunction: SQLState = "42883"
    public static let duplicateDatabase: SQLState = "42P04"
    public static let duplicateTable: SQLState = "42P07"
    public static let duplicateObject: SQLState = "42710"
    // Class 53: insufficient resources
    public static let tooManyConnections: SQLState = "53300"
    // Class 55: object not in prerequisite state
    public static let lockNotAvailable: SQLState = "55P03"
    // Class 57: operator intervention
    public static let queryCanceled: SQLState = "57014"
    public static let adminShutdown: SQLState = "57P01"
    public static let crashShutdown: SQLState = "57P02"
    public static let cannotConnectNow: SQLState = "57P03"
    // Class 3D: invalid catalog name
    public static let invalidCatalogName: SQLState = "3D000"

    /// A SQLSTATE class, for matching every code of the class at once.
    public struct Class: Hashable, Sendable {
        public let code: String
        public init(_ code: String) { self.code = code }
        public static let connectionException = Class("08")
        public static let dataException = Class("22")
        public static let integrityConstraintViolation = Class("23")
        public static let transactionRollback = Class("40")
        public static let syntaxErrorOrAccessRuleViolation = Class("42")
        public static let insufficientResources = Class("53")
        public static let operatorIntervention = Class("57")

        public static func ~= (pattern: Class, value: SQLState) -> Bool {
            value.classCode == pattern.code
        }
    }
}
