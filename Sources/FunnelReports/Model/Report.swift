public import Foundation
public import FunnelCore

/// Everything one report shows, read from the metric marts for one app. Renderers only format it.
///
/// Rates are fractions 0..1, money is USD; `nil` means immature or undefined (never 0). Money is
/// `Decimal`, read exactly from the marts' numeric columns: JSON and CSV carry it as it is
/// (16191.93, never 16191.929999999997), and only text and HTML round it, for display.
/// The JSON document (`JSONRenderer`) is this value with snake_case keys, which each type spells
/// out in its `CodingKeys`: with the encoder's `convertToSnakeCase` strategy, which converts every
/// key of every row again, a year's report (134k retention rows) took 0.92-1.00 s of processor
/// time to write as JSON, against 0.61-0.68 s. The tests hold the names to that strategy's.
public struct Report: Sendable, Codable, Equatable {
    /// What the report covers and how to read it.
    public var scope: ReportScopeInfo
    /// Whether there is data to report on; when false every section is empty and
    /// `scope.nextSteps` says what to load.
    public var hasData: Bool
    public var networks: [NetworkRow]
    public var funnel: [FunnelRow]
    public var funnelTop: [FunnelTopRow]
    public var retention: [RetentionRow]
    public var retentionSummary: [RetentionSummaryRow]
    public var retentionBrackets: [RetentionBracketRow]
    /// The configured retentions (`[[retention]]`), pooled per period and bracket.
    public var customRetention: [CustomRetentionRow]
    public var regularUsers: [RegularUsersRow]
    public var ltv: [LTVRow]
    public var ltvModels: [LTVModelRow]
    public var ltvBacktest: [LTVBacktestRow] = []
    public var cpi: [CPIRow]
    public var cpiTotals: [CPIRow]
    public var kfactor: [KFactorRow]
    public var friction: FrictionSection
    /// CPI saturation and peak-day inflation per paid network.
    public var spendResponse: SpendResponseSection = .empty
    /// The budget plan for today's total daily spend (fct_plan), the total last.
    public var plan: [PlanRow] = []
    /// Money per network, campaign and (with the country breakdown) campaign and country
    /// (fct_campaigns), each network first with its campaigns below it.
    public var campaigns: [CampaignRow] = []
    /// While no cohort is mature for the k-factor's window: when the first one will be.
    public var kfactorMatures: KFactorMaturity?

    /// An empty report (the zero state) with the given scope.
    public static func empty(scope: ReportScopeInfo) -> Report {
        Report(scope: scope, hasData: false, networks: [], funnel: [], funnelTop: [], retention: [],
               retentionSummary: [], retentionBrackets: [], customRetention: [], regularUsers: [], ltv: [], ltvModels: [], cpi: [],
               cpiTotals: [], kfactor: [], friction: FrictionSection(status: .notComputed, rows: []))
    }

    private enum CodingKeys: String, CodingKey {
        case scope
        case hasData = "has_data"
        case networks, funnel
        case funnelTop = "funnel_top"
        case retention
        case retentionSummary = "retention_summary"
        case retentionBrackets = "retention_brackets"
        case customRetention = "custom_retention"
        case regularUsers = "regular_users"
        case ltv
        case ltvModels = "ltv_models"
        case ltvBacktest = "ltv_backtest"
        case cpi
        case cpiTotals = "cpi_totals"
        case kfactor, friction
        case spendResponse = "spend_response"
        case plan, campaigns
        case kfactorMatures = "kfactor_matures"
    }
}

/// The data day from which the k-factor has its first mature cohort: the first install cohort's
/// day W - 1, W the k-factor's window in days.
public struct KFactorMaturity: Sendable, Codable, Equatable {
    public var maturesOn: String
    public var firstCohort: String
    public var windowDays: Int

    private enum CodingKeys: String, CodingKey {
        case maturesOn = "matures_on"
        case firstCohort = "first_cohort"
        case windowDays = "window_days"
    }
}

