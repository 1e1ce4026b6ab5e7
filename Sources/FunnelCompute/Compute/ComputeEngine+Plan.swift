import Foundation
import FunnelCore
import PostgresClient

extension ComputeEngine {
    /// The horizon of the plan compute writes (fct_plan): projected D180 revenue.
    static let planHorizon = 180

    /// Writes fct_plan (migration 0170): per app, the budget plan for today's total daily spend
    /// at D180 (`SpendPlanInputs`, `BudgetPlanner.allocate`), one line per paid network and the
    /// total as network 'all'. Runs after the verdicts.
    func buildPlan(_ connection: PostgresConnection) throws {
        try connection.execute("delete from fct_plan")
        let apps = try connection.query("select distinct app_id from fct_spend_response order by 1")
            .map { try $0.decode(String.self, at: 0) }
        for app in apps {
            let inputs = try SpendPlanInputs.read(connection, app: app, horizon: Self.planHorizon)
            guard !inputs.entries.isEmpty else { continue }
            let budget = inputs.todayBudget
            let plan = BudgetPlanner.allocate(inputs.networks, budget: budget)
            let notes = Dictionary(uniqueKeysWithValues: inputs.entries.map { ($0.network.name, $0.note ?? "") })
            for line in plan.lines + [plan.total] {
                try connection.query("""
                    insert into fct_plan (app_id, network, horizon_day, budget, status, today_spend, planned_spend,
                        installs, installs_low, installs_high, cpi, revenue, revenue_low, revenue_high, roas, roas_low,
                        roas_high, marginal_return, note)
                    values ($1, $2, $3, round($4::numeric, 2), $5, round($6::numeric, 2), round($7::numeric, 2), $8, $9,
                            $10, round($11::numeric, 6), round($12::numeric, 2), round($13::numeric, 2),
                            round($14::numeric, 2), $15, $16, $17, $18, $19)
                    """, [app, line.network, Self.planHorizon, budget, plan.status.rawValue, line.todaySpend,
                          line.plannedSpend, line.installs, line.installsLow, line.installsHigh, line.cpi, line.revenue,
                          line.revenueLow, line.revenueHigh, line.roas, line.roasLow, line.roasHigh,
                          line.network == "all" ? plan.marginalReturn : line.marginalReturn, notes[line.network] ?? ""])
            }
        }
    }
}
