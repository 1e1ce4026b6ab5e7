import Foundation
public import FunnelCore
import FunnelSQL
public import PostgresClient

/// The configuration in force as the SQL reads it: the row `compute_settings` (every setting the
/// statements use, the file it came from and every setting as written, for the record) and the
/// funnels' step labels and breakdowns. It is the one route by which the configuration reaches a
/// computation: `ComputeJob` writes it in a short transaction of its own, holding the compute
/// lock, before the metrics and friction start, and both lanes read it (friction, on its own
/// connection, could not see a row written inside the metrics' transaction). What each lane
/// computed under is recorded by the lane itself (`computed_under`, `ComputeLedger`).
public struct ComputeSettings: Sendable {
    public let configuration: FunnelConfiguration
    /// The file the configuration came from; nil for the built-in defaults.
    public let source: String?

    public init(configuration: FunnelConfiguration, source: String? = nil) {
        self.configuration = configuration
        self.source = source
    }

    /// PostgreSQL must know the configured time zone too (its tz database can differ from the
    /// system's). A zone the last run was computed in passed this check then: listing the zones
    /// reads PostgreSQL's whole tz database (63-86 ms measured), so a daily run skips it.
    private func checkTimeZone(_ connection: PostgresConnection) throws {
        let known = try connection.query("""
            select exists (select 1 from compute_settings where app_id = '' and time_zone = $1)
                or exists (select 1 from pg_timezone_names where name = $1)
            """, [configuration.timeZone]).scalar(Bool.self)
        guard known else {
            throw ComputeError("time_zone: PostgreSQL does not know the time zone \"\(configuration.timeZone)\"; "
                + "use an IANA name it lists in pg_timezone_names, such as \"UTC\" or \"Europe/Berlin\"")
        }
    }

    /// Writes the settings row and the funnels' step labels that the SQL reads, in a transaction of
    /// their own (a savepoint inside a caller's), after checking the time zone.
    public func write(_ connection: PostgresConnection) throws {
        try connection.transaction { connection in
            try checkTimeZone(connection)
            try writeRows(connection)
        }
    }

    private func writeRows(_ connection: PostgresConnection) throws {
        let config = configuration
        let settings = String(decoding: try JSONEncoder().encode(config.settings), as: UTF8.self)
        let brackets = config.retentionBrackets.map { "[\($0.lowerBound),\($0.upperBound)]" }
        try connection.query("""
            insert into compute_settings (app_id, time_zone, day_rule, onboarding_step, window_days,
                purchase_window_days, regular_opens, regular_days, revenue_share, kfactor_window_days, max_day,
                brackets, double_down_ratio, cut_ratio, config_fingerprint, min_installs, min_payers, ltv_horizon,
                source, settings)
            values ('', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::int4range[], $12, $13, $14, $15, $16, $17,
                    $18, $19::jsonb)
            on conflict (app_id) do update set
                time_zone = excluded.time_zone, day_rule = excluded.day_rule,
                onboarding_step = excluded.onboarding_step, window_days = excluded.window_days,
                purchase_window_days = excluded.purchase_window_days, regular_opens = excluded.regular_opens,
                regular_days = excluded.regular_days, revenue_share = excluded.revenue_share,
                kfactor_window_days = excluded.kfactor_window_days, max_day = excluded.max_day,
                brackets = excluded.brackets, double_down_ratio = excluded.double_down_ratio,
                cut_ratio = excluded.cut_ratio, config_fingerprint = excluded.config_fingerprint,
                min_installs = excluded.min_installs, min_payers = excluded.min_payers,
                ltv_horizon = excluded.ltv_horizon, source = excluded.source, settings = excluded.settings
            """,
            [config.timeZone, config.dayRule.sqlName, config.onboardingStep, config.windowDays,
             config.purchaseWindowDays, config.regularOpens, config.regularDays, config.revenueShare,
             config.kFactorWindowDays, config.maxDay, brackets, config.doubleDownRatio, config.cutRatio,
             config.fingerprint, config.minInstalls, config.minPayers, config.ltvHorizons.max() ?? 365, source, settings])
        try connection.execute("delete from compute_funnels where app_id = ''")
        var funnels: [String] = []
        var indexes: [Int] = []
        var labels: [String] = []
        for (index, label) in config.defaultFunnelSteps.enumerated() {
            funnels.append("default")
            indexes.append(index)
            labels.append(label)
        }
        for funnel in config.funnels {
            for (index, label) in funnel.stepLabels.enumerated() {
                funnels.append(funnel.name)
                indexes.append(index)
                labels.append(label)
            }
        }
        try connection.query("""
            insert into compute_funnels (app_id, funnel, step_index, step)
            select '', * from unnest($1::text[], $2::integer[], $3::text[])
            """, [funnels, indexes, labels])
        try connection.execute("delete from compute_funnel_breakdowns")
        let broken = config.funnels.compactMap { funnel in funnel.spec.breakdown.map { (funnel.name, $0) } }
        try connection.query("""
            insert into compute_funnel_breakdowns (funnel, property, source, attribution)
            select * from unnest($1::text[], $2::text[], $3::text[], $4::text[])
            """, [broken.map(\.0), broken.map(\.1.property), broken.map(\.1.source.rawValue), broken.map(\.1.attribution.text)])
    }
}

extension ComputeEngine {
    /// Whether the metrics were last computed under another configuration.
    func configurationChanged(_ connection: PostgresConnection) throws -> Bool {
        try connection.query(
            "select exists (select 1 from computed_under where lane = 'metrics' and fingerprint is distinct from $1)",
            [configuration.fingerprint]).scalar(Bool.self)
    }

    /// Records which inputs of the default funnel each app has (`funnel_inputs.sql`) and returns
    /// the apps whose facts were derived under another answer; their steps must be derived again.
    /// The apps are listed first, in a statement of their own (`installed_apps.sql`: Citus runs its
    /// recursive listing only apart from the distributed tables the probes read).
    func defaultFunnelInputsChanged(_ connection: PostgresConnection) throws -> [String] {
        let apps = try connection.query(SQLCatalog.text("bookkeeping/metrics/installed_apps.sql")).map { try $0.decode(String.self, at: 0) }
        return try connection.query(SQLCatalog.text("bookkeeping/metrics/funnel_inputs.sql"), [apps]).map { try $0.decode(String.self, at: 0) }
    }
}
