import Foundation
import PostgresClient
import Testing
import TestSupport

@Suite("Streaming rows in binary format")
struct StreamTests {
    @Test("every row arrives once, in batches, with bigint, timestamptz, text and NULL read in place")
    func readsEveryRow() throws {
        let connection = try TestCluster.freshDatabase().connect()
        var seen: [Int64] = []
        var texts: [String?] = []
        var times: [Int64] = []
        var batches = 0
        let rows = try connection.stream("""
            select i::bigint, case when i % 3 = 0 then null else 'row ' || i end,
                   '2000-01-01 00:00:00+00'::timestamptz + (i - 1000) * interval '1 microsecond'
            from generate_series(1, $1::int) as i
            """, [2_500], batchRows: 1_000) { batch in
            batches += 1
            for row in 0..<batch.count {
                seen.append(batch.int64(row, 0))
                texts.append(batch.string(row, 1))
                times.append(batch.timestampMicros(row, 2))
                #expect(batch.isNull(row, 1) == (texts.last! == nil))
            }
        }
        #expect(rows == 2_500)
        #expect(batches == 3)
        #expect(seen == Array(1...2_500).map(Int64.init))
        #expect(texts[0] == "row 1" && texts[2] == nil && texts[2_498] == nil && texts[2_499] == "row 2500")
        // Microseconds since 1970 on both sides of 2000 (the server counts from 2000).
        let twoThousand: Int64 = 946_684_800_000_000
        #expect(times.count == 2_500 && times[0] == twoThousand - 999 && times[2_499] == twoThousand + 1_500)
    }

    @Test("a timestamp reads as the same instant as its text decoding, and the column types are reported")
    func timestampsAndTypes() throws {
        let connection = try TestCluster.freshDatabase().connect()
        var micros: Int64 = 0
        var types: [PostgresType] = []
        try connection.stream("select '2024-05-01 10:00:00.123456+02'::timestamptz, 1::bigint, 'x'::text") { batch in
            micros = batch.timestampMicros(0, 0)
            types = (0..<3).map { batch.type(of: $0) }
        }
        #expect(micros == 1_714_550_400_123_456)
        #expect(types == [.timestamptz, .int8, .text])
    }

    @Test("an error in the body or on the server ends the stream with that error, and the connection stays usable")
    func errorsEndTheStream() throws {
        let connection = try TestCluster.freshDatabase().connect()
        struct Stop: Error {}
        var batches = 0
        #expect(throws: Stop.self) {
            try connection.stream("select i::bigint from generate_series(1, 10000) as i", batchRows: 100) { _ in
                batches += 1
                if batches == 2 { throw Stop() }
            }
        }
        #expect(batches == 2)
        #expect(!connection.isInTransaction)
        #expect(try connection.query("select 41 + 1").scalar(Int.self) == 42)
        #expect { try connection.stream("select (1 / (i - 1500))::bigint from generate_series(1, 3000) as i", batchRows: 1_000) { _ in } }
            throws: { error in (error as? PostgresError)?.sqlState == "22012" }
        #expect(!connection.isInTransaction)
        // The cursor's name is free again.
        #expect(try connection.stream("select 1::bigint") { _ in } == 1)
    }
}
