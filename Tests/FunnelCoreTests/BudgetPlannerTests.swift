import Foundation
@testable import FunnelCore
import Testing

@Suite("Budget planner")
struct BudgetPlannerTests {
    static func network(_ name: String, _ curve: ResponseCurve?, value: Double, today: Double = 100,
                        lower: Double = 0, upper: Double = .infinity) -> BudgetPlanner.Network {
        BudgetPlanner.Network(name: name, curve: curve, value: value, valueLow: value * 0.8, valueHigh: value * 1.25,
                              todaySpend: today, todayCPI: 2, exponent: 0.5, exponentLow: 0.4, exponentHigh: 0.6,
                              lower: lower, upper: upper)
    }

    static func revenue(_ networks: [BudgetPlanner.Network], _ spends: [Double]) -> Double {
        zip(networks, spends).reduce(0) { $0 + $1.0.value * $1.0.installs(spend: $1.1) }
    }

    /// Marginal return v a b s^-0.5: network one has v a b = 10 (v 10, a 2, b 0.5), two 5 (v 5,
    /// a 2). At a common return L the spends are (10 / L)^2 and (5 / L)^2: 125 / L^2 = 250 gives
    /// L^2 = 0.5, so 200 and 50, both with a marginal return of 0.707.
    @Test("two power laws by hand: marginal returns equalised under the budget")
    func handComputed() {
        let networks = [Self.network("one", .powerLaw(a: 2, b: 0.5), value: 10),
                        Self.network("two", .powerLaw(a: 2, b: 0.5), value: 5)]
        let plan = BudgetPlanner.allocate(networks, budget: 250)
        #expect(plan.status == .optimal)
        #expect(abs(plan.lines[0].plannedSpend - 200) < 1e-6)
        #expect(abs(plan.lines[1].plannedSpend - 50) < 1e-6)
        #expect(abs(plan.lines[0].marginalReturn - sqrt(0.5)) < 1e-6)
        #expect(abs(plan.lines[1].marginalReturn - sqrt(0.5)) < 1e-6)
        #expect(abs((plan.marginalReturn ?? 0) - sqrt(0.5)) < 1e-6)
        // installs 2 sqrt(200) = 28.28 at $10: revenue $282.84, ROAS 1.414.
        #expect(abs(plan.lines[0].revenue - 20 * sqrt(200)) < 1e-6)
        #expect(abs((plan.lines[0].roas ?? 0) - 20 * sqrt(200) / 200) < 1e-9)
    }

    /// A power law, a saturating curve and a straight line capped at $150: the plan is at least
    /// as good as every point of a $1 grid over the budget's splits, and spends the budget.
    @Test("the plan beats a grid search over every split, with a saturating and a straight-line curve")
    func gridSearch() {
        let networks = [Self.network("power", .powerLaw(a: 3, b: 0.6), value: 4),
                        Self.network("saturating", .saturating(capacity: 80, halfSpend: 120), value: 5),
                        Self.network("line", .powerLaw(a: 0.35, b: 1), value: 4, upper: 150)]
        let budget = 400.0
        let plan = BudgetPlanner.allocate(networks, budget: budget)
        let planned = plan.lines.map(\.plannedSpend)
        #expect(abs(planned.reduce(0, +) - budget) < 1e-6)
        #expect(planned[2] <= 150 + 1e-9)
        let best = Self.revenue(networks, planned)
        var gridBest = 0.0
        for first in stride(from: 0.0, through: budget, by: 1) {
            for third in stride(from: 0.0, through: min(150, budget - first), by: 1) {
                gridBest = max(gridBest, Self.revenue(networks, [first, budget - first - third, third]))
            }
        }
        print("plan revenue \(best), grid best \(gridBest), spends \(planned)")
        #expect(best >= gridBest - 1e-6)
    }

    /// Two straight lines, $1.40 and $1.00 of revenue per dollar, the better one capped at $300:
    /// it gets its cap and the other the rest.
    @Test("straight lines: the better return fills to its bound first")
    func straightLines() {
        let networks = [Self.network("better", .powerLaw(a: 0.35, b: 1), value: 4, upper: 300),
                        Self.network("worse", .powerLaw(a: 0.25, b: 1), value: 4)]
        let plan = BudgetPlanner.allocate(networks, budget: 500)
        #expect(abs(plan.lines[0].plannedSpend - 300) < 1e-6)
        #expect(abs(plan.lines[1].plannedSpend - 200) < 1e-6)
    }

