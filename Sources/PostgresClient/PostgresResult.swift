/// A column of a query result: its name and PostgreSQL type.
public struct PostgresColumn: Hashable, Sendable {
    public let name: String
    public let type: PostgresType
}

/// The rows of a completed query, copied out of libpq's result (which is freed at once).
public struct PostgresResult: RandomAccessCollection, Sendable {
    public let columns: [PostgresColumn]
    public let rows: [PostgresRow]
    /// Rows inserted, updated, deleted or copied, from the command tag (0 when not applicable).
    public let affectedRows: Int
    /// The command tag, e.g. `INSERT 0 5`.
    public let commandTag: String

    public var startIndex: Int { rows.startIndex }
    public var endIndex: Int { rows.endIndex }
    public subscript(position: Int) -> PostgresRow { rows[position] }

    /// The only row's only column: for `select count(*) ...` and friends.
    public func scalar<T: PostgresDecodable>(_ type: T.Type = T.self) throws -> T {
        guard let row = rows.first, rows.count == 1, columns.count >= 1 else {
            throw PostgresError(code: .client, message: "expected one row, got \(rows.count)")
        }
        return try row.decode(T.self, at: 0)
    }
}

/// One result row. Values are decoded by column index or name into `PostgresDecodable` types.
public struct PostgresRow: Sendable {
    let columns: [PostgresColumn]
    let values: [String?]

    /// The number of columns.
    public var count: Int { values.count }

    /// Decodes the value at `index` as `T`; NULL decodes only into an optional.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, at index: Int) throws -> T {
        guard values.indices.contains(index) else {
            throw PostgresError(code: .columnNotFound, message: "no column at index \(index) (the row has \(values.count))")
        }
        let column = columns[index]
        guard let text = values[index] else {
            if let null = T.nullValue { return null }
            throw PostgresError(code: .unexpectedNull,
                                message: "column \"\(column.name)\" is NULL; decode it as \(T.self)? to accept NULL")
        }
        switch T.decode(postgresText: text, type: column.type) {
        case .value(let value):
            return value
        case .wrongType:
            throw PostgresError(code: .typeMismatch,
                                message: "column \"\(column.name)\" has type \(column.type); cannot decode it as \(T.self)")
        case .invalid(let reason):
            throw PostgresError(code: .typeMismatch, message: "column \"\(column.name)\": \(reason)")
        }
    }

    /// Decodes the value of the column named `name` as `T`.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, column name: String) throws -> T {
        guard let index = columns.firstIndex(where: { $0.name == name }) else {
            throw PostgresError(code: .columnNotFound, message: "no column named \"\(name)\"")
        }
        return try decode(T.self, at: index)
    }

    /// Whether the value at `index` is NULL.
    public func isNull(at index: Int) -> Bool { values[index] == nil }
}
