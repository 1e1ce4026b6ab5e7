import FunnelCompute
import FunnelCore
import PostgresClient
import TestSupport

/// A fresh migrated database with helpers that insert raw rows with SQL (as the loader would)
/// and run compute. Times are RFC 3339 text (`2024-03-01T10:00:00Z`).
final class ComputeFixture {
    let connection: PostgresConnection
    let settings: ConnectionSettings
    let app: String
    private var serial = 0

    init(app: String = "app") throws {
        settings = try TestCluster.freshDatabase(migrated: true)
        connection = try settings.connect()
        self.app = app
        for table in ["raw_installs", "raw_opens", "raw_retention", "raw_purchases", "raw_invites",
                      "raw_ad_spend", "raw_steps"] {
            try connection.query("select ensure_month_partitions($1, '2024-01-01', '2024-12-31')", [table])
        }
    }

    private func nextID() -> String {
        serial += 1
        return "e\(serial)"
    }

    func install(_ user: String, _ at: String, network: String = "organic", campaign: String? = nil,
                 country: String? = nil, platform: String? = nil, referrer: String? = nil, invite: String? = nil) throws {
        try connection.query("""
            insert into raw_installs (event_id, app_id, user_id, installed_at, network, platform, country, campaign,
                                      referrer_user_id, invite_id, file_id)
            values ($1, $2, $3, $4::timestamptz, $5, $6, $7, $8, $9, $10, 0)
            """, [nextID(), app, user, at, network, platform, country, campaign, referrer, invite])
    }

    func open(_ user: String, _ at: String) throws {
        try connection.query("""
            insert into raw_opens (event_id, app_id, user_id, opened_at, file_id) values ($1, $2, $3, $4::timestamptz, 0)
            """, [nextID(), app, user, at])
    }

    func retention(_ user: String, day: Int, _ at: String) throws {
        try connection.query("""
            insert into raw_retention (event_id, app_id, user_id, day, reported_at, file_id)
            values ($1, $2, $3, $4, $5::timestamptz, 0)
            """, [nextID(), app, user, day, at])
    }

    func purchase(_ user: String, _ at: String, revenue: Double, currency: String = "USD") throws {
        try connection.query("""
            insert into raw_purchases (event_id, app_id, user_id, purchased_at, revenue, currency, file_id)
            values ($1, $2, $3, $4::timestamptz, $5, $6, 0)
            """, [nextID(), app, user, at, revenue, currency])
    }

    func invite(_ user: String, _ inviteID: String, _ at: String) throws {
        try connection.query("""
            insert into raw_invites (event_id, app_id, user_id, invite_id, sent_at, file_id)
            values ($1, $2, $3, $4, $5::timestamptz, 0)
            """, [nextID(), app, user, inviteID, at])
    }

    func step(_ user: String, _ step: String, _ at: String) throws {
        try connection.query("""
            insert into raw_steps (event_id, app_id, user_id, occurred_at, step, file_id)
            values ($1, $2, $3, $4::timestamptz, $5, 0)
            """, [nextID(), app, user, at, step])
    }

    func spend(_ date: String, network: String, spend: Double, impressions: Int = 0, clicks: Int = 0,
               campaign: String = "", country: String = "", currency: String = "USD", hour: Int? = nil) throws {
        try connection.query("""
            insert into raw_ad_spend (app_id, spend_date, network, campaign, country, spend, currency, impressions, clicks,
                                      hour, file_id)
            values ($1, $2::date, $3, $4, $5, $6, $7, $8, $9, $10::smallint, 0)
            on conflict (app_id, spend_date, network, campaign, country, adset, creative, hour)
            do update set spend = excluded.spend, impressions = excluded.impressions, clicks = excluded.clicks
            """, [app, date, network, campaign, country, spend, currency, impressions, clicks, hour])
    }

    /// Marks UTC dates dirty, as the loader does for the data it loads.
    func markDirty(_ dates: String...) throws {
        for date in dates {
            try connection.query("insert into dirty_cohort_days (app_id, cohort_date) values ($1, $2::date) on conflict do nothing",
                                 [app, date])
        }
    }

    @discardableResult
    func compute(_ configuration: FunnelConfiguration = FunnelConfiguration(), full: Bool = false) throws -> ComputeSummary {
        guard let summary = try ComputeEngine(configuration: configuration).run(connection, options: ComputeOptions(full: full)) else {
            throw ComputeError("compute lock was busy")
        }
        return summary
    }

    /// One value of a query, or nil for SQL NULL / no row.
    func double(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) throws -> Double? {
        let rows = try connection.query(sql, parameters)
        guard let row = rows.first else { return nil }
        return try row.decode(Double?.self, at: 0)
    }

    func int(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) throws -> Int? {
        let rows = try connection.query(sql, parameters)
        guard let row = rows.first else { return nil }
        return try row.decode(Int?.self, at: 0)
    }

    /// Every row of a table as text, sorted, for comparing two runs.
    func snapshot(_ table: String) throws -> [String] {
        try Self.snapshot(connection, table)
    }

    /// Every row of a table (or parenthesised query) as text, sorted, on any connection.
    static func snapshot(_ connection: PostgresConnection, _ table: String) throws -> [String] {
        try connection.query("select t::text from \(table) t").map { try $0.decode(String.self, at: 0) }.sorted()
    }
}