/// What a report covers: the app, the cohort dates, the breakdowns, the day rule, and notes on
/// what the scope does not apply to.
public struct ReportScopeInfo: Sendable, Codable, Equatable {
    public var app: String?
    /// Every app with computed data (the report shows `app`).
    public var apps: [String]
    public var from: String?
    public var to: String?
    public var breakdowns: [String]
    /// The day-count rule in force, as `calendar` or `hours24`.
    public var dayRule: String
    public var dayRuleLabel: String
    public var dataThroughDate: String?
    public var computedAt: String?
    /// Caveats about the scope (breakdowns or date limits a section does not support).
    public var notes: [String]
    /// Commands to run next (the zero state, or data loaded but not computed).
    public var nextSteps: [String]
    /// The configuration the data was computed under (nil before the first compute).
    public var configuration: ReportConfiguration?
    /// The app's money compute could not convert to USD (no rate on its date), which the metrics
    /// leave out; each is also a note.
    public var unconverted: [UnconvertedMoney] = []

    private enum CodingKeys: String, CodingKey {
        case configuration, unconverted
        case app, apps, from, to, breakdowns
        case dayRule = "day_rule"
        case dayRuleLabel = "day_rule_label"
        case dataThroughDate = "data_through_date"
        case computedAt = "computed_at"
        case notes
        case nextSteps = "next_steps"
    }
}

/// One funnel step (funnel.csv). A configured funnel with a breakdown also has rows per value of
/// its breakdown property (`breakdownProperty` set; `breakdownValue` nil for users without it).
public struct FunnelRow: Sendable, Codable, Equatable {
    public var funnel, network, campaign, country, platform: String
    public var stepIndex: Int
    public var step: String
    public var users: Int
    public var conversionFromPrevious, conversionFromFirst, medianSecondsToConvert: Double?
    public var breakdownProperty: String? = nil
    public var breakdownValue: String? = nil

    /// How the row's users are split, as reports label it: "network adnova", "plan = pro",
    /// "plan = (none)"; empty for all users.
    public var splitLabel: String {
        if let property = breakdownProperty { return "\(property) = \(breakdownValue ?? "(none)")" }
        return zip(["network", "campaign", "country", "platform"], [network, campaign, country, platform])
            .filter { $0.1 != "all" }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    }

    private enum CodingKeys: String, CodingKey {
        case funnel, network, campaign, country, platform
        case breakdownProperty = "breakdown_property"
        case breakdownValue = "breakdown_value"
        case stepIndex = "step_index"
        case step, users
        case conversionFromPrevious = "conversion_from_previous"
        case conversionFromFirst = "conversion_from_first"
        case medianSecondsToConvert = "median_seconds_to_convert"
    }
}

/// Impressions -> clicks -> installs of one paid network.
public struct FunnelTopRow: Sendable, Codable, Equatable {
    public var network: String
    public var impressions, clicks, installs: Int
    public var ctr, clickToInstall, ipm: Double?

    private enum CodingKeys: String, CodingKey {
        case network, impressions, clicks, installs, ctr
        case clickToInstall = "click_to_install"
        case ipm
    }
}

/// One mature cell of the retention triangle (retention.csv).
public struct RetentionRow: Sendable, Codable, Equatable {
    public var mode, cohortDate, network: String
    public var cohortSize, day, retained: Int
    public var rate: Double?

    private enum CodingKeys: String, CodingKey {
        case mode
        case cohortDate = "cohort_date"
        case network
        case cohortSize = "cohort_size"
        case day, retained, rate
    }
}

/// Day-N retention over every cohort mature for day N.
public struct RetentionSummaryRow: Sendable, Codable, Equatable {
    public var mode, network: String
    public var day, cohorts, cohortSize, retained: Int
    public var rate: Double?

    private enum CodingKeys: String, CodingKey {
        case mode, network, day, cohorts
        case cohortSize = "cohort_size"
        case retained, rate
    }
}

/// Retention over a range of days (active at least once in it).
/// One pooled value of a configured retention (custom_retention.csv): classic or rolling
/// retention in one period (first = last), or a bracket of periods.
public struct CustomRetentionRow: Sendable, Codable, Equatable {
    public var retention, network, measure: String
    public var firstPeriod, lastPeriod, cohorts, cohortSize, retained: Int
    public var rate: Double?

