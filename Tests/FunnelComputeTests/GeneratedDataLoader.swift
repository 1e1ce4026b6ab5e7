import Foundation
import PostgresClient

/// Loads the CSV files `funnel generate` writes into the raw tables, with SQL only, standing in
/// for the real ingest loader (which lives on another branch) so the compute core can be tested
/// end to end against truth.json.
///
/// Per kind: every file of the kind (main file first, then the `-late-` file) is COPYed as text
/// into a temporary staging table whose identity column keeps file order; rows are then cast and
/// inserted into `raw_<kind>`. Events are deduplicated by (app_id, event_id), the first copy
/// wins; ad_spend keeps the last row of each (app_id, date, network, campaign, country) key
/// (restatements come later in the file). Timestamps are RFC 3339 with an offset or Unix epoch
/// milliseconds. The generator writes plain CSV (no field needs quoting); COPY's CSV format would
/// handle quoting anyway. `ux` telemetry is not loaded: no metric tested here reads it.
enum GeneratedDataLoader {
    /// The kinds loaded, with the insert that moves staged text rows into the raw table.
    private static let inserts: [(kind: String, table: String, sql: String)] = [
        ("installs", "raw_installs", """
            insert into raw_installs (event_id, app_id, user_id, installed_at, network, platform, country,
                                      campaign, referrer_user_id, invite_id, file_id)
            select distinct on (s.app_id, s.event_id)
                   s.event_id, s.app_id, s.user_id, pg_temp.ts(s.installed_at), s.network, nullif(s.platform, ''),
                   nullif(s.country, ''), nullif(s.campaign, ''), nullif(s.referrer_user_id, ''),
                   nullif(s.invite_id, ''), 0
            from stage s
            where not exists (select 1 from raw_installs r where r.app_id = s.app_id and r.event_id = s.event_id)
            order by s.app_id, s.event_id, s.ln
            """),
        ("opens", "raw_opens", """
            insert into raw_opens (event_id, app_id, user_id, opened_at, session_seconds, file_id)
            select distinct on (s.app_id, s.event_id)
                   s.event_id, s.app_id, s.user_id, pg_temp.ts(s.opened_at), nullif(s.session_seconds, '')::integer, 0
            from stage s
            where not exists (select 1 from raw_opens r where r.app_id = s.app_id and r.event_id = s.event_id)
            order by s.app_id, s.event_id, s.ln
            """),
        ("retention", "raw_retention", """
            insert into raw_retention (event_id, app_id, user_id, day, reported_at, file_id)
            select distinct on (s.app_id, s.event_id)
                   s.event_id, s.app_id, s.user_id, s.day::integer, pg_temp.ts(s.reported_at), 0
            from stage s
            where not exists (select 1 from raw_retention r where r.app_id = s.app_id and r.event_id = s.event_id)
            order by s.app_id, s.event_id, s.ln
            """),
        ("purchases", "raw_purchases", """
            insert into raw_purchases (event_id, app_id, user_id, purchased_at, revenue, currency, product_id, file_id)
            select distinct on (s.app_id, s.event_id)
                   s.event_id, s.app_id, s.user_id, pg_temp.ts(s.purchased_at), s.revenue::numeric,
                   coalesce(nullif(s.currency, ''), 'USD'), nullif(s.product_id, ''), 0
            from stage s
            where not exists (select 1 from raw_purchases r where r.app_id = s.app_id and r.event_id = s.event_id)
            order by s.app_id, s.event_id, s.ln
            """),
        ("invites", "raw_invites", """
            insert into raw_invites (event_id, app_id, user_id, invite_id, sent_at, channel, file_id)
            select distinct on (s.app_id, s.event_id)
                   s.event_id, s.app_id, s.user_id, s.invite_id, pg_temp.ts(s.sent_at), nullif(s.channel, ''), 0
            from stage s
            where not exists (select 1 from raw_invites r where r.app_id = s.app_id and r.event_id = s.event_id)
            order by s.app_id, s.event_id, s.ln
            """),
        ("steps", "raw_steps", """
            insert into raw_steps (event_id, app_id, user_id, occurred_at, step, screen, file_id)
            select distinct on (s.app_id, s.event_id)
                   s.event_id, s.app_id, s.user_id, pg_temp.ts(s.occurred_at), s.step, nullif(s.screen, ''), 0
            from stage s
            where not exists (select 1 from raw_steps r where r.app_id = s.app_id and r.event_id = s.event_id)
            order by s.app_id, s.event_id, s.ln
            """),
        ("ad_spend", "raw_ad_spend", """
            insert into raw_ad_spend (app_id, spend_date, network, campaign, country, spend, currency,
                                      impressions, clicks, file_id)
            select distinct on (s.app_id, s.date::date, s.network, coalesce(s.campaign, ''), coalesce(s.country, ''))
                   s.app_id, s.date::date, s.network, coalesce(s.campaign, ''), coalesce(s.country, ''),
                   s.spend::numeric, coalesce(nullif(s.currency, ''), 'USD'),
                   nullif(s.impressions, '')::bigint, nullif(s.clicks, '')::bigint, 0
            from stage s
            order by s.app_id, s.date::date, s.network, coalesce(s.campaign, ''), coalesce(s.country, ''), s.ln desc
            on conflict (app_id, spend_date, network, campaign, country) do update
            set spend = excluded.spend, currency = excluded.currency,
                impressions = excluded.impressions, clicks = excluded.clicks
            """),
    ]

