import Foundation
import FunnelGenerate
import FunnelPipeline
import FunnelQuery
import PostgresClient

/// Loads the generated events CSV into raw_events the fast way for a benchmark: the month
/// partitions it needs, one COPY (every row with file_id 0), the key table from it, ANALYZE.
enum BenchEventLoader {
    static func load(csv: URL, summary: EventStreamGenerator.Summary, into connection: PostgresConnection) throws -> Int {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        formatter.timeZone = TimeZone(identifier: "UTC")
        func date(_ micros: Int64) -> String { formatter.string(from: Date(timeIntervalSince1970: Double(micros) / 1_000_000)) }
        try connection.query("select ensure_month_partitions('raw_events', $1::date, $2::date)",
                             [date(summary.firstMicros), date(summary.lastMicros)])
        guard let input = FileHandle(forReadingAtPath: csv.path) else { throw CommandFailure("cannot read \(csv.path)") }
        defer { try? input.close() }
        let rows = try connection.copyIn("""
            copy raw_events (event_id, app_id, user_id, event, occurred_at, properties, file_id) from stdin with (format csv)
            """) { writer in
            // Each line as it is, with file_id appended; the header is left out.
            var pending: [UInt8] = []
            var skippedHeader = false
            var out: [UInt8] = []
            while let chunk = try input.read(upToCount: 1 << 22), !chunk.isEmpty {
                pending.append(contentsOf: chunk)
                out.removeAll(keepingCapacity: true)
                var lineStart = 0
                for index in pending.indices where pending[index] == UInt8(ascii: "\n") {
                    if skippedHeader {
                        out.append(contentsOf: pending[lineStart..<index])
                        out.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: "0"), UInt8(ascii: "\n")])
                    }
                    skippedHeader = true
                    lineStart = index + 1
                }
                pending.removeFirst(lineStart)
                try writer.write(out)
            }
        }
        try connection.execute("insert into raw_events_keys (app_id, event_id) select app_id, event_id from raw_events")
        try connection.execute("analyze raw_events")
        try connection.execute("analyze raw_events_keys")
        return rows
    }
}

/// Per breakdown value, the users at each step and the excluded users: what the two sides of
/// `funnel bench query` must agree on.
struct BenchFunnelFigures: Decodable {
    struct Series: Decodable {
        var value: String?
        var steps: [Int]
        var excluded: Int
    }

    var series: [Series]

    init(_ result: FunnelQueryResult) {
        series = result.series.map { Series(value: $0.value, steps: $0.steps.map(\.users), excluded: $0.excluded) }
    }

    /// Prints each value's figures, funnel's beside the peer's; returns the (value, step) pairs
    /// that differ.
    func printBeside(_ other: BenchFunnelFigures?, peer: String = "DuckDB") -> [String] {
        var values = series.map(\.value)
        for theirs in other?.series ?? [] where !values.contains(theirs.value) { values.append(theirs.value) }
        var differing: [String] = []
        let stepCount = EventStreamGenerator.steps.count
        for value in values {
            let label = value ?? "(none)"
            let ours = series.first { $0.value == value }
            let theirs = other.map { $0.series.first { $0.value == value } }
            func figures(_ side: Series?) -> [Int] { (side?.steps ?? [Int](repeating: 0, count: stepCount)) + [side?.excluded ?? 0] }
            let mine = figures(ours)
            DailyBenchmark.say("  platform \(label):")
            for index in 0...stepCount {
                let name = index < stepCount ? "step \(index + 1) \(EventStreamGenerator.steps[index])" : "excluded"
                let padded = name.padding(toLength: 32, withPad: " ", startingAt: 0)
                var line = "    \(padded) funnel \(String(mine[index]).padding(toLength: 10, withPad: " ", startingAt: 0))"
                if let theirs {
                    let figure = figures(theirs)[index]
                    line += " \(peer) \(figure)"
                    if figure != mine[index] {
                        line += "  <- differs"
                        differing.append("(\(label), \(index < stepCount ? "step \(index + 1)" : "excluded"))")
                    }
                }
                DailyBenchmark.say(line)
            }
        }
        return differing
    }
}

/// What bench/duckdb_funnel.py prints.
struct BenchFunnelBaseline: Decodable {
    var duckdbVersion: String
    var threads: Int
    var loadSeconds: Double
    var querySeconds: Double
    var rowsLoaded: Int
    var series: [BenchFunnelFigures.Series]
    /// The trends question's time and days (nil from a script that does not ask it).
    var trendsSeconds: Double?
    var days: [BenchTrendDay]?

    var figures: BenchFunnelFigures { BenchFunnelFigures(series: series) }
}

extension BenchFunnelFigures {
    init(series: [Series]) { self.series = series }
}
