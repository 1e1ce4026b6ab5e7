import Foundation

/// A concave response curve of daily installs to daily spend on the average weekday, as
/// `SpendResponseFit` chooses it: the power law a × spend^b (0 < b <= 1) or the saturating
/// M × spend / (K + spend).
public enum ResponseCurve: Sendable, Equatable {
    case powerLaw(a: Double, b: Double)
    case saturating(capacity: Double, halfSpend: Double)

    public func installs(spend: Double) -> Double {
        guard spend > 0 else { return 0 }
        switch self {
        case .powerLaw(let a, let b): return a * pow(spend, b)
        case .saturating(let m, let k): return m * spend / (k + spend)
        }
    }

    /// d installs / d spend: the installs the next dollar buys (1 / marginal CPI).
    public func marginalInstalls(spend: Double) -> Double {
        switch self {
        case .powerLaw(let a, let b): return spend > 0 ? a * b * pow(spend, b - 1) : (b < 1 ? .infinity : a)
        case .saturating(let m, let k): return m * k / ((k + max(spend, 0)) * (k + max(spend, 0)))
        }
    }

    /// The spend at which the next dollar buys `rate` installs: where the curve's slope falls to
    /// it. A straight line (b = 1) has no such point: its slope is the same everywhere, so the
    /// answer is infinite when the slope is above `rate` and 0 otherwise.
    public func spend(whereMarginalInstallsReaches rate: Double) -> Double {
        guard rate > 0 else { return .infinity }
        switch self {
        case .powerLaw(let a, let b):
            if b >= 1 { return a > rate ? .infinity : 0 }
            return pow(a * b / rate, 1 / (1 - b))
        case .saturating(let m, let k):
            return max(sqrt(m * k / rate) - k, 0)
        }
    }
}

/// Daily spend per network that maximises projected revenue at a horizon (docs/metrics.md,
/// "Budget plan"): each network's revenue is its value per install (projected LTV at the
/// horizon) times the installs its response curve buys. For concave curves the optimum under a
/// budget equalises the marginal return (value × d installs / d spend) across the networks not at
/// a bound, so the optimiser bisects on that common marginal return ("water-filling"), each
/// network's spend clamped to its bounds; a target ROAS sets the marginal return instead of
/// searching for it. The anchors are the budget allocators of Meta's Robyn, Google's Meridian
/// and PyMC-Marketing.
public enum BudgetPlanner {
    /// One network to plan: its curve (nil: no curve, kept at today's spend), the value of an
    /// install with its interval, today's spend, the interval of the curve's exponent and the
    /// bounds on its daily spend.
    public struct Network: Sendable, Equatable {
        public var name: String
        public var curve: ResponseCurve?
        public var value: Double
        public var valueLow: Double
        public var valueHigh: Double
        public var todaySpend: Double
        /// Today's CPI (spend / paid installs), for a network kept at today's spend without a curve.
        public var todayCPI: Double?
        /// The 90% interval of the curve's exponent (its elasticity, for a saturating curve).
        public var exponent: Double
        public var exponentLow: Double
        public var exponentHigh: Double
        public var lower: Double
        public var upper: Double

        public init(name: String, curve: ResponseCurve?, value: Double, valueLow: Double, valueHigh: Double,
                    todaySpend: Double, todayCPI: Double?, exponent: Double, exponentLow: Double,
                    exponentHigh: Double, lower: Double = 0, upper: Double = .infinity) {
            self.name = name
            self.curve = curve
            self.value = value
            self.valueLow = valueLow
            self.valueHigh = valueHigh
            self.todaySpend = todaySpend
            self.todayCPI = todayCPI
            self.exponent = exponent
            self.exponentLow = exponentLow
            self.exponentHigh = exponentHigh
            self.lower = lower
            self.upper = upper
        }