    private enum CodingKeys: String, CodingKey {
        case retention, network, measure
        case firstPeriod = "first_period"
        case lastPeriod = "last_period"
        case cohorts
        case cohortSize = "cohort_size"
        case retained, rate
    }
}

public struct RetentionBracketRow: Sendable, Codable, Equatable {
    public var network, bracket: String
    public var firstDay, lastDay, cohorts, cohortSize, retained: Int
    public var rate: Double?

    private enum CodingKeys: String, CodingKey {
        case network, bracket
        case firstDay = "first_day"
        case lastDay = "last_day"
        case cohorts
        case cohortSize = "cohort_size"
        case retained, rate
    }
}

/// The share of regular users (R opens on days 1..D).
public struct RegularUsersRow: Sendable, Codable, Equatable {
    public var network: String
    public var cohorts, cohortSize, regularUsers: Int
    public var rate: Double?

    private enum CodingKeys: String, CodingKey {
        case network, cohorts
        case cohortSize = "cohort_size"
        case regularUsers = "regular_users"
        case rate
    }
}

/// One point of an LTV curve (ltv.csv); `projected` points carry an interval. `ltv` is the exact
/// LTV of the cohorts mature for the day, `ltvChained` the pooled curve that cannot fall (what the
/// charts draw), `shown` whether enough installs back the day for a chart.
public struct LTVRow: Sendable, Codable, Equatable {
    public var network: String
    public var day: Int
    public var projected: Bool
    public var cohorts, installs: Int?
    public var revenue, ltv, ltvLow, ltvHigh, spend: Decimal?
    public var roas: Double?
    public var ltvChained: Decimal? = nil
    public var shown: Bool = true

    private enum CodingKeys: String, CodingKey {
        case network, day, projected, cohorts, installs, revenue, ltv
        case ltvLow = "ltv_low"
        case ltvHigh = "ltv_high"
        case spend, roas
        case ltvChained = "ltv_chained"
        case shown
    }
}

/// The LTV projection of one network: the method the back-test chose (`method`, `projection`
/// describing the fitted model), its mean absolute back-test error on this network and the
/// coverage of its intervals on the app's held-out values; `model`, `a`, `b` and the fit columns
/// describe the power law fitted beside it.
public struct LTVModelRow: Sendable, Codable, Equatable {
    public var network, model: String
    public var a, b: Double?
    public var points: Int
    public var fitFromDay, fitToDay: Int?
    public var residualSd, rSquared: Double?
    public var note: String
    public var method: String? = nil
    public var projection: String? = nil
    public var backtestError: Double? = nil
    public var backtestPoints: Int? = nil
    public var intervalCoverage: Double? = nil
    public var coveragePoints: Int? = nil

    private enum CodingKeys: String, CodingKey {
        case network, model, a, b, points
        case fitFromDay = "fit_from_day"
        case fitToDay = "fit_to_day"
        case residualSd = "residual_sd"
        case rSquared = "r_squared"
        case note, method, projection
        case backtestError = "backtest_error"
        case backtestPoints = "backtest_points"
        case intervalCoverage = "interval_coverage"
        case coveragePoints = "coverage_points"
    }
}

/// One projection method's back-test at one horizon (ltv_backtest.csv): held-out points, mean
/// absolute relative error, and whether the app's projection uses the method.
public struct LTVBacktestRow: Sendable, Codable, Equatable {
    public var method: String
    public var horizon: Int
    public var points: Int
    public var meanAbsError: Double?
    public var chosen: Bool

    private enum CodingKeys: String, CodingKey {
        case method, horizon, points
        case meanAbsError = "mean_abs_error"
        case chosen
    }
}

/// Spend, installs and CPI (cpi.csv); `date` is empty in range totals.
public struct CPIRow: Sendable, Codable, Equatable {
    public var date, network, campaign, country: String
    public var spend: Decimal
    public var impressions, clicks, installs, paidInstalls: Int
    public var cpi, blendedCpi: Decimal?
    public var ctr, ipm: Double?

