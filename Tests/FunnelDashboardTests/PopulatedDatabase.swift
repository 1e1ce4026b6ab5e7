import Foundation
import FunnelCompute
import FunnelCore
import FunnelGenerate
import FunnelIngest
import Logging
import PostgresClient
import TestSupport
import Testing

/// One database per test process filled the way production fills it: `funnel generate` data
/// (2,000 users over 45 days, ad spend by hour) loaded by the ingest queue and computed by the
/// compute engine.
/// Tests only read it.
enum PopulatedDatabase {
    static var settings: ConnectionSettings {
        get throws { try shared.get() }
    }

    private static let shared: Result<ConnectionSettings, any Error> = Result {
        let settings = try TestCluster.freshDatabase(migrated: true)
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "funnel-dash-data")
        defer { try? FileManager.default.removeItem(at: directory) }
        let generated = try Generator.run(GeneratorOptions(outputDirectory: directory.path, users: 2_000, days: 45, seed: 11,
                                                           hourlySpend: true))
        let files = generated.files.map { directory.appending(path: $0.name).path }
        let logger = Logger(label: "funnel.test")
        _ = try IngestRun(settings: settings, kind: nil, assumeTimeZone: nil, workers: 2)
            .run(files: files, stop: StopFlag(), progress: IngestProgress(), logger: logger)
        let connection = try settings.connect()
        // A configured funnel with a breakdown, a retention, a trends and a lifecycle, so that
        // dash_funnel_breakdown, the retention dash views, dash_trends and dash_lifecycle have rows too.
        let configuration = try FunnelConfiguration(toml: """
            [[funnels]]
            name = "opened_by_platform"
            steps = ["install", "app_open"]
            window = "1d"
            breakdown = "platform"
            breakdown_type = "person"

            [[retention]]
            name = "weekly_opens"
            start = "app_open"
            cohorts = "recurring"
            period = "week"
            periods = 4

            [[trends]]
            name = "opens_and_revenue"
            series = ["app_open", "purchase"]
            math = ["dau", "sum(revenue)"]

            [[lifecycle]]
            name = "openers"
            event = "app_open"
            interval = "week"
            days = 56
            """)
        _ = try ComputeJob(configuration: configuration).run(connection, options: ComputeOptions(full: true))
        return settings
    }

    /// The dash_* views of the schema, from the catalog.
    static func dashViews(_ connection: PostgresConnection) throws -> [String] {
        try connection.query("""
            select c.relname from pg_class c
            where c.relnamespace = current_schema()::regnamespace and c.relkind = 'v' and c.relname like 'dash\\_%'
            order by c.relname
            """).map { try $0.decode(String.self, at: 0) }
    }
}

extension PopulatedDatabase {
    /// The dash_* views with a user_id column (one row per user): funnel_dashboard_users reads
    /// them, funnel_dashboard does not.
    static func perUserViews(_ connection: PostgresConnection) throws -> [String] {
        try connection.query("""
            select c.relname from pg_class c
            where c.relnamespace = current_schema()::regnamespace and c.relkind = 'v' and c.relname like 'dash\\_%'
              and exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'user_id' and not a.attisdropped)
            order by c.relname
            """).map { try $0.decode(String.self, at: 0) }
    }
}

/// Runs a statement and expects PostgreSQL to refuse it for lack of privilege (SQLSTATE 42501).
func expectRefused(_ connection: PostgresConnection, _ sql: String, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        try connection.execute(sql)
        Issue.record("not refused: \(sql)", sourceLocation: sourceLocation)
    } catch let error as PostgresError {
        #expect(error.sqlState?.rawValue == "42501", "\(sql): \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("\(sql): \(error)", sourceLocation: sourceLocation)
    }
}
