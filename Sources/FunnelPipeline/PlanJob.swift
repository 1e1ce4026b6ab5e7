public import FunnelCompute
public import FunnelCore
import Foundation
public import PostgresClient

/// `funnel plan`: the daily spend per paid network that maximises projected revenue at a horizon
/// for a budget, or that spends up to a target ROAS at the margin (docs/metrics.md, "Budget
/// plan"), from the marts `funnel compute` writes, rendered as text, CSV or JSON.
public enum PlanJob {
    /// What the plan is for.
    public enum Goal: Sendable, Equatable {
        case budget(Double)
        case targetROAS(Double)
    }

    /// The command's request: flags as values.
    public struct Request: Sendable {
        public var app: String?
        public var goal: Goal
        public var horizon: Int
        public var bounds: SpendPlanInputs.Bounds
        public var format: String
        /// Plans each campaign with spend ("network/campaign") instead of each network.
        public var byCampaign: Bool

        public init(app: String?, goal: Goal, horizon: Int, bounds: SpendPlanInputs.Bounds, format: String,
                    byCampaign: Bool = false) {
            self.app = app
            self.goal = goal
            self.horizon = horizon
            self.bounds = bounds
            self.format = format
            self.byCampaign = byCampaign
        }
    }

    /// The plan of one app in the format asked for.
    public static func run(_ request: Request, connection: PostgresConnection) throws -> String {
        let apps = try ReportJob.apps(for: request.app, connection: connection)
        guard let app = apps.first else {
            throw CommandFailure("no computed data yet: run 'funnel ingest DIR', then 'funnel compute'")
        }
        guard apps.count == 1 else {
            throw CommandFailure.usage("\(apps.count) apps have data (\(apps.joined(separator: ", "))): add --app APP")
        }
        let inputs = try SpendPlanInputs.read(connection, app: app, horizon: request.horizon, bounds: request.bounds,
                                              byCampaign: request.byCampaign)
        let unit = request.byCampaign ? "campaign with spend" : "paid network"
        guard !inputs.entries.isEmpty else {
            throw CommandFailure("\(app): no \(unit) to plan (load ad spend files, then run 'funnel compute')")
        }
        let names = Set(inputs.entries.map(\.network.name))
        for (flag, values) in [("--min", request.bounds.minimum), ("--max", request.bounds.maximum)] {
            for name in values.keys.sorted() where !names.contains(name) {
                throw CommandFailure.usage("\(flag) \(name): not a \(unit) of \(app); "
                    + (request.byCampaign ? "campaigns (network/campaign): " : "paid networks: ")
                    + names.sorted().joined(separator: ", "))
            }
        }
        if inputs.entries.allSatisfy({ $0.network.curve == nil }) {
            let withCurve = inputs.entries.contains { $0.note?.hasPrefix("no LTV") == true }
            throw CommandFailure(withCurve
                ? "\(app): no \(unit) has an LTV at D\(request.horizon); try --horizon D90, D180 or D365 "
                    + "(the [ltv] horizons), or let more cohorts mature"
                : "\(app): no \(unit) has a response curve yet (each needs 14 days of varying spend with paid installs"
                    + (request.byCampaign ? ", in a network with two campaigns or more)" : ")"))
        }
        let plan: BudgetPlanner.Plan
        switch request.goal {
        case .budget(let budget): plan = BudgetPlanner.allocate(inputs.networks, budget: budget)
        case .targetROAS(let roas): plan = BudgetPlanner.spendToTarget(inputs.networks, roas: roas)
        }
        let notes = Dictionary(uniqueKeysWithValues: inputs.entries.map { ($0.network.name, $0.note ?? "") })
        switch request.format {
        case "csv": return csv(plan, horizon: request.horizon, notes: notes)
        case "json": return try json(plan, app: app, request: request, notes: notes)
        default: return text(plan, app: app, request: request, notes: notes)
        }
    }

