import Foundation
import FunnelCompute
import FunnelCore
import FunnelGenerate
import Testing

/// The budget plan on the truth-recovery data set (20,000 users over 50 days, seed 4): the plan
/// is made from the fitted response curves and the projected LTV_D180 (`SpendPlanInputs`, as
/// `funnel plan` reads them) and valued on the planted curves and planted LTV of truth.json.
@Suite("Budget plan on planted curves")
struct SpendPlanTruthTests {
    /// Revenue a day at D180 of a split, on the planted curves and planted LTV.
    static func plantedRevenue(_ plan: BudgetPlanner.Plan, truth: TruthFile) -> Double {
        plan.lines.reduce(0) { total, line in
            guard let planted = truth.spendResponse.first(where: { $0.network == line.network }) else { return total }
            return total + planted.installs(spend: line.plannedSpend) * planted.expectedLtvD180
        }
    }

    /// truth.json's planted optimum of the planned daily budget (each network at most 3x its
    /// planned daily spend); the plan for that budget with the same maximums must reach 95% of
    /// its revenue when valued on the planted curves and LTV.
    @Test("the plan for the planted budget reaches at least 95% of the planted optimum's revenue")
    func plannedBudget() throws {
        let data = try TruthDataSet.shared.get()
        let optimum = try #require(data.truth.plannedOptimum)
        #expect(optimum.networks.count == data.truth.spendResponse.count)
        #expect(abs(optimum.networks.reduce(0) { $0 + $1.spendUsd } - optimum.budgetUsd) < 0.01)
        let plan = BudgetPlanner.allocate(data.planInputs.networks, budget: optimum.budgetUsd)
        let reached = Self.plantedRevenue(plan, truth: data.truth)
        var lines = ["budget \(String(format: "$%.2f", optimum.budgetUsd)) a day; status \(plan.status.rawValue)"]
        for line in plan.lines {
            let planted = optimum.networks.first { $0.network == line.network }
            lines.append(String(format: "  %@: planned $%.2f, planted optimum $%.2f (max $%.2f), today $%.2f",
                                line.network, line.plannedSpend, planted?.spendUsd ?? .nan, planted?.maxSpendUsd ?? .nan,
                                line.todaySpend))
        }
        lines.append(String(format: "planted revenue of the plan $%.2f a day vs the planted optimum's $%.2f: %.1f%%",
                            reached, optimum.revenueUsd, 100 * reached / optimum.revenueUsd))
        print(lines.joined(separator: "\n"))
        #expect(abs(plan.lines.reduce(0) { $0 + $1.plannedSpend } - optimum.budgetUsd) < 0.01)
        #expect(reached >= 0.95 * optimum.revenueUsd)
        // The planted optimum is an optimum: no other split of the budget does better on the
        // planted curves, the plan's included.
        #expect(reached <= optimum.revenueUsd * (1 + 1e-9))
    }

    /// --target-roas 1 spends each network up to where the revenue of its next dollar falls to
    /// 1: its headroom at D180. Two figures per network with a planted headroom (a straight line,
    /// b = 1, has none): the plan as `funnel plan` makes it (fitted curve, projected LTV_D180), and
    /// the fitted curve valued at the planted LTV. The second isolates the curves: it must land
    /// within 20% of the planted headroom. The first also carries the LTV projection's error,
    /// which the headroom amplifies (on a power law it moves as LTV^(1 / (1 - b)): LTV^2 at
    /// b = 0.5), so it is printed and held to 60%.
    @Test("--target-roas 1 lands near each network's planted headroom")
    func targetROASOne() throws {
        let data = try TruthDataSet.shared.get()
        let plan = BudgetPlanner.spendToTarget(data.planInputsDefault.networks, roas: 1)
        let plantedValue = data.planInputsDefault.networks.map { network -> BudgetPlanner.Network in
            var copy = network
            if let planted = data.truth.spendResponse.first(where: { $0.network == network.name }) {
                copy.value = planted.expectedLtvD180
            }
            return copy
        }
        let curvesOnly = BudgetPlanner.spendToTarget(plantedValue, roas: 1)
        var checked = 0
        for planted in data.truth.spendResponse {
            let line = try #require(plan.lines.first { $0.network == planted.network }, "\(planted.network)")
            let curveLine = try #require(curvesOnly.lines.first { $0.network == planted.network })
            let value = data.planInputsDefault.networks.first { $0.name == planted.network }?.value ?? .nan
            guard let headroom = planted.headroomSpendUsd else {
                print("\(planted.network): no planted headroom (b = \(planted.exponentB)); planned $\(line.plannedSpend)")
                continue
            }
            checked += 1
            print(String(format: "%@: planted headroom $%.2f; target ROAS 1 spends $%.2f (%+.1f%%; projected LTV $%.2f vs "
                            + "planted $%.2f), on the planted LTV $%.2f (%+.1f%%)",
                         planted.network, headroom, line.plannedSpend, 100 * (line.plannedSpend / headroom - 1), value,
                         planted.expectedLtvD180, curveLine.plannedSpend, 100 * (curveLine.plannedSpend / headroom - 1)))
            #expect(line.hasCurve, "\(planted.network)")
            #expect(abs(curveLine.plannedSpend / headroom - 1) < 0.2, "\(planted.network): fitted curve at the planted LTV")
            #expect(abs(line.plannedSpend / headroom - 1) < 0.6, "\(planted.network): fitted curve at the projected LTV")
        }
        #expect(checked >= 3)
    }
}
