import FunnelSQL
public import PostgresClient

/// Deterministic synthetic raw data written straight into the raw tables with set-based SQL
/// (`sql/compute/synthetic/`), for compute tests and `funnel bench compute`. Not a substitute for
/// `funnel generate`: it plants no truth, it only has the shape and volume of real data.
public enum SyntheticData {
    /// Adds `users` users installing over `days` days from `firstDay` (UTC), and their activity
    /// from install through the last of those days. Returns the number of events written.
    @discardableResult
    public static func insert(into connection: PostgresConnection, app: String, users: Int, firstDay: String,
                              days: Int, seed: Int) throws -> Int {
        let lastDay = try connection.query("select ($1::date + $2::integer - 1)::text", [firstDay, days]).scalar(String.self)
        try ensurePartitions(connection, from: firstDay, to: lastDay, extraDays: 3)
        let installs = try connection.query(SQLCatalog.text("compute/synthetic/installs.sql"),
                                            [app, users, firstDay, days, seed]).affectedRows
        return installs + (try addActivity(connection, app: app, from: firstDay, to: lastDay))
    }

    /// Adds the activity of every synthetic user of the app on the dates from...to (UTC), and
    /// the day's ad spend: what one more day of data looks like. Returns the events written.
    @discardableResult
    public static func addActivity(_ connection: PostgresConnection, app: String, from: String, to: String) throws -> Int {
        try ensurePartitions(connection, from: from, to: to, extraDays: 1)
        try connection.execute("""
            create temp table if not exists syn_active (user_id text, installed_at timestamptz, day date, n integer, h integer);
            truncate syn_active
            """)
        try connection.query(SQLCatalog.text("compute/synthetic/active_days.sql"), [app, from, to])
        let events = try connection.query(SQLCatalog.text("compute/synthetic/events.sql"), [app]).scalar(Int.self)
        let spend = try connection.query(SQLCatalog.text("compute/synthetic/ad_spend.sql"), [app, from, to]).affectedRows
        try connection.execute("drop table syn_active")
        return events + spend
    }

    private static func ensurePartitions(_ connection: PostgresConnection, from: String, to: String, extraDays: Int) throws {
        for table in ["raw_installs", "raw_opens", "raw_retention", "raw_purchases", "raw_invites", "raw_ad_spend", "raw_steps"] {
            try connection.query("select ensure_month_partitions($1, $2::date, $3::date + $4::integer)", [table, from, to, extraDays])
        }
    }
}
