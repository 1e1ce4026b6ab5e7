import Foundation
import FunnelCore

/// Writes the CSV files of docs/reports.md ("CSV files"): RFC 4180 (CRLF line ends, quotes
/// doubled), a header row, rates as fractions, immature or undefined values as empty cells, money
/// in USD as the exact decimal the marts hold (16191.93; no rounding, no float noise), and any text
/// cell a spreadsheet would run as a formula neutralised with a leading single quote.
public enum CSVRenderer {
    /// A CSV cell: text (neutralised if formula-like) or a number (written as is).
    enum Cell {
        case text(String)
        case number(Double?)
        /// An exact decimal amount, written in plain digits without trailing zeros.
        case money(Decimal?)
        case integer(Int?)
        case boolean(Bool)
    }

    /// The files, in order, each as (file name, header, rows).
    static func tables(_ report: Report) -> [(name: String, header: [String], rows: [[Cell]])] {
        [
            ("funnel.csv", ["funnel", "network", "campaign", "country", "platform", "step_index", "step", "users",
                            "conversion_from_previous", "conversion_from_first", "median_seconds_to_convert",
                            "breakdown_property", "breakdown_value"],
             report.funnel.map {
                 [.text($0.funnel), .text($0.network), .text($0.campaign), .text($0.country), .text($0.platform),
                  .integer($0.stepIndex), .text($0.step), .integer($0.users), .number($0.conversionFromPrevious),
                  .number($0.conversionFromFirst), .number($0.medianSecondsToConvert),
                  .text($0.breakdownProperty ?? ""), .text($0.breakdownValue ?? "")]
             }),
            ("retention.csv", ["mode", "cohort_date", "network", "cohort_size", "day", "retained", "rate"],
             report.retention.map {
                 [.text($0.mode), .text($0.cohortDate), .text($0.network), .integer($0.cohortSize), .integer($0.day),
                  .integer($0.retained), .number($0.rate)]
             }),
            ("custom_retention.csv", ["retention", "network", "measure", "first_period", "last_period", "cohorts",
                                      "cohort_size", "retained", "rate"],
             report.customRetention.map {
                 [.text($0.retention), .text($0.network), .text($0.measure), .integer($0.firstPeriod),
                  .integer($0.lastPeriod), .integer($0.cohorts), .integer($0.cohortSize), .integer($0.retained),
                  .number($0.rate)]
             }),
            ("ltv.csv", ["network", "day", "installs", "revenue", "ltv", "projected", "ltv_low", "ltv_high",
                         "cohorts", "spend", "roas", "ltv_chained", "shown"],
             report.ltv.map {
                 [.text($0.network), .integer($0.day), .integer($0.installs), .money($0.revenue), .money($0.ltv),
                  .boolean($0.projected), .money($0.ltvLow), .money($0.ltvHigh), .integer($0.cohorts),
                  .money($0.spend), .number($0.roas), .money($0.ltvChained), .boolean($0.shown)]
             }),
            ("ltv_models.csv", ["network", "method", "backtest_error", "backtest_points", "interval_coverage",
                                "coverage_points", "projection", "model", "a", "b", "r_squared", "note"],
             report.ltvModels.map {
                 [.text($0.network), .text($0.method ?? ""), .number($0.backtestError), .integer($0.backtestPoints),
                  .number($0.intervalCoverage), .integer($0.coveragePoints), .text($0.projection ?? ""), .text($0.model),
                  .number($0.a), .number($0.b), .number($0.rSquared), .text($0.note)]
             }),
            ("ltv_backtest.csv", ["method", "horizon", "points", "mean_abs_error", "chosen"],
             report.ltvBacktest.map {
                 [.text($0.method), .integer($0.horizon), .integer($0.points), .number($0.meanAbsError), .boolean($0.chosen)]
             }),
            ("cpi.csv", ["date", "network", "campaign", "country", "spend", "impressions", "clicks", "installs",
                         "paid_installs", "cpi", "blended_cpi", "ctr", "ipm"],
             report.cpi.map {
                 [.text($0.date), .text($0.network), .text($0.campaign), .text($0.country), .money($0.spend),
                  .integer($0.impressions), .integer($0.clicks), .integer($0.installs), .integer($0.paidInstalls),
                  .money($0.cpi), .money($0.blendedCpi), .number($0.ctr), .number($0.ipm)]
             }),
            ("kfactor.csv", ["network", "cohort_size", "invites_sent", "viral_installs", "invites_per_user",
                             "invite_conversion", "k_factor", "cycle_time_hours", "amplification", "cpi",
                             "viral_adjusted_cpi", "cohorts", "matures_on"],
             report.kfactor.map {
                 [.text($0.network), .integer($0.cohortSize), .integer($0.invitesSent), .integer($0.viralInstalls),
                  .number($0.invitesPerUser), .number($0.inviteConversion), .number($0.kFactor),
                  .number($0.cycleTimeHours), .number($0.amplification), .money($0.cpi),
                  .money($0.viralAdjustedCpi), .integer($0.cohorts), .text("")]
             } + (report.kfactor.isEmpty ? report.kfactorMatures.map { matures in
                 // Before the first cohort is mature for the window: one row saying from when.
                 [[.text("all")] + Array(repeating: Cell.integer(nil), count: 10) + [.integer(0), .text(matures.maturesOn)]]
             } ?? [] : [])),
            ("friction.csv", ["screen", "friction_type", "users_hit", "users_not_hit", "dropoff_hit", "dropoff_not_hit",
                              "relative_risk", "p_value", "users_lost", "flagged", "q_value", "rank"],
             report.friction.rows.map {
                 [.text($0.screen), .text($0.frictionType), .integer($0.usersHit), .integer($0.usersNotHit),
                  .number($0.dropoffHit), .number($0.dropoffNotHit), .number($0.relativeRisk), .number($0.pValue),
                  .integer($0.usersLost.flatMap { $0.isFinite ? Int($0.rounded()) : nil }), .boolean($0.flagged),
                  .number($0.qValue), .integer($0.rank)]
             }),
            ("networks.csv", ["network", "installs", "paid_installs", "spend", "cpi", "ltv_d7", "ltv_d30",
                              "ltv_projected_d180", "roas_d7", "roas_d30", "payback_day", "k_factor", "verdict",
                              "reason", "ltv_d180_low", "ltv_d180_high", "payback_basis",
                              "gross_revenue", "refunds", "refunded", "net_revenue"],
             report.networks.map {
                 [.text($0.network), .integer($0.installs), .integer($0.paidInstalls), .money($0.spend),
                  .money($0.cpi), .money($0.ltvD7), .money($0.ltvD30), .money($0.ltvProjectedD180),
                  .number($0.roasD7), .number($0.roasD30), .integer($0.paybackDay), .number($0.kFactor),
                  .text($0.verdict), .text($0.reason), .money($0.ltvD180Low), .money($0.ltvD180High),
                  .text($0.paybackBasis ?? ""), .money($0.grossRevenue),
                  .integer($0.refunds), .money($0.refunded), .money($0.netRevenue)]
             }),
            ("campaigns.csv", ["level", "network", "campaign", "country", "cohorts", "installs", "paid_installs", "payers",
                               "spend", "cpi", "ltv_d7", "ltv_d30", "ltv_d90", "roas_d7", "roas_d30", "roas_d90",
                               "observed_ltv_d7", "pooled_ltv_d7", "pooling_weight", "ltv_projected_d180", "ltv_d180_low",
                               "ltv_d180_high", "roas_projected_d180", "payback_day", "payback_basis", "verdict", "reason"],
             report.campaigns.map {
                 [.text($0.level), .text($0.network), .text($0.campaign), .text($0.country), .integer($0.cohorts),
                  .integer($0.installs), .integer($0.paidInstalls), .integer($0.payers), .money($0.spend), .money($0.cpi),
                  .money($0.ltvD7), .money($0.ltvD30), .money($0.ltvD90), .number($0.roasD7), .number($0.roasD30),
                  .number($0.roasD90), .money($0.observedLtvD7), .money($0.pooledLtvD7), .number($0.poolingWeight),
                  .money($0.ltvProjectedD180), .money($0.ltvD180Low), .money($0.ltvD180High),
                  .number($0.roasProjectedD180), .integer($0.paybackDay), .text($0.paybackBasis ?? ""),
                  .text($0.verdict), .text($0.reason)]
             }),
            ("money_unconverted.csv", ["app_id", "source", "currency", "rows", "amount", "first_date", "last_date",
                                       "left_out", "notice"],
             report.scope.unconverted.map {
                 [.text($0.appID), .text($0.source), .text($0.currency), .integer(Int($0.rows)), .text($0.amount),
                  .text($0.firstDate), .text($0.lastDate), .text($0.leftOut), .text($0.notice)]
             }),
            ("configuration.csv", ["key", "value"],
             report.scope.configuration.map { configuration in
                 [[.text("source"), .text(configuration.source ?? "")], [.text("computed_at"), .text(configuration.recordedAt)]]
                     + configuration.settings.map { [.text($0.key), .text($0.value)] }
             } ?? []),
        ] + spendResponseTables(report)
    }

