public import Foundation
import PostgresClient

/// One line of the budget plan compute writes for today's total daily spend (fct_plan;
/// docs/metrics.md, "Budget plan"); network "all" is the total.
public struct PlanRow: Sendable, Codable, Equatable {
    public var network: String
    public var horizonDay: Int
    public var budget: Decimal
    public var status: String
    public var todaySpend, plannedSpend: Decimal
    public var installs, installsLow, installsHigh: Double
    public var cpi: Decimal?
    public var revenue, revenueLow, revenueHigh: Decimal
    public var roas, roasLow, roasHigh, marginalReturn: Double?
    public var note: String

    private enum CodingKeys: String, CodingKey {
        case network
        case horizonDay = "horizon_day"
        case budget, status
        case todaySpend = "today_spend"
        case plannedSpend = "planned_spend"
        case installs
        case installsLow = "installs_low"
        case installsHigh = "installs_high"
        case cpi, revenue
        case revenueLow = "revenue_low"
        case revenueHigh = "revenue_high"
        case roas
        case roasLow = "roas_low"
        case roasHigh = "roas_high"
        case marginalReturn = "marginal_return"
        case note
    }
}

extension PlanRow {
    init(_ row: PostgresRow) throws {
        self.init(network: try row.text("network"), horizonDay: try row.int("horizon_day"),
                  budget: try row.money("budget") ?? 0, status: try row.text("status"),
                  todaySpend: try row.money("today_spend") ?? 0, plannedSpend: try row.money("planned_spend") ?? 0,
                  installs: try row.number("installs") ?? 0, installsLow: try row.number("installs_low") ?? 0,
                  installsHigh: try row.number("installs_high") ?? 0, cpi: try row.money("cpi"),
                  revenue: try row.money("revenue") ?? 0, revenueLow: try row.money("revenue_low") ?? 0,
                  revenueHigh: try row.money("revenue_high") ?? 0, roas: try row.number("roas"),
                  roasLow: try row.number("roas_low"), roasHigh: try row.number("roas_high"),
                  marginalReturn: try row.number("marginal_return"), note: try row.text("note"))
    }
}
