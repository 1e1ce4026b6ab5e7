import Foundation
import FunnelCore
import FunnelSQL
public import PostgresClient

/// Reads a `Report` from the metric marts (`fct_*`) that `funnel compute` writes.
public struct ReportReader {
    public let connection: PostgresConnection

    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// The apps with computed data, most installs first.
    public func apps() throws -> [String] {
        try connection.query(SQLCatalog.text("reports/apps.sql")).map { try $0.decode(String.self, column: "app_id") }
    }

    /// The report for `request`; an empty database gives the zero state, not an error.
    public func read(_ request: ReportRequest) throws -> Report {
        let apps = try connection.query(SQLCatalog.text("reports/apps.sql"))
        let appIDs = try apps.map { try $0.decode(String.self, column: "app_id") }
        let chosen = request.app ?? appIDs.first
        let appRow = try apps.first { try $0.decode(String.self, column: "app_id") == chosen }
        let dayRule = try appRow?.decode(String.self, column: "day_rule") ?? "calendar"
        var scope = ReportScopeInfo(
            app: chosen, apps: appIDs, from: request.from, to: request.to,
            breakdowns: request.breakdowns.map(\.rawValue), dayRule: dayRule,
            dayRuleLabel: Self.label(dayRule: dayRule),
            dataThroughDate: try appRow?.decode(String?.self, column: "data_through_date"),
            computedAt: try appRow?.decode(String?.self, column: "computed_at"),
            notes: request.notes, nextSteps: [])
        if appIDs.count > 1, let chosen {
            scope.notes.insert("\(appIDs.count) apps have data (\(appIDs.joined(separator: ", "))); this report shows \(chosen), "
                + "and each has its own (funnel report --app APP).", at: 0)
        }
        scope.configuration = try configuration()
        guard let app = chosen, appRow != nil else {
            if let missing = request.app, !appIDs.isEmpty {
                scope.nextSteps = ["No computed data for app \(missing); apps with data: \(appIDs.joined(separator: ", "))."]
            } else {
                scope.nextSteps = try zeroStateSteps()
            }
            return Report.empty(scope: scope)
        }
        let byNetwork = request.breakdowns.contains(.network)
        let dims = "{" + request.breakdowns.map(\.rawValue).joined(separator: ",") + "}"
        var report = Report.empty(scope: scope)
        report.networks = try rows("networks", [app], NetworkRow.init)
        report.scope.unconverted = try connection.query(SQLCatalog.text("reports/money_unconverted.sql"), [app]).rows.map { row in
            try UnconvertedMoney(decoding: { try row.decode(String.self, column: $0) })
        }
        report.scope.notes += report.scope.unconverted.map { "Not converted to USD: \($0.notice)." }
        report.funnel = try rows("funnel", [app, dims, request.from, request.to]) { try FunnelRow($0) }
            + rows("funnel_breakdowns", [app, request.from, request.to], { try FunnelRow(breakdown: $0) })
        report.funnelTop = try rows("funnel_top", [app], FunnelTopRow.init)
        for row in try connection.query(SQLCatalog.text("reports/funnel_left_out.sql"), [app]) {
            let step = try row.decode(String.self, column: "step")
            let reason = try row.decode(String.self, column: "reason")
            report.scope.notes.append("The acquisition funnel leaves out \(step): \(reason), so its users go "
                + "straight to the next step. Load them and run 'funnel compute' to include it.")
        }
        report.retention = try rows("retention", [app, request.from, request.to, byNetwork], RetentionRow.init)
        report.retentionSummary = try rows("retention_summary", [app], RetentionSummaryRow.init)
        report.retentionBrackets = try rows("retention_brackets", [app], RetentionBracketRow.init)
        report.customRetention = try rows("custom_retention", [app], CustomRetentionRow.init)
        report.regularUsers = try rows("regular_users", [app], RegularUsersRow.init)
        report.ltv = try rows("ltv", [app], LTVRow.init)
        report.ltvModels = try rows("ltv_models", [app], LTVModelRow.init)
        report.ltvBacktest = try rows("ltv_backtest", [app], LTVBacktestRow.init)
        report.cpi = try rows("cpi", [app, request.from, request.to, request.breakdowns.contains(.campaign),
                                      request.breakdowns.contains(.country)]) { try CPIRow($0) }
        report.cpiTotals = try rows("cpi_totals", [app, request.from, request.to], CPIRow.init(totals:))
        report.kfactor = try rows("kfactor", [app], KFactorRow.init)
        report.spendResponse = try SpendResponseSection.read(connection, app: app)
        report.plan = try rows("plan", [app], PlanRow.init)
        report.campaigns = try rows("campaigns", [app, request.breakdowns.contains(.country)]) { try CampaignRow($0) }
        if report.kfactor.isEmpty {
            report.kfactorMatures = try rows("kfactor_matures", [app]) { row in
                KFactorMaturity(maturesOn: try row.text("matures_on"), firstCohort: try row.text("first_cohort"),
                                windowDays: try row.int("window_days"))
            }.first
        }
        let frictionAvailable = try connection.query(SQLCatalog.text("reports/friction_available.sql"), [app]).scalar(Bool.self)
        report.friction = frictionAvailable
            ? FrictionSection(status: .computed, rows: try rows("friction", [app], FrictionRow.init))
            : FrictionSection(status: .notComputed, rows: [])
        report.hasData = !report.networks.isEmpty || !report.funnel.isEmpty || !report.cpi.isEmpty
        if !report.hasData { report.scope.nextSteps = try zeroStateSteps() }
        return report
    }

    /// The configuration the last compute ran under, when one was recorded.
    private func configuration() throws -> ReportConfiguration? {
        guard let row = try connection.query(SQLCatalog.text("reports/configuration.sql")).rows.first else { return nil }
        let settings = try JSONDecoder().decode([ConfigurationSetting].self, from: Data(try row.decode(String.self, column: "settings").utf8))
        return ReportConfiguration(source: try row.decode(String?.self, column: "source"), settings: settings,
                                   recordedAt: try row.decode(String.self, column: "recorded_at"))
    }

    private func rows<T>(_ name: String, _ parameters: [(any PostgresEncodable)?],
                         _ make: (PostgresRow) throws -> T) throws -> [T] {
        try connection.query(SQLCatalog.text("reports/\(name).sql"), parameters).map(make)
    }

    /// What to do when there is nothing to report: load data, or compute what was loaded.
    private func zeroStateSteps() throws -> [String] {
        let counts = try connection.query(SQLCatalog.text("reports/raw_counts.sql"))
        let loaded = try counts.first?.decode(Bool.self, column: "has_installs") ?? false
        if loaded {
            return ["Data is loaded but not computed yet: run 'funnel compute', then 'funnel report' again."]
        }
        return [
            "Nothing is loaded yet. Load your exports (installs, opens, purchases, invites, ad_spend, "
                + "steps, ux; CSV or NDJSON): 'funnel ingest DIR', then 'funnel compute'.",
            "To try it on sample data: 'funnel generate --out data && funnel ingest data && funnel compute', "
                + "or 'funnel demo' for the whole job in one command.",
        ]
    }

    static func label(dayRule: String) -> String {
        dayRule == "hours24"
            ? "24-hour periods from the install moment (day 1 = 24-48 h; Adjust, Singular)"
            : "calendar days in the reporting time zone (day N = N dates after install; AppsFlyer)"
    }
}