    /// Every file as (name, contents).
    public static func render(_ report: Report) -> [(name: String, contents: String)] {
        tables(report).map { table in
            let lines = [table.header.map(quote)] + table.rows.map { $0.map(field) }
            return (table.name, lines.map { $0.joined(separator: ",") + "\r\n" }.joined())
        }
    }

    static func field(_ cell: Cell) -> String {
        switch cell {
        case .text(let text): quote(neutralise(text))
        case .number(let value): value.map(number) ?? ""
        case .money(let value): value.map(\.description) ?? ""
        case .integer(let value): value.map(String.init) ?? ""
        case .boolean(let value): value ? "true" : "false"
        }
    }

    /// Shortest round-trip form; integral values without a trailing ".0".
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "" }
        if value == value.rounded(), value.magnitude < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A cell starting with = + - @ TAB or CR would run as a formula in a spreadsheet: prefix a
    /// single quote. A plain number (`-12.5`) is data, not a formula, and stays as it is.
    static func neutralise(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return text }
        if isPlainNumber(text) { return text }
        return "'" + text
    }

    static func isPlainNumber(_ text: String) -> Bool {
        text.wholeMatch(of: /[-+]?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/) != nil
    }

    /// RFC 4180: quote a field holding a comma, a quote or a line break; double its quotes.
    static func quote(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
