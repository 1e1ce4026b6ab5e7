import Foundation
import PostgresClient
import Testing
import TestSupport

@Suite("COPY FROM STDIN")
struct CopyTests {
    @Test("a million rows stream through COPY in large chunks")
    func copiesOneMillionRows() throws {
        let connection = try TestCluster.freshDatabase().connect()
        try connection.execute("create unlogged table events (id bigint, name text, amount numeric)")
        var line = [UInt8]()
        let copied = try connection.copyIn("copy events from stdin") { writer in
            for id in 1...1_000_000 {
                line.removeAll(keepingCapacity: true)
                line.append(contentsOf: "\(id)\tevent-\(id % 97)\t\(id % 1000).25\n".utf8)
                try writer.write(line)
            }
        }
        #expect(copied == 1_000_000)
        let summary = try connection.query("select count(*), sum(id)::int8, count(distinct name) from events")[0]
        #expect(try summary.decode(Int.self, at: 0) == 1_000_000)
        #expect(try summary.decode(Int64.self, at: 1) == 500_000_500_000)
        #expect(try summary.decode(Int.self, at: 2) == 97)
    }

    @Test("a COPY the server rejects mid-stream reports the failing line, and loads nothing")
    func reportsFailingLine() throws {
        let connection = try TestCluster.freshDatabase().connect()
        try connection.execute("create table numbers (n int not null)")
        let error = #expect(throws: PostgresError.self) {
            try connection.copyIn("copy numbers from stdin", chunkSize: 4096) { writer in
                for n in 1...200_000 {
                    try writer.write(n == 150_000 ? "not-a-number\n" : "\(n)\n")
                }
            }
        }
        #expect(error?.sqlState == .invalidTextRepresentation)
        #expect(error?.context?.contains("line 150000") == true, "context: \(error?.context ?? "none")")
        #expect(error?.description.contains("line 150000") == true)
        #expect(try connection.query("select count(*) from numbers").scalar(Int.self) == 0)
        #expect(try connection.query("select 1").scalar(Int.self) == 1)
    }

    @Test("when the body throws, the COPY is aborted and the body's error comes back")
    func abortsOnThrow() throws {
        struct Interrupted: Error {}
        let connection = try TestCluster.freshDatabase().connect()
        try connection.execute("create table numbers (n int)")
        #expect(throws: Interrupted.self) {
            try connection.copyIn("copy numbers from stdin") { writer in
                try writer.write("1\n2\n")
                try writer.flush()
                throw Interrupted()
            }
        }
        #expect(try connection.query("select count(*) from numbers").scalar(Int.self) == 0)
        #expect(connection.isHealthy)
    }

    @Test("a statement that is not COPY FROM STDIN is refused")
    func refusesNonCopy() throws {
        let connection = try TestCluster.freshDatabase().connect()
        #expect(throws: PostgresError.self) {
            try connection.copyIn("select 1") { _ in }
        }
        #expect(try connection.query("select 2").scalar(Int.self) == 2)
    }
}