    /// Loads every CSV data file of `directory` into the raw tables of `connection`'s database.
    /// Returns the rows inserted per kind (after deduplication).
    @discardableResult
    static func load(directory: String, into connection: PostgresConnection,
                     from firstDate: String, to lastDate: String) throws -> [String: Int] {
        try connection.execute("""
            create or replace function pg_temp.ts(value text) returns timestamptz
            language sql immutable as $$
                select case when value ~ '^-?[0-9]+$' then to_timestamp(value::bigint / 1000.0)
                            else value::timestamptz end
            $$
            """)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".csv") }
        var loaded: [String: Int] = [:]
        for (kind, table, insert) in inserts {
            // Main file before the late file: file order decides which duplicate or restatement wins.
            let files = names.filter { $0.hasPrefix(kind + "-") }
                .sorted { ($0.contains("-late-") ? 1 : 0, $0) < ($1.contains("-late-") ? 1 : 0, $1) }
            guard !files.isEmpty else { continue }
            try connection.query("select ensure_month_partitions($1, ($2::date - 31), ($3::date + 62))",
                                 [table, firstDate, lastDate])
            let header = try headerColumns(directory + "/" + files[0])
            let columns = header.map { "\"\($0)\" text" }.joined(separator: ", ")
            try connection.execute("drop table if exists stage; create temp table stage (ln bigint generated always as identity, \(columns))")
            for file in files {
                let path = directory + "/" + file
                guard try headerColumns(path) == header else {
                    throw LoaderError("\(file): header differs from \(files[0])")
                }
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                let columnList = header.map { "\"\($0)\"" }.joined(separator: ", ")
                try connection.copyIn("copy stage (\(columnList)) from stdin with (format csv, header true)") { writer in
                    try data.withUnsafeBytes { try writer.write($0) }
                }
            }
            try connection.execute("analyze stage")
            let before = try connection.query("select count(*) from \(table)").scalar(Int.self)
            try connection.execute(insert)
            loaded[kind] = try connection.query("select count(*) from \(table)").scalar(Int.self) - before
        }
        try connection.execute("drop table if exists stage")
        for table in ["raw_installs", "raw_opens", "raw_retention", "raw_purchases", "raw_invites",
                      "raw_ad_spend", "raw_steps"] {
            try connection.execute("analyze \(table)")
        }
        return loaded
    }

    private static func headerColumns(_ path: String) throws -> [String] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw LoaderError("cannot open \(path)") }
        defer { try? handle.close() }
        let head = try handle.read(upToCount: 4096) ?? Data()
        guard let text = String(data: head, encoding: .utf8), let line = text.split(separator: "\n").first else {
            throw LoaderError("\(path): no header row")
        }
        return line.split(separator: ",").map { String($0) }
    }

    struct LoaderError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
