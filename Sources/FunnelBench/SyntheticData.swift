import FunnelSQL
public import PostgresClient

/// Deterministic synthetic raw data written straight into the raw tables with set-based SQL
/// (`sql/bench/synthetic/`), for compute tests and `funnel bench compute`. Not a substitute for
/// `funnel generate`: it plants no truth, it only has the shape and volume of real data.
public enum SyntheticData {
    /// Adds `users` users installing over `days` days from `firstDay` (UTC), and their activity
    /// from install through the last of those days. Rows carry `fileID` (0: written outside any
    /// ingest file, so only the dirty ledger tells compute about them; see `registerFile`).
    /// Returns the number of events written.
    @discardableResult
    public static func insert(into connection: PostgresConnection, app: String, users: Int, firstDay: String,
                              days: Int, seed: Int, fileID: Int = 0) throws -> Int {
        let lastDay = try connection.query("select ($1::date + $2::integer - 1)::text", [firstDay, days]).scalar(String.self)
        try ensurePartitions(connection, from: firstDay, to: lastDay, extraDays: 3)
        let installs = try connection.query(SQLCatalog.text("bench/synthetic/installs.sql"),
                                            [app, users, firstDay, days, seed, fileID]).affectedRows
        return installs + (try addActivity(connection, app: app, from: firstDay, to: lastDay, fileID: fileID))
    }

    /// Adds the activity of every synthetic user of the app on the dates from...to (UTC), and
    /// the day's ad spend: what one more day of data looks like. Returns the events written.
    @discardableResult
    public static func addActivity(_ connection: PostgresConnection, app: String, from: String, to: String,
                                   fileID: Int = 0) throws -> Int {
        try ensurePartitions(connection, from: from, to: to, extraDays: 1)
        try connection.execute("""
            create temp table if not exists syn_active (user_id text, installed_at timestamptz, day date, n integer, h integer);
            truncate syn_active
            """)
        try connection.query(SQLCatalog.text("bench/synthetic/active_days.sql"), [app, from, to])
        let events = try connection.query(SQLCatalog.text("bench/synthetic/events.sql"), [app, fileID]).scalar(Int.self)
        let spend = try connection.query(SQLCatalog.text("bench/synthetic/ad_spend.sql"),
                                         [app, from, to, fileID]).affectedRows
        try connection.execute("drop table syn_active")
        return events + spend
    }

    /// Records a loaded ingest file named `name` (as the loader does once a file's rows are in)
    /// and returns its file_id, for synthetic rows that arrive the way ingested files do.
    public static func registerFile(_ connection: PostgresConnection, name: String) throws -> Int {
        try connection.query("""
            insert into ingest_files (path, content_sha256, size_bytes, status, rows_loaded, finished_at)
            values ($1, encode(sha256(convert_to($1, 'UTF8')), 'hex'), 0, 'loaded', 0, now())
            returning file_id
            """, [name]).scalar(Int.self)
    }

    private static func ensurePartitions(_ connection: PostgresConnection, from: String, to: String, extraDays: Int) throws {
        for table in ["raw_installs", "raw_opens", "raw_retention", "raw_purchases", "raw_invites", "raw_ad_spend", "raw_steps"] {
            try connection.query("select ensure_month_partitions($1, $2::date, $3::date + $4::integer)", [table, from, to, extraDays])
        }
    }
}