    private enum CodingKeys: String, CodingKey {
        case date, network, campaign, country, spend, impressions, clicks, installs
        case paidInstalls = "paid_installs"
        case cpi
        case blendedCpi = "blended_cpi"
        case ctr, ipm
    }
}

/// The invite program's k-factor (kfactor.csv).
public struct KFactorRow: Sendable, Codable, Equatable {
    public var network: String
    public var cohorts, cohortSize, invitesSent, viralInstalls: Int
    public var invitesPerUser, inviteConversion, kFactor, cycleTimeHours, amplification: Double?
    public var cpi, viralAdjustedCpi: Decimal?

    private enum CodingKeys: String, CodingKey {
        case network, cohorts
        case cohortSize = "cohort_size"
        case invitesSent = "invites_sent"
        case viralInstalls = "viral_installs"
        case invitesPerUser = "invites_per_user"
        case inviteConversion = "invite_conversion"
        case kFactor = "k_factor"
        case cycleTimeHours = "cycle_time_hours"
        case amplification, cpi
        case viralAdjustedCpi = "viral_adjusted_cpi"
    }
}

/// One network's economics and verdict (networks.csv).
public struct NetworkRow: Sendable, Codable, Equatable {
    public var network: String
    public var installs, paidInstalls: Int
    public var spend: Decimal
    public var cpi, ltvD7, ltvD30, ltvProjectedD180, ltvD180Low, ltvD180High: Decimal?
    public var roasD7, roasD30: Double?
    public var paybackDay: Int?
    public var paybackBasis: String?
    public var kFactor: Double?
    public var verdict, reason: String
    /// Revenue as the LTV counts it (days 0 to max_day, USD x revenue share; `fct_revenue`): the
    /// purchases' gross, the refunds and the amount refunded, and the net (gross - refunded).
    public var refunds: Int = 0
    public var grossRevenue: Decimal = 0
    public var refunded: Decimal = 0
    public var netRevenue: Decimal = 0

    private enum CodingKeys: String, CodingKey {
        case refunds, refunded
        case grossRevenue = "gross_revenue"
        case netRevenue = "net_revenue"
        case network, installs
        case paidInstalls = "paid_installs"
        case spend, cpi
        case ltvD7 = "ltv_d7"
        case ltvD30 = "ltv_d30"
        case ltvProjectedD180 = "ltv_projected_d180"
        case ltvD180Low = "ltv_d180_low"
        case ltvD180High = "ltv_d180_high"
        case roasD7 = "roas_d7"
        case roasD30 = "roas_d30"
        case paybackDay = "payback_day"
        case paybackBasis = "payback_basis"
        case kFactor = "k_factor"
        case verdict, reason
    }
}

/// Onboarding friction: whether it has been computed, and its rows (friction.csv).
public struct FrictionSection: Sendable, Codable, Equatable {
    /// Whether friction results exist for the app yet (they need `ux` telemetry and a compute).
    public enum Status: String, Sendable, Codable {
        case computed
        case notComputed = "not_computed"
    }

    public var status: Status
    public var rows: [FrictionRow]
}

/// One (screen, friction type) with its effect on drop-off.
public struct FrictionRow: Sendable, Codable, Equatable {
    public var screen, frictionType: String
    public var usersHit, usersNotHit: Int
    public var dropoffHit, dropoffNotHit, relativeRisk, pValue, qValue, usersLost: Double?
    public var flagged: Bool
    public var rank: Int?

    private enum CodingKeys: String, CodingKey {
        case screen
        case frictionType = "friction_type"
        case usersHit = "users_hit"
        case usersNotHit = "users_not_hit"
        case dropoffHit = "dropoff_hit"
        case dropoffNotHit = "dropoff_not_hit"
        case relativeRisk = "relative_risk"
        case pValue = "p_value"
        case qValue = "q_value"
        case usersLost = "users_lost"
        case flagged, rank
    }
}