        /// Marginal return (revenue of the next dollar) at a daily spend.
        public func marginalReturn(spend: Double) -> Double {
            guard let curve else { return 0 }
            return value * curve.marginalInstalls(spend: spend)
        }

        /// Installs a day at a spend: on the curve, or at today's CPI without one.
        public func installs(spend: Double) -> Double {
            if let curve { return curve.installs(spend: spend) }
            guard let cpi = todayCPI, cpi > 0 else { return 0 }
            return spend / cpi
        }

        /// The spend where the marginal return meets `target`, within the bounds.
        func spend(atReturn target: Double) -> Double {
            guard let curve, value > 0 else { return lower }
            return min(max(curve.spend(whereMarginalInstallsReaches: target / value), lower), upper)
        }
    }

    /// How a plan was reached, for its notes.
    public enum Status: String, Sendable, Equatable {
        /// The budget is spent, marginal returns equalised across networks within their bounds.
        case optimal
        /// The minimums add up to more than the budget: every network at its lower bound.
        case budgetBelowMinimums = "budget below the minimums"
        /// The maximums add up to less than the budget: every network at its upper bound.
        case budgetAboveMaximums = "budget above the maximums"
        /// Spent up to where the marginal return meets the target ROAS.
        case targetROAS = "target ROAS"
    }

    /// One network's line of a plan.
    public struct Line: Sendable, Equatable {
        public var network: String
        public var todaySpend: Double
        public var plannedSpend: Double
        public var installs: Double
        public var installsLow: Double
        public var installsHigh: Double
        public var revenue: Double
        public var revenueLow: Double
        public var revenueHigh: Double
        public var marginalReturn: Double
        public var hasCurve: Bool
        public var cpi: Double? { installs > 0 ? plannedSpend / installs : nil }
        public var roas: Double? { plannedSpend > 0 ? revenue / plannedSpend : nil }
        public var roasLow: Double? { plannedSpend > 0 ? revenueLow / plannedSpend : nil }
        public var roasHigh: Double? { plannedSpend > 0 ? revenueHigh / plannedSpend : nil }
    }

    /// A plan: its lines and how it was reached, with the common marginal return.
    public struct Plan: Sendable, Equatable {
        public var lines: [Line]
        public var status: Status
        public var marginalReturn: Double?
        public var budget: Double? { lines.isEmpty ? nil : lines.reduce(0) { $0 + $1.plannedSpend } }

        /// The lines summed as network "all": intervals as sums of the ends (the networks' errors
        /// taken to go together, the cautious way); the marginal return is the plan's.
        public var total: Line {
            func sum(_ value: (Line) -> Double) -> Double { lines.reduce(0) { $0 + value($1) } }
            return Line(network: "all", todaySpend: sum(\.todaySpend), plannedSpend: sum(\.plannedSpend),
                        installs: sum(\.installs), installsLow: sum(\.installsLow), installsHigh: sum(\.installsHigh),
                        revenue: sum(\.revenue), revenueLow: sum(\.revenueLow), revenueHigh: sum(\.revenueHigh),
                        marginalReturn: marginalReturn ?? 0, hasCurve: lines.contains(where: \.hasCurve))
        }
    }

    /// The allocation of a daily budget that maximises projected revenue. Networks without a
    /// curve stay at their bounds' clamp of today's spend and their spend comes off the budget.
    public static func allocate(_ networks: [Network], budget: Double) -> Plan {
        let fixed = networks.filter { $0.curve == nil }
        let free = networks.filter { $0.curve != nil }
        let fixedSpend = fixed.reduce(0) { $0 + min(max($1.todaySpend, $1.lower), $1.upper) }
        let remaining = budget - fixedSpend
        var spends: [Double]
        var status = Status.optimal
        var level: Double?
        let lowest = free.reduce(0) { $0 + $1.lower }, highest = free.reduce(0) { $0 + $1.upper }
        if remaining <= lowest {
            spends = free.map(\.lower)
            status = free.isEmpty ? .optimal : .budgetBelowMinimums
        } else if remaining >= highest {
            spends = free.map(\.upper)
            status = .budgetAboveMaximums
        } else {
            (spends, level) = waterFill(free, budget: remaining)
        }
        var lines = zip(free, spends).map { line($0.0, spend: $0.1) }
        lines += fixed.map { line($0, spend: min(max($0.todaySpend, $0.lower), $0.upper)) }
        return Plan(lines: order(lines, as: networks), status: status, marginalReturn: level)
    }