    @Test("bounds: minimums and maximums hold, and a budget outside them says so")
    func bounds() {
        let networks = [Self.network("one", .powerLaw(a: 2, b: 0.5), value: 10, lower: 120, upper: 180),
                        Self.network("two", .powerLaw(a: 2, b: 0.5), value: 5, lower: 80)]
        let plan = BudgetPlanner.allocate(networks, budget: 250)
        #expect(abs(plan.lines[0].plannedSpend - 170) < 1e-6)
        #expect(abs(plan.lines[1].plannedSpend - 80) < 1e-6)
        let capped = BudgetPlanner.allocate(networks, budget: 210)
        #expect(abs(capped.lines[0].plannedSpend - 130) < 1e-6)
        #expect(BudgetPlanner.allocate(networks, budget: 150).status == .budgetBelowMinimums)
        let tight = [Self.network("one", .powerLaw(a: 2, b: 0.5), value: 10, upper: 50),
                     Self.network("two", .powerLaw(a: 2, b: 0.5), value: 5, upper: 60)]
        let above = BudgetPlanner.allocate(tight, budget: 500)
        #expect(above.status == .budgetAboveMaximums)
        #expect(above.lines.map(\.plannedSpend) == [50, 60])
    }

    /// A network without a curve keeps today's spend ($100) and it comes off the budget.
    @Test("a network without a curve keeps today's spend")
    func withoutCurve() {
        let networks = [Self.network("one", .powerLaw(a: 2, b: 0.5), value: 10),
                        Self.network("flat", nil, value: 3)]
        let plan = BudgetPlanner.allocate(networks, budget: 300)
        #expect(abs(plan.lines[0].plannedSpend - 200) < 1e-6)
        #expect(plan.lines[1].plannedSpend == 100)
        #expect(plan.lines[1].installs == 50)
        #expect(!plan.lines[1].hasCurve)
    }

    /// Target ROAS 1: v a b s^-0.5 = 1 gives s = (v a b)^2 = 100 and 25; the saturating curve
    /// v M K / (K + s)^2 = 1 gives s = sqrt(5 * 80 * 120) - 120 = 99.09.
    @Test("target ROAS: each network up to where its marginal return meets the target")
    func targetROAS() {
        let networks = [Self.network("one", .powerLaw(a: 2, b: 0.5), value: 10),
                        Self.network("two", .powerLaw(a: 2, b: 0.5), value: 5),
                        Self.network("saturating", .saturating(capacity: 80, halfSpend: 120), value: 5)]
        let plan = BudgetPlanner.spendToTarget(networks, roas: 1)
        #expect(abs(plan.lines[0].plannedSpend - 100) < 1e-9)
        #expect(abs(plan.lines[1].plannedSpend - 25) < 1e-9)
        #expect(abs(plan.lines[2].plannedSpend - (sqrt(5 * 80 * 120) - 120)) < 1e-9)
        for line in plan.lines { #expect(abs(line.marginalReturn - 1) < 1e-9) }
    }

    /// At today's spend the curve's exponent does not move the installs (the curve was seen
    /// there); at four times today's spend the exponent's interval 0.4-0.6 gives 4^-0.1 and 4^0.1.
    /// Revenue's interval multiplies in the value's, $8-$12.50.
    @Test("the interval: no width from the curve at today's spend, growing away from it")
    func interval() {
        let network = Self.network("one", .powerLaw(a: 2, b: 0.5), value: 10)
        let today = BudgetPlanner.line(network, spend: 100)
        #expect(today.installsLow == today.installs && today.installsHigh == today.installs)
        #expect(abs(today.revenueLow - 8 * 20) < 1e-9 && abs(today.revenueHigh - 12.5 * 20) < 1e-9)
        let far = BudgetPlanner.line(network, spend: 400)
        #expect(abs(far.installsLow - 40 * pow(4, -0.1)) < 1e-9)
        #expect(abs(far.installsHigh - 40 * pow(4, 0.1)) < 1e-9)
    }
}
