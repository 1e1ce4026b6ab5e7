import Foundation
import PostgresClient
import Testing
import TestSupport

@Suite("Queries and typed decoding")
struct QueryDecodingTests {
    @Test("every supported type decodes from a real server, and NULL decodes into optionals")
    func decodesEveryType() throws {
        let connection = try TestCluster.freshDatabase().connect()
        let row = try connection.query("""
            select true, 7::int2, 2147483647::int4, 9223372036854775807::int8, 1.5::float8, 0.25::float4,
                   12345678901234567890.123456::numeric, 'plain text', '2024-05-01'::date,
                   '2024-05-01 10:00:00.123456+02'::timestamptz, '{"b": [1, 2], "a": null}'::jsonb,
                   null::int, null::text, null::timestamptz
            """)[0]
        #expect(try row.decode(Bool.self, at: 0) == true)
        #expect(try row.decode(Int.self, at: 1) == 7)
        #expect(try row.decode(Int32.self, at: 2) == Int32.max)
        #expect(try row.decode(Int64.self, at: 3) == Int64.max)
        #expect(try row.decode(Double.self, at: 4) == 1.5)
        #expect(try row.decode(Double.self, at: 5) == 0.25)
        #expect(try row.decode(Decimal.self, at: 6) == Decimal(string: "12345678901234567890.123456"))
        #expect(try row.decode(String.self, at: 6) == "12345678901234567890.123456")
        #expect(try row.decode(String.self, at: 7) == "plain text")
        #expect(try row.decode(PostgresDate.self, at: 8) == PostgresDate(year: 2024, month: 5, day: 1))
        let instant = try row.decode(Date.self, at: 9)
        #expect(abs(instant.timeIntervalSince1970 - 1_714_550_400.123456) < 0.000001)
        struct Document: Decodable, Equatable { let a: Int?; let b: [Int] }
        #expect(try row.decode(PostgresJSON.self, at: 10).decode(Document.self) == Document(a: nil, b: [1, 2]))
        #expect(try row.decode(Int?.self, at: 11) == nil)
        #expect(try row.decode(String?.self, at: 12) == nil)
        #expect(try row.decode(Date?.self, at: 13) == nil)
        #expect(row.isNull(at: 11))
    }

    @Test("decoding by column name finds the column, and a wrong name is a clear error")
    func decodesByName() throws {
        let connection = try TestCluster.freshDatabase().connect()
        let row = try connection.query("select 42 as answer")[0]
        #expect(try row.decode(Int.self, column: "answer") == 42)
        #expect { try row.decode(Int.self, column: "question") } throws: { error in
            (error as? PostgresError)?.code == .columnNotFound
        }
    }

    @Test("a column of the wrong type or an unexpected NULL is refused with a message naming the column")
    func refusesMismatches() throws {
        let connection = try TestCluster.freshDatabase().connect()
        let row = try connection.query("select 'seven'::text as word, null::int as nothing, 70000::int4 as big")[0]
        let mismatch = #expect(throws: PostgresError.self) { try row.decode(Int.self, at: 0) }
        #expect(mismatch?.code == .typeMismatch)
        #expect(mismatch?.message.contains("\"word\" has type text") == true)
        let null = #expect(throws: PostgresError.self) { try row.decode(Int.self, at: 1) }
        #expect(null?.code == .unexpectedNull)
        #expect(null?.message.contains("\"nothing\"") == true)
        #expect(throws: PostgresError.self) { try row.decode(Bool.self, at: 2) }
        #expect(throws: PostgresError.self) { try row.decode(Date.self, at: 2) }
    }

    @Test("bound parameters of every type round-trip through the server")
    func parametersRoundTrip() throws {
        let connection = try TestCluster.freshDatabase().connect()
        let when = Date(timeIntervalSince1970: 1_714_557_600.5)
        let row = try connection.query(
            "select $1::int8, $2::float8, $3::bool, $4::numeric, $5::timestamptz, $6::date, $7::text, $8::jsonb, $9::text[], $10::int",
            [Int64(-5), 2.5, false, Decimal(string: "0.000001")!, when, PostgresDate(year: 2024, month: 2, day: 29),
             "it's \"quoted\"", PostgresJSON(text: #"{"k": "v"}"#), ["a,b", "c\"d", "e\\f"], nil])[0]
        #expect(try row.decode(Int64.self, at: 0) == -5)
        #expect(try row.decode(Double.self, at: 1) == 2.5)
        #expect(try row.decode(Bool.self, at: 2) == false)
        #expect(try row.decode(Decimal.self, at: 3) == Decimal(string: "0.000001"))
        #expect(try row.decode(Date.self, at: 4) == when)
        #expect(try row.decode(PostgresDate.self, at: 5).description == "2024-02-29")
        #expect(try row.decode(String.self, at: 6) == "it's \"quoted\"")
        #expect(try row.decode(String.self, at: 7) == #"{"k": "v"}"#)
        let array = ["a,b", "c\"d", "e\\f"]
        let elements = try connection.query(
            "select array_length($1::text[], 1), ($1::text[])[1], ($1::text[])[2], ($1::text[])[3]", [array])[0]
        #expect(try elements.decode(Int.self, at: 0) == array.count)
        #expect(try elements.decode(String.self, at: 1) == "a,b")
        #expect(try elements.decode(String.self, at: 2) == "c\"d")
        #expect(try elements.decode(String.self, at: 3) == "e\\f")
        #expect(try row.decode(Int?.self, at: 9) == nil)
    }

    @Test("unicode text survives a round trip byte for byte")
    func unicodeRoundTrip() throws {
        let connection = try TestCluster.freshDatabase().connect()
        try connection.execute("create table words (word text)")
        let samples = ["naïve café", "日本語のテキスト", "emoji 🚀👩‍👩‍👧", "zh-Hans 拼音输入法", "עברית", "\u{0301}combining"]
        for sample in samples {
            try connection.query("insert into words values ($1)", [sample])
        }
        let stored = try connection.query("select word from words order by word").map { try $0.decode(String.self, at: 0) }
        #expect(Set(stored) == Set(samples))
        #expect(try connection.query("select sum(octet_length(word))::int from words").scalar(Int.self)
            == samples.reduce(0) { $0 + $1.utf8.count })
    }

    @Test("text with a NUL byte is refused before it is sent")
    func refusesNUL() throws {
        let connection = try TestCluster.freshDatabase().connect()
        let error = #expect(throws: PostgresError.self) { try connection.query("select $1::text", ["a\u{0}b"]) }
        #expect(error?.code == .invalidParameter)
        #expect(try connection.query("select 1").scalar(Int.self) == 1)
    }

    @Test("affected row counts come from the command tag")
    func affectedRows() throws {
        let connection = try TestCluster.freshDatabase().connect()
        try connection.execute("create table t (n int)")
        let inserted = try connection.query("insert into t select generate_series(1, 5)")
        #expect(inserted.affectedRows == 5)
        #expect(try connection.query("delete from t where n > $1", [3]).affectedRows == 2)
    }
}