    /// Each network's spend up to where its marginal return meets `roas` (within its bounds);
    /// networks without a curve stay at today's spend.
    public static func spendToTarget(_ networks: [Network], roas: Double) -> Plan {
        let lines = networks.map { network in
            line(network, spend: network.curve == nil ? min(max(network.todaySpend, network.lower), network.upper)
                                                      : network.spend(atReturn: roas))
        }
        return Plan(lines: lines, status: .targetROAS, marginalReturn: roas)
    }

    /// Bisection on ln(common marginal return): the total spend falls as the level rises. The
    /// last step splits what is left between the two bracketing levels' spends, which covers
    /// straight-line curves (their spend jumps from a bound to the other at their own return).
    static func waterFill(_ networks: [Network], budget: Double) -> ([Double], Double) {
        func spends(_ level: Double) -> [Double] { networks.map { $0.spend(atReturn: level) } }
        func total(_ values: [Double]) -> Double { values.reduce(0, +) }
        var high = 1.0, low = 1.0
        var guardSteps = 0
        while total(spends(high)) > budget && guardSteps < 400 { high *= 2; guardSteps += 1 }
        guardSteps = 0
        while total(spends(low)) < budget && guardSteps < 400 { low /= 2; guardSteps += 1 }
        for _ in 0..<200 {
            let middle = sqrt(low * high)
            if total(spends(middle)) > budget { low = middle } else { high = middle }
            if high / low - 1 < 1e-12 { break }
        }
        let under = spends(high), over = spends(low)
        let left = budget - total(under)
        let gaps = zip(under, over).map { $0.1 - $0.0 }
        let unbounded = gaps.filter { !$0.isFinite }.count
        let finite = gaps.filter(\.isFinite).reduce(0, +)
        let result = zip(under, gaps).map { spend, gap -> Double in
            if unbounded > 0 { return gap.isFinite ? spend : spend + left / Double(unbounded) }
            return finite > 0 ? spend + left * gap / finite : spend
        }
        return (result, sqrt(low * high))
    }

    /// A network's line at a spend, with the interval: installs from the curve with its exponent
    /// at the interval's ends pivoting on today's spend (where the curve was seen), times the
    /// value's interval ends.
    public static func line(_ network: Network, spend: Double) -> Line {
        let installs = network.installs(spend: spend)
        var low = installs, high = installs
        if network.curve != nil, network.todaySpend > 0, spend > 0 {
            let ratio = spend / network.todaySpend
            let factors = [pow(ratio, network.exponentLow - network.exponent), pow(ratio, network.exponentHigh - network.exponent)]
            low = installs * factors.min()!
            high = installs * factors.max()!
        }
        return Line(network: network.name, todaySpend: network.todaySpend, plannedSpend: spend, installs: installs,
                    installsLow: low, installsHigh: high, revenue: installs * network.value,
                    revenueLow: low * network.valueLow, revenueHigh: high * network.valueHigh,
                    marginalReturn: network.marginalReturn(spend: spend), hasCurve: network.curve != nil)
    }

    static func order(_ lines: [Line], as networks: [Network]) -> [Line] {
        let position = Dictionary(uniqueKeysWithValues: networks.enumerated().map { ($0.element.name, $0.offset) })
        return lines.sorted { (position[$0.network] ?? 0) < (position[$1.network] ?? 0) }
    }
}
