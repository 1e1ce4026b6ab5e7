import Foundation

/// The report as one JSON document for machines.
///
/// Shape (keys snake_case, sorted; rates are fractions, money USD written as the exact decimal the
/// marts hold, e.g. 16191.93, never rounded or with float noise; an immature or undefined value is
/// left out of its object, never 0):
/// ```
/// { "scope": {"app", "apps", "from", "to", "breakdowns", "day_rule", "day_rule_label",
///             "data_through_date", "computed_at", "notes", "next_steps"},
///   "has_data": bool,
///   "networks": [networks.csv columns + ltv_d180_low, ltv_d180_high, payback_basis],
///   "campaigns": [campaigns.csv columns but level],
///   "funnel": [funnel.csv columns], "funnel_top": [{network, impressions, clicks, installs, ctr,
///   click_to_install, ipm}], "retention": [retention.csv columns],
///   "retention_summary": [{mode, network, day, cohorts, cohort_size, retained, rate}],
///   "retention_brackets": [...], "regular_users": [...], "ltv": [ltv.csv columns + cohorts, spend, roas],
///   "ltv_models": [{network, model, a, b, points, fit_from_day, fit_to_day, residual_sd, r_squared, note, method,
///                   projection, backtest_error, backtest_points, interval_coverage, coverage_points}],
///   "ltv_backtest": [ltv_backtest.csv columns],
///   "cpi": [cpi.csv columns], "cpi_totals": [the same per network over the range, date ""],
///   "kfactor": [kfactor.csv columns + cohorts],
///   "friction": {"status": "computed" | "not_computed", "rows": [friction.csv columns + q_value, rank]} }
/// ```
public enum JSONRenderer {
    public static func render(_ report: Report) throws -> String {
        // The keys are snake_case already (each type's CodingKeys): no key strategy to apply.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(report), as: UTF8.self) + "\n"
    }
}
