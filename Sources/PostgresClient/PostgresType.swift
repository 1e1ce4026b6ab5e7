/// A PostgreSQL type, by its OID, as reported for a result column.
public struct PostgresType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let bool = PostgresType(rawValue: 16)
    public static let bytea = PostgresType(rawValue: 17)
    public static let name = PostgresType(rawValue: 19)
    public static let int8 = PostgresType(rawValue: 20)
    public static let int2 = PostgresType(rawValue: 21)
    public static let int4 = PostgresType(rawValue: 23)
    public static let text = PostgresType(rawValue: 25)
    public static let oid = PostgresType(rawValue: 26)
    public static let json = PostgresType(rawValue: 114)
    public static let float4 = PostgresType(rawValue: 700)
    public static let float8 = PostgresType(rawValue: 701)
    public static let unknown = PostgresType(rawValue: 705)
    public static let bpchar = PostgresType(rawValue: 1042)
    public static let varchar = PostgresType(rawValue: 1043)
    public static let date = PostgresType(rawValue: 1082)
    public static let timestamp = PostgresType(rawValue: 1114)
    public static let timestamptz = PostgresType(rawValue: 1184)
    public static let interval = PostgresType(rawValue: 1186)
    public static let numeric = PostgresType(rawValue: 1700)
    public static let uuid = PostgresType(rawValue: 2950)
    public static let jsonb = PostgresType(rawValue: 3802)

    static let names: [UInt32: String] = [
        16: "boolean", 17: "bytea", 19: "name", 20: "bigint", 21: "smallint", 23: "integer",
        25: "text", 26: "oid", 114: "json", 700: "real", 701: "double precision", 705: "unknown",
        1042: "character", 1043: "character varying", 1082: "date", 1114: "timestamp",
        1184: "timestamptz", 1186: "interval", 1700: "numeric", 2950: "uuid", 3802: "jsonb",
    ]

    public var description: String { Self.names[rawValue] ?? "type oid \(rawValue)" }

    var isInteger: Bool { self == .int2 || self == .int4 || self == .int8 || self == .oid }
    var isTextual: Bool { self == .text || self == .varchar || self == .bpchar || self == .name || self == .unknown }
}
