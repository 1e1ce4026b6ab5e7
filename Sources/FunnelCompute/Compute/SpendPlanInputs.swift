public import FunnelCore
import FunnelSQL
public import PostgresClient

/// The budget plan's networks of one app, read from the marts (`fct_plan.inputs.sql`): each paid
/// network's response curve and its LTV at the horizon, with the bounds a plan puts on its daily
/// spend (docs/metrics.md, "Budget plan").
public struct SpendPlanInputs: Sendable {
    /// A paid network to plan and why it has no curve in the plan, when it has none.
    public struct Entry: Sendable {
        public var network: BudgetPlanner.Network
        /// Why the network stays at today's spend (no curve, or no LTV at the horizon).
        public var note: String?
    }

    /// The bounds on a network's daily spend: explicit minimums and maximums, and the largest
    /// step from today's spend as a fraction (0.2 for 20%).
    public struct Bounds: Sendable, Equatable {
        public var minimum: [String: Double]
        public var maximum: [String: Double]
        public var maxChange: Double?

        public init(minimum: [String: Double] = [:], maximum: [String: Double] = [:], maxChange: Double? = nil) {
            self.minimum = minimum
            self.maximum = maximum
            self.maxChange = maxChange
        }
    }

    /// A plan never goes past this multiple of the largest daily spend seen: the curve is not
    /// known there (the spend response's headroom reach).
    public static let reach = ComputeEngine.headroomReach

    public var entries: [Entry]
    public var horizon: Int

    /// Reads the paid networks of `app` (with `byCampaign`, their campaigns with spend, named
    /// "network/campaign": `fct_plan.campaign_inputs.sql`) with their LTV at day `horizon` and
    /// applies `bounds`.
    public static func read(_ connection: PostgresConnection, app: String, horizon: Int,
                            bounds: Bounds = Bounds(), byCampaign: Bool = false) throws -> SpendPlanInputs {
        var entries: [Entry] = []
        let statement = byCampaign ? "marts/metrics/fct_plan.campaign_inputs.sql" : "marts/metrics/fct_plan.inputs.sql"
        for row in try connection.query(SQLCatalog.text(statement), [app, horizon]) {
            let name = try row.decode(String.self, at: 0)
            let status = try row.decode(String.self, at: 1)
            let form = try row.decode(String?.self, at: 2)
            let a = try row.decode(Double?.self, at: 3), b = try row.decode(Double?.self, at: 4)
            let capacity = try row.decode(Double?.self, at: 7), half = try row.decode(Double?.self, at: 8)
            let today = try row.decode(Double?.self, at: 9) ?? 0
            let largest = try row.decode(Double?.self, at: 10) ?? today
            let value = try row.decode(Double?.self, at: 12)
            var curve: ResponseCurve?
            var note: String?
            if status != "fitted" {
                note = "no response curve (\(status)): kept at today's spend"
            } else if form == "saturating", let capacity, let half {
                curve = .saturating(capacity: capacity, halfSpend: half)
            } else if let a, let b {
                curve = .powerLaw(a: a, b: min(b, 1))
            }
            if curve != nil && value == nil {
                curve = nil
                note = "no LTV at D\(horizon) yet: kept at today's spend"
            }
            let exponent = min(b ?? 1, 1)
            var lower = bounds.minimum[name] ?? 0
            var upper = min(bounds.maximum[name] ?? .infinity, reach * largest)
            if let change = bounds.maxChange {
                lower = max(lower, today * (1 - change))
                upper = min(upper, today * (1 + change))
            }
            if curve == nil { lower = min(lower, upper) }
            let network = BudgetPlanner.Network(
                name: name, curve: curve, value: value ?? 0, valueLow: try row.decode(Double?.self, at: 13) ?? 0,
                valueHigh: try row.decode(Double?.self, at: 14) ?? 0, todaySpend: today,
                todayCPI: try row.decode(Double?.self, at: 11), exponent: exponent,
                exponentLow: min(try row.decode(Double?.self, at: 5) ?? exponent, 1),
                exponentHigh: min(try row.decode(Double?.self, at: 6) ?? exponent, 1),
                lower: min(lower, upper), upper: upper)
            entries.append(Entry(network: network, note: note))
        }
        return SpendPlanInputs(entries: entries, horizon: horizon)
    }

    public var networks: [BudgetPlanner.Network] { entries.map(\.network) }
    /// Today's total daily spend over the paid networks.
    public var todayBudget: Double { entries.reduce(0) { $0 + $1.network.todaySpend } }
}