    static func text(_ plan: BudgetPlanner.Plan, app: String, request: Request, notes: [String: String]) -> String {
        var out = "PLAN for \(app): "
        switch request.goal {
        case .budget(let budget): out += "\(money(budget)) a day, "
        case .targetROAS(let roas): out += "spend up to a marginal ROAS of \(String(format: "%.2f", roas)), "
        }
        out += "maximising projected D\(request.horizon) revenue (\(plan.status.rawValue)"
        if let level = plan.marginalReturn, request.goal != .targetROAS(level) {
            out += String(format: "; every %@ not at a bound earns %.2f on its next dollar",
                          request.byCampaign ? "campaign" : "network", level)
        }
        out += ")\n\n"
        let header = [request.byCampaign ? "network/campaign" : "network", "today", "planned", "change", "installs", "CPI", "ROAS D\(request.horizon)", "interval", "marginal"]
        var rows = [header]
        for line in plan.lines + [plan.total] {
            let change = line.todaySpend > 0 ? String(format: "%+.0f%%", (line.plannedSpend / line.todaySpend - 1) * 100) : "-"
            rows.append([line.network, money(line.todaySpend), money(line.plannedSpend), change,
                         String(format: "%.1f", line.installs), line.cpi.map(money) ?? "-",
                         line.roas.map { String(format: "%.2f", $0) } ?? "-",
                         line.roasLow.flatMap { low in line.roasHigh.map { String(format: "%.2f-%.2f", low, $0) } } ?? "-",
                         line.network == "all" || !line.hasCurve ? "-" : String(format: "%.2f", line.marginalReturn)])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            out += row.enumerated().map { index, cell in
                index == 0 ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                           : String(repeating: " ", count: widths[index] - cell.count) + cell
            }.joined(separator: "  ") + "\n"
        }
        let noted = plan.lines.filter { !(notes[$0.network] ?? "").isEmpty }
        if !noted.isEmpty {
            out += "\n" + noted.map { "  \($0.network): \(notes[$0.network] ?? "")" }.joined(separator: "\n") + "\n"
        }
        let unit = request.byCampaign ? "campaign" : "network"
        out += "\nInstalls a day on each \(unit)'s response curve; ROAS = projected D\(request.horizon) LTV x installs / spend; "
            + "the interval from the curve's exponent (pivoting on today's spend) and the LTV's interval; marginal = "
            + "revenue of the next dollar. No \(unit) goes past 3x its largest day seen.\n"
        return out
    }

    static let csvColumns = ["network", "horizon_day", "today_spend", "planned_spend", "installs", "installs_low",
                             "installs_high", "cpi", "revenue", "revenue_low", "revenue_high", "roas", "roas_low",
                             "roas_high", "marginal_return", "note"]

    static func csv(_ plan: BudgetPlanner.Plan, horizon: Int, notes: [String: String]) -> String {
        var out = csvColumns.joined(separator: ",") + "\n"
        for line in plan.lines + [plan.total] {
            let note = notes[line.network] ?? ""
            let cells: [String] = [
                quoted(line.network), "\(horizon)", cents(line.todaySpend), cents(line.plannedSpend), number(line.installs),
                number(line.installsLow), number(line.installsHigh), line.cpi.map(number) ?? "", cents(line.revenue),
                cents(line.revenueLow), cents(line.revenueHigh), line.roas.map(number) ?? "", line.roasLow.map(number) ?? "",
                line.roasHigh.map(number) ?? "",
                line.network == "all" ? (plan.marginalReturn.map(number) ?? "") : line.hasCurve ? number(line.marginalReturn) : "",
                quoted(note),
            ]
            out += cells.joined(separator: ",") + "\n"
        }
        return out
    }

    static func json(_ plan: BudgetPlanner.Plan, app: String, request: Request, notes: [String: String]) throws -> String {
        func line(_ line: BudgetPlanner.Line) -> [String: Any] {
            var object: [String: Any] = [
                "network": line.network, "today_spend": rounded(line.todaySpend, 2), "planned_spend": rounded(line.plannedSpend, 2),
                "installs": rounded(line.installs, 3), "installs_low": rounded(line.installsLow, 3),
                "installs_high": rounded(line.installsHigh, 3), "revenue": rounded(line.revenue, 2),
                "revenue_low": rounded(line.revenueLow, 2), "revenue_high": rounded(line.revenueHigh, 2),
                "has_curve": line.hasCurve, "note": notes[line.network] ?? "",
            ]
            object["cpi"] = line.cpi.map { rounded($0, 4) } ?? NSNull()
            object["roas"] = line.roas.map { rounded($0, 4) } ?? NSNull()
            object["roas_low"] = line.roasLow.map { rounded($0, 4) } ?? NSNull()
            object["roas_high"] = line.roasHigh.map { rounded($0, 4) } ?? NSNull()
            object["marginal_return"] = line.hasCurve ? rounded(line.marginalReturn, 4) : NSNull()
            return object
        }
        var goal: [String: Any] = [:]
        switch request.goal {
        case .budget(let budget): goal["budget"] = budget
        case .targetROAS(let roas): goal["target_roas"] = roas
        }
        let object: [String: Any] = [
            "app": app, "horizon_day": request.horizon, "goal": goal, "status": plan.status.rawValue,
            "marginal_return": plan.marginalReturn.map { rounded($0, 4) } ?? NSNull(),
            "networks": plan.lines.map(line), "total": line(plan.total),
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func money(_ value: Double) -> String { String(format: "$%.2f", value) }
    static func cents(_ value: Double) -> String { String(format: "%.2f", value) }
    static func number(_ value: Double) -> String { String(format: "%.6g", value) }
    static func rounded(_ value: Double, _ places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }
    static func quoted(_ text: String) -> String {
        text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }
}
