import Foundation
import FunnelCompute
import FunnelCore
@testable import FunnelReports
import PostgresClient
import TestSupport

/// A fresh migrated database with helpers that insert raw rows (as the loader would), run compute
/// and read the report. Times are RFC 3339 text.
final class ReportFixture {
    let connection: PostgresConnection
    let settings: ConnectionSettings
    let app = "app"
    private var serial = 0

    init() throws {
        settings = try TestCluster.freshDatabase(migrated: true)
        connection = try settings.connect()
        for table in ["raw_installs", "raw_opens", "raw_retention", "raw_purchases", "raw_invites", "raw_ad_spend", "raw_steps"] {
            try connection.query("select ensure_month_partitions($1, '2024-01-01', '2024-12-31')", [table])
        }
    }

    private func nextID() -> String {
        serial += 1
        return "e\(serial)"
    }

    func install(_ user: String, _ at: String, network: String = "organic", country: String? = nil,
                 platform: String? = nil, referrer: String? = nil) throws {
        try connection.query("""
            insert into raw_installs (event_id, app_id, user_id, installed_at, network, platform, country, campaign,
                                      referrer_user_id, invite_id, file_id)
            values ($1, $2, $3, $4::timestamptz, $5, $6, $7, null, $8, null, 0)
            """, [nextID(), app, user, at, network, platform, country, referrer])
    }

    func open(_ user: String, _ at: String) throws {
        try connection.query("insert into raw_opens (event_id, app_id, user_id, opened_at, file_id) values ($1, $2, $3, $4::timestamptz, 0)",
                             [nextID(), app, user, at])
    }

    func purchase(_ user: String, _ at: String, revenue: Double) throws {
        try connection.query("""
            insert into raw_purchases (event_id, app_id, user_id, purchased_at, revenue, currency, file_id)
            values ($1, $2, $3, $4::timestamptz, $5, 'USD', 0)
            """, [nextID(), app, user, at, revenue])
    }

    func spend(_ date: String, network: String, spend: Double, impressions: Int = 0, clicks: Int = 0) throws {
        try connection.query("""
            insert into raw_ad_spend (app_id, spend_date, network, campaign, country, spend, currency, impressions, clicks, file_id)
            values ($1, $2::date, $3, '', '', $4, 'USD', $5, $6, 0)
            """, [app, date, network, spend, impressions, clicks])
    }

    func compute(_ configuration: FunnelConfiguration = FunnelConfiguration()) throws {
        guard try ComputeEngine(configuration: configuration).run(connection, options: ComputeOptions(full: true)) != nil else {
            throw ComputeError("compute lock was busy")
        }
    }

    func report(_ request: ReportRequest = ReportRequest()) throws -> Report {
        try ReportReader(connection: connection).read(request)
    }

    /// The hand-computed fixture: 4 users on 2 networks on 2024-03-01, data through 2024-03-05.
    /// adnova: a1, a2 (spend 10 -> CPI 5); a1 opens on day 1, buys 4 USD on day 0.
    /// pixelreach: p1, p2 (spend 30 -> CPI 15); nobody returns; p2 buys 2 USD on day 2.
    static func handComputed() throws -> ReportFixture {
        let f = try ReportFixture()
        try f.install("a1", "2024-03-01T10:00:00Z", network: "adnova", country: "DE", platform: "ios")
        try f.install("a2", "2024-03-01T11:00:00Z", network: "adnova", country: "FR", platform: "android")
        try f.install("p1", "2024-03-01T12:00:00Z", network: "pixelreach", country: "DE", platform: "ios")
        try f.install("p2", "2024-03-01T13:00:00Z", network: "pixelreach", country: "DE", platform: "android")
        try f.open("a1", "2024-03-02T09:00:00Z")
        try f.purchase("a1", "2024-03-01T12:00:00Z", revenue: 4)
        try f.purchase("p2", "2024-03-03T12:00:00Z", revenue: 2)
        try f.open("a2", "2024-03-05T09:00:00Z")
        try f.spend("2024-03-01", network: "adnova", spend: 10, impressions: 1000, clicks: 50)
        try f.spend("2024-03-01", network: "pixelreach", spend: 30, impressions: 2000, clicks: 20)
        try f.compute()
        return f
    }
}

/// A temporary directory removed by the caller.
func temporaryDirectory() throws -> URL {
    try TestCluster.makeTemporaryDirectory(prefix: "funnel-reports-test")
}
