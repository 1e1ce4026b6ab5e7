import Foundation
import PostgresClient

// Row decoders for the queries of sql/reports: columns by name, non-finite numbers as undefined.

extension PostgresRow {
    func text(_ column: String) throws -> String { try decode(String.self, column: column) }
    func optionalText(_ column: String) throws -> String? { try decode(String?.self, column: column) }
    func int(_ column: String) throws -> Int { try decode(Int.self, column: column) }
    func optionalInt(_ column: String) throws -> Int? { try decode(Int?.self, column: column) }
    func bool(_ column: String) throws -> Bool { try decode(Bool.self, column: column) }

    /// A number, or nil for NULL, NaN and infinities (undefined values are never shown as numbers).
    func number(_ column: String) throws -> Double? {
        guard let value = try decode(Double?.self, column: column), value.isFinite else { return nil }
        return value
    }

    /// An amount of money from a numeric column, exactly (no detour through a double), or nil for
    /// NULL, NaN and infinities.
    func money(_ column: String) throws -> Decimal? {
        guard let text = try decode(String?.self, column: column),
              !["NaN", "Infinity", "-Infinity"].contains(text) else { return nil }
        return try decode(Decimal.self, column: column)
    }
}

extension NetworkRow {
    init(_ row: PostgresRow) throws {
        self.init(network: try row.text("network"), installs: try row.int("installs"),
                  paidInstalls: try row.int("paid_installs"), spend: try row.money("spend") ?? 0,
                  cpi: try row.money("cpi"), ltvD7: try row.money("ltv_d7"), ltvD30: try row.money("ltv_d30"),
                  ltvProjectedD180: try row.money("ltv_projected_d180"), ltvD180Low: try row.money("ltv_d180_low"),
                  ltvD180High: try row.money("ltv_d180_high"), roasD7: try row.number("roas_d7"),
                  roasD30: try row.number("roas_d30"), paybackDay: try row.optionalInt("payback_day"),
                  paybackBasis: try row.optionalText("payback_basis"), kFactor: try row.number("k_factor"),
                  verdict: try row.text("verdict"), reason: try row.text("reason"),
                  refunds: try row.int("refunds"),
                  grossRevenue: try row.money("gross_revenue") ?? 0, refunded: try row.money("refunded") ?? 0,
                  netRevenue: try row.money("net_revenue") ?? 0)
    }
}

extension FunnelRow {
    init(_ row: PostgresRow) throws {
        self.init(funnel: try row.text("funnel"), network: try row.text("network"), campaign: try row.text("campaign"),
                  country: try row.text("country"), platform: try row.text("platform"),
                  stepIndex: try row.int("step_index"), step: try row.text("step"), users: try row.int("users"),
                  conversionFromPrevious: try row.number("conversion_from_previous"),
                  conversionFromFirst: try row.number("conversion_from_first"),
                  medianSecondsToConvert: try row.number("median_seconds_to_convert"))
    }

    /// A row of reports/funnel_breakdowns.sql.
    init(breakdown row: PostgresRow) throws {
        try self.init(row)
        breakdownProperty = try row.text("property")
        breakdownValue = try row.optionalText("breakdown")
    }
}

extension FunnelTopRow {
    init(_ row: PostgresRow) throws {
        self.init(network: try row.text("network"), impressions: try row.int("impressions"), clicks: try row.int("clicks"),
                  installs: try row.int("installs"), ctr: try row.number("ctr"),
                  clickToInstall: try row.number("click_to_install"), ipm: try row.number("ipm"))
    }
}

extension RetentionRow {
    init(_ row: PostgresRow) throws {
        self.init(mode: try row.text("mode"), cohortDate: try row.text("cohort_date"), network: try row.text("network"),
                  cohortSize: try row.int("cohort_size"), day: try row.int("day"), retained: try row.int("retained"),
                  rate: try row.number("rate"))
    }
}

extension RetentionSummaryRow {
    init(_ row: PostgresRow) throws {
        self.init(mode: try row.text("mode"), network: try row.text("network"), day: try row.int("day"),
                  cohorts: try row.int("cohorts"), cohortSize: try row.int("cohort_size"),
                  retained: try row.int("retained"), rate: try row.number("rate"))
    }
}

extension RetentionBracketRow {
    init(_ row: PostgresRow) throws {
        self.init(network: try row.text("network"), bracket: try row.text("bracket"), firstDay: try row.int("first_day"),
                  lastDay: try row.int("last_day"), cohorts: try row.int("cohorts"),
                  cohortSize: try row.int("cohort_size"), retained: try row.int("retained"), rate: try row.number("rate"))
    }
}

