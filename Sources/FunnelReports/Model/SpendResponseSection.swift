public import Foundation
import FunnelSQL
import PostgresClient

/// CPI saturation and peak-day inflation (fct_spend_response, fct_cpi_inflated_days; see
/// docs/metrics.md, "Spend response"): per paid network the response curve and what it says about
/// more spend, and the days whose CPI was abnormally high.
public struct SpendResponseSection: Sendable, Codable, Equatable {
    public var networks: [SpendResponseRow]
    public var inflatedDays: [InflatedDayRow]
    /// The curves per campaign and per country of networks with at least two of them
    /// (spend_response_segments.csv); `campaign` or `country` is "all" on each.
    public var segments: [SpendResponseRow] = []
    /// CPI by hour of day per network, from the spend rows that carry an hour (cpi_by_hour.csv).
    public var cpiByHour: [HourlyCPIRow] = []

    public static let empty = SpendResponseSection(networks: [], inflatedDays: [])

    private enum CodingKeys: String, CodingKey {
        case networks
        case inflatedDays = "inflated_days"
        case segments
        case cpiByHour = "cpi_by_hour"
    }

    /// The section of one app.
    static func read(_ connection: PostgresConnection, app: String) throws -> SpendResponseSection {
        SpendResponseSection(
            networks: try connection.query(SQLCatalog.text("reports/spend_response.sql"), [app]).map(SpendResponseRow.init),
            inflatedDays: try connection.query(SQLCatalog.text("reports/cpi_inflated_days.sql"), [app]).map(InflatedDayRow.init),
            segments: try connection.query(SQLCatalog.text("reports/spend_response_segments.sql"), [app])
                .map(SpendResponseRow.init),
            cpiByHour: try connection.query(SQLCatalog.text("reports/cpi_by_hour.sql"), [app]).map(HourlyCPIRow.init))
    }
}

/// One network's CPI in one hour of the day (reporting time zone) over the days whose spend rows
/// carry hours: spend / paid installs of that hour, and its index against the network's CPI over
/// the same days.
public struct HourlyCPIRow: Sendable, Codable, Equatable {
    public var network: String
    public var hour: Int
    public var days: Int
    public var spend: Decimal
    public var paidInstalls: Int
    public var cpi: Decimal?
    public var cpiIndex: Double?

    private enum CodingKeys: String, CodingKey {
        case network, hour, days, spend
        case paidInstalls = "paid_installs"
        case cpi
        case cpiIndex = "cpi_index"
    }
}

/// One paid network's response curve installs = a * spend^b (spend_response.csv). Without a curve
/// (`status` "not enough spend history") every number is nil and `advice` says why.
public struct SpendResponseRow: Sendable, Codable, Equatable {
    public var network, status: String
    /// Days with spend and paid installs.
    public var days: Int
    public var exponentB, exponentBLow, exponentBHigh, scaleA, rSquared: Double?
    /// Mean daily spend of the network's last 14 days with spend.
    public var currentSpend: Decimal?
    public var averageCpi, marginalCpi, ltvD180: Decimal?
    /// Daily spend where the marginal CPI reaches ltvD180; nil past 3x the largest day seen.
    public var headroomSpend: Decimal?
    public var maxSpend: Decimal?
    public var saturated: Bool?
    public var inflatedDays: Int
    public var advice: String
    /// The segment: "all" on a network's own row.
    public var campaign = "all"
    public var country = "all"
    /// "power law" or "saturating": the curve the figures come from (nil without a curve).
    public var curveForm: String?
    /// The saturating curve installs = M * spend / (K + spend) fitted beside the power law.
    public var saturatingCapacity: Double?
    public var saturatingHalfSpend: Double?

    private enum CodingKeys: String, CodingKey {
        case network, campaign, country, status, days
        case curveForm = "curve_form"
        case saturatingCapacity = "saturating_capacity"
        case saturatingHalfSpend = "saturating_half_spend"
        case exponentB = "exponent_b"
        case exponentBLow = "exponent_b_low"
        case exponentBHigh = "exponent_b_high"
        case scaleA = "scale_a"
        case rSquared = "r_squared"
        case currentSpend = "current_spend"
        case averageCpi = "average_cpi"
        case marginalCpi = "marginal_cpi"
        case ltvD180 = "ltv_d180"
        case headroomSpend = "headroom_spend"
        case maxSpend = "max_spend"
        case saturated
        case inflatedDays = "inflated_days"
        case advice
    }

    /// Installs a day of `spend` buys on the chosen curve (average weekday); nil without a curve.
    public func expectedInstalls(spend: Double) -> Double? {
        if curveForm == "saturating", let capacity = saturatingCapacity, let half = saturatingHalfSpend {
            return capacity * spend / (half + spend)
        }
        guard let a = scaleA, let b = exponentB else { return nil }
        return a * pow(spend, min(b, 1))
    }
}

/// A day whose CPI was abnormally high against its network's trend (cpi_inflated_days in JSON).
public struct InflatedDayRow: Sendable, Codable, Equatable {
    public var network, date: String
    public var spend: Decimal
    public var paidInstalls: Int
    public var cpi, expectedCpi: Decimal
    public var robustZ: Double
    public var excessCost: Decimal

    private enum CodingKeys: String, CodingKey {
        case network, date, spend
        case paidInstalls = "paid_installs"
        case cpi
        case expectedCpi = "expected_cpi"
        case robustZ = "robust_z"
        case excessCost = "excess_cost"
    }
}

extension SpendResponseRow {
    init(_ row: PostgresRow) throws {
        network = try row.text("network")
        status = try row.text("status")
        days = try row.int("days")
        exponentB = try row.number("exponent_b")
        exponentBLow = try row.number("exponent_b_low")
        exponentBHigh = try row.number("exponent_b_high")
        scaleA = try row.number("scale_a")
        rSquared = try row.number("r_squared")
        currentSpend = try row.money("current_spend")
        averageCpi = try row.money("average_cpi")
        marginalCpi = try row.money("marginal_cpi")
        ltvD180 = try row.money("ltv_d180")
        headroomSpend = try row.money("headroom_spend")
        maxSpend = try row.money("max_spend")
        saturated = try row.decode(Bool?.self, column: "saturated")
        inflatedDays = try row.int("inflated_days")
        advice = try row.text("advice")
        campaign = try row.text("campaign")
        country = try row.text("country")
        curveForm = try row.decode(String?.self, column: "curve_form")
        saturatingCapacity = try row.number("saturating_capacity")
        saturatingHalfSpend = try row.number("saturating_half_spend")
    }
}

extension HourlyCPIRow {
    init(_ row: PostgresRow) throws {
        network = try row.text("network")
        hour = try row.int("hour")
        days = try row.int("days")
        spend = try row.money("spend") ?? 0
        paidInstalls = try row.int("paid_installs")
        cpi = try row.money("cpi")
        cpiIndex = try row.number("cpi_index")
    }
}

extension InflatedDayRow {
    init(_ row: PostgresRow) throws {
        network = try row.text("network")
        date = try row.text("date")
        spend = try row.money("spend") ?? 0
        paidInstalls = try row.int("paid_installs")
        cpi = try row.money("cpi") ?? 0
        expectedCpi = try row.money("expected_cpi") ?? 0
        robustZ = try row.number("robust_z") ?? 0
        excessCost = try row.money("excess_cost") ?? 0
    }
}
