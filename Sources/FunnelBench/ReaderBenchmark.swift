public import FunnelIngest
import Foundation
/// Parse-only throughput of the reader (read + validate + COPY-encode, no database), for
/// `funnel bench` to report beside the load figures.
public enum ReaderBenchmark {
    /// What one run measured.
    public struct Result: Sendable {
        public var rows: Int
        public var rejected: Int
        public var bytes: Int
        public var seconds: Double
        public var rowsPerSecond: Double { seconds > 0 ? Double(rows) / seconds : 0 }
    }

    /// Reads the whole file and discards the COPY text.
    public static func run(path: String, options: ReaderOptions = ReaderOptions()) throws -> Result {
        let clock = ContinuousClock()
        let started = clock.now
        let reader = try InputFileReader(path: path, options: options)
        var sink = RowSink()
        var result = Result(rows: 0, rejected: 0, bytes: 0, seconds: 0)
        while try reader.readBatch(maxRows: 50_000, into: &sink) {
            result.rows += sink.rowsRead
            result.rejected += sink.rejects.count
            for kind in sink.kinds { result.bytes += sink.withCopyData(for: kind) { $0.count } }
            sink.reset()
        }
        let elapsed = clock.now - started
        result.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return result
    }

    /// Writes a realistic `installs` file of `rows` rows (CSV: quoted fields and optional
    /// columns left empty; about 1% invalid rows) to measure with ``run(path:options:)``.
    public static func writeSampleInstalls(path: String, rows: Int, format: InputFormat = .csv) throws {
        let networks = ["organic", "facebook", "google_ads", "unity", "applovin", "tiktok"]
        let countries = ["US", "DE", "BR", "IN", "JP", "GB", "FR", ""]
        let campaigns = ["spring_sale", "\"brand, search\"", "retarget_q2", ""]
        let base: Int64 = 1_714_550_400  // 2024-05-01T08:00:00Z
        let output = try FileOutput(path: path)
        var line: [UInt8] = []
        line.reserveCapacity(1 << 20)
        let names = ["event_id", "app_id", "user_id", "installed_at", "network", "platform", "country", "campaign",
                     "referrer_user_id", "invite_id"]
        if format == .csv { line.append(contentsOf: Array((names.joined(separator: ",") + "\n").utf8)) }
        var state: UInt64 = 0x9e37_79b9_7f4a_7c15
        for row in 0..<rows {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let r = Int(truncatingIfNeeded: state >> 33)
            var micros: [UInt8] = []
            TimestampWriter.appendTimestamp(micros: (base + Int64(r % 2_592_000)) * 1_000_000, to: &micros)
            let stamp = String(decoding: micros.prefix(19), as: UTF8.self).replacingSpace() + "Z"
            let installedAt = r % 97 == 0 ? "2024-05-01 10:00:00" : stamp
            let viral = r % 11 == 0
            let values = [
                "ev-\(row)", "com.example.app", "user-\(r % 5_000_000)", installedAt,
                viral ? "organic" : networks[r % networks.count], r % 2 == 0 ? "ios" : "Android",
                countries[r % countries.count], campaigns[r % campaigns.count],
                viral ? "user-\(r % 1000)" : "", viral ? "inv-\(row)" : "",
            ]
            let text: String
            switch format {
            case .csv:
                text = values.joined(separator: ",") + "\n"
            case .ndjson:
                let members = zip(names, values).filter { !$0.1.isEmpty }.map { name, value in
                    let unquoted = value.hasPrefix("\"") ? String(value.dropFirst().dropLast()) : value
                    return "\"\(name)\":\"\(unquoted.replacingQuotes())\""
                }
                text = "{" + members.joined(separator: ",") + "}\n"
            }
            line.append(contentsOf: Array(text.utf8))
            if line.count > (1 << 20) - 512 {
                try output.write(line)
                line.removeAll(keepingCapacity: true)
            }
        }
        try output.write(line)
        output.close()
    }
}

extension String {
    fileprivate func replacingSpace() -> String { String(map { $0 == " " ? "T" : $0 }) }
    fileprivate func replacingQuotes() -> String {
        split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\\\"")
    }
}