extension CustomRetentionRow {
    init(_ row: PostgresRow) throws {
        self.init(retention: try row.text("retention"), network: try row.text("network"), measure: try row.text("measure"),
                  firstPeriod: try row.int("first_period"), lastPeriod: try row.int("last_period"),
                  cohorts: try row.int("cohorts"), cohortSize: try row.int("cohort_size"), retained: try row.int("retained"),
                  rate: try row.number("rate"))
    }
}

extension RegularUsersRow {
    init(_ row: PostgresRow) throws {
        self.init(network: try row.text("network"), cohorts: try row.int("cohorts"), cohortSize: try row.int("cohort_size"),
                  regularUsers: try row.int("regular_users"), rate: try row.number("rate"))
    }
}

extension LTVRow {
    init(_ row: PostgresRow) throws {
        self.init(network: try row.text("network"), day: try row.int("day"), projected: try row.bool("projected"),
                  cohorts: try row.optionalInt("cohorts"), installs: try row.optionalInt("installs"),
                  revenue: try row.money("revenue"), ltv: try row.money("ltv"), ltvLow: try row.money("ltv_low"),
                  ltvHigh: try row.money("ltv_high"), spend: try row.money("spend"), roas: try row.number("roas"),
                  ltvChained: try row.money("ltv_chained"), shown: try row.bool("shown"))
    }
}

extension LTVModelRow {
    init(_ row: PostgresRow) throws {
        self.init(network: try row.text("network"), model: try row.text("model"), a: try row.number("a"),
                  b: try row.number("b"), points: try row.int("points"), fitFromDay: try row.optionalInt("fit_from_day"),
                  fitToDay: try row.optionalInt("fit_to_day"), residualSd: try row.number("residual_sd"),
                  rSquared: try row.number("r_squared"), note: try row.text("note"), method: try row.optionalText("method"),
                  projection: try row.optionalText("projection"), backtestError: try row.number("backtest_error"),
                  backtestPoints: try row.optionalInt("backtest_points"),
                  intervalCoverage: try row.number("interval_coverage"),
                  coveragePoints: try row.optionalInt("coverage_points"))
    }
}

extension LTVBacktestRow {
    init(_ row: PostgresRow) throws {
        self.init(method: try row.text("method"), horizon: try row.int("horizon"), points: try row.int("points"),
                  meanAbsError: try row.number("mean_abs_error"), chosen: try row.bool("chosen"))
    }
}

extension CPIRow {
    init(_ row: PostgresRow) throws {
        self.init(date: try row.text("date"), network: try row.text("network"), campaign: try row.text("campaign"),
                  country: try row.text("country"), spend: try row.money("spend") ?? 0,
                  impressions: try row.int("impressions"), clicks: try row.int("clicks"), installs: try row.int("installs"),
                  paidInstalls: try row.int("paid_installs"), cpi: try row.money("cpi"),
                  blendedCpi: try row.money("blended_cpi"), ctr: try row.number("ctr"), ipm: try row.number("ipm"))
    }

    /// A range total per network (no date, campaign or country).
    init(totals row: PostgresRow) throws {
        self.init(date: "", network: try row.text("network"), campaign: "all", country: "all",
                  spend: try row.money("spend") ?? 0, impressions: try row.int("impressions"),
                  clicks: try row.int("clicks"), installs: try row.int("installs"),
                  paidInstalls: try row.int("paid_installs"), cpi: try row.money("cpi"),
                  blendedCpi: try row.money("blended_cpi"), ctr: try row.number("ctr"), ipm: try row.number("ipm"))
    }
}

extension KFactorRow {
    init(_ row: PostgresRow) throws {
        self.init(network: try row.text("network"), cohorts: try row.int("cohorts"), cohortSize: try row.int("cohort_size"),
                  invitesSent: try row.int("invites_sent"), viralInstalls: try row.int("viral_installs"),
                  invitesPerUser: try row.number("invites_per_user"), inviteConversion: try row.number("invite_conversion"),
                  kFactor: try row.number("k_factor"), cycleTimeHours: try row.number("cycle_time_hours"),
                  amplification: try row.number("amplification"), cpi: try row.money("cpi"),
                  viralAdjustedCpi: try row.money("viral_adjusted_cpi"))
    }
}

extension FrictionRow {
    init(_ row: PostgresRow) throws {
        self.init(screen: try row.text("screen"), frictionType: try row.text("friction_type"),
                  usersHit: try row.int("users_hit"), usersNotHit: try row.int("users_not_hit"),
                  dropoffHit: try row.number("dropoff_hit"), dropoffNotHit: try row.number("dropoff_not_hit"),
                  relativeRisk: try row.number("relative_risk"), pValue: try row.number("p_value"),
                  qValue: try row.number("q_value"), usersLost: try row.number("users_lost"),
                  flagged: try row.bool("flagged"), rank: try row.optionalInt("rank"))
    }
}
