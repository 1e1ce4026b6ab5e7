import Foundation

/// The per-user projection, in the papers' convention: each buyer's clock starts at their first
/// purchase day (the trial, not counted), BG/NBD projects their repeat purchase days and
/// Gamma-Gamma their value; the installs who have not bought yet are projected by a model of the
/// first purchase (`FirstPurchaseModel`) and, once they buy, as new BG/NBD customers.
///
/// Transactions are days: several purchases on one day are one transaction. A buyer of a cohort
/// mature for days 0...L whose purchase days are f = d0 < d1 < ... < dx has x repeat days,
/// recency tx = dx − f and age T = L − f, in days (the first day's purchases are the trial, as
/// on CDNOW, where every customer is acquired by a purchase). Identical (x, tx, T) are grouped for
/// the fit (`PurchaseHistory.grouped`), so a million users fit in the time of tens of thousands of
/// rows; buyers whose first purchase is on their cohort's last day (T = 0) carry no information for
/// the fit, and are projected all the same.
///
/// LTV(H) over all installs = (each cohort's observed revenue through min(L, H)
/// + Σ buyers of cohorts with L < H: E[repeat days in the next H − L days | x, tx, T] × their expected
///   revenue per repeat day
/// + Σ installs without a purchase of cohorts with L < H: Σ_{d = L+1..H} P(first purchase on d |
///   none through L) × (the mean revenue of a first purchase day + E[repeat days in H − d] of a new
///   customer × the population's mean revenue per repeat day)) / installs.
///
/// A buyer's expected revenue per repeat day is the Gamma-Gamma conditional expectation given their
/// own repeat days and mean (Fader & Hardie 2013), the population mean for buyers without a repeat
/// day; without a spend model (too few repeat buyers, a fit without a finite mean, or no buyers'
/// revenue) every repeat day is valued at the mean revenue per repeat day. No user is left out: the
/// expectations are finite and non-negative (`BGNBD.expectedPurchases`).
public struct PurchaseModelProjection: Sendable {
    public let fit: BGNBD.Fit
    /// The mean revenue per repeat purchase day (the value of a repeat day without `spend`).
    public let revenuePerPurchase: Double
    /// The mean revenue of a first purchase day.
    public let firstPurchaseRevenue: Double
    /// The spend model valuing each user's future repeat days, when one could be used.
    public let spend: GammaGamma?
    /// The first purchase of the installs who have not bought yet; nil when every install bought.
    public let firstPurchase: FirstPurchaseModel?
    /// Buyers grouped by (x, tx, T, cohort's last day), with the sum of their expected spends.
    let buyerGroups: [BuyerGroup]
    /// Installs without a purchase, by their cohort's last day.
    let nonBuyers: [(lastDay: Int, count: Double)]
    /// Observed revenue on each day since install, summed over the cohorts.
    let revenueByDay: [Double]
    let installs: Double

    struct BuyerGroup: Sendable {
        let history: PurchaseHistory
        let lastDay: Int
        let weight: Double
        let spend: Double
    }

    /// Fewest buyers a fit needs.
    public static let minimumBuyers = 30
    /// The minimiser of the fits: fewer evaluations and restarts than the default (the fits are
    /// warm-started, and a daily run makes several).
    public static let minimiser = NelderMead(maximumEvaluations: 4_000, maximumRestarts: 3)

    /// The refits of the back-test: from the whole history's fit only, with a small budget.
    public static let refitMinimiser = NelderMead(maximumEvaluations: 600, maximumRestarts: 1)

    /// The fit on (an app's) grouped buyers' histories; nil with fewer than `minimumBuyers` buyers
    /// or a failed fit. With `refit`, a cheap refit from `start` (the back-test's held-out histories).
    public static func fitHistories(_ data: [WeightedPurchaseHistory], start: BGNBD? = nil,
                                    refit: Bool = false) -> BGNBD.Fit? {
        let buyers = data.reduce(0) { $0 + $1.weight }
        guard buyers >= Double(minimumBuyers) else { return nil }
        if refit, let start {
            return BGNBD.fit(data, start: start, minimiser: refitMinimiser, onlyFromStart: true)
        }
        return BGNBD.fit(data, start: start, minimiser: minimiser)
    }

    /// A fit made elsewhere (the app's, for a network with few buyers) projecting `triangle`'s
    /// installs, valuing repeat days with `spend` when given; nil without purchases in the triangle.
    public init?(fitted: BGNBD.Fit, triangle: CohortTriangle, spend: GammaGamma? = nil) {
        let buyers = Self.buyers(triangle)
        guard !buyers.isEmpty || triangle.revenuePerPurchase != nil else { return nil }
        self.init(fit: fitted, triangle: triangle, buyers: buyers, spend: spend)
    }

    init(fit: BGNBD.Fit, triangle: CohortTriangle, buyers: [Buyer], spend: GammaGamma?) {
        self.fit = fit
        installs = triangle.installs
        var byDay = [Double](repeating: 0, count: triangle.lastDay + 1)
        for cohort in triangle.cohorts {
            for (day, revenue) in cohort.revenueByDay.enumerated() { byDay[day] += revenue }
        }
        revenueByDay = byDay
        let withRevenue = buyers.filter { $0.firstRevenue != nil }
        let repeatDays = withRevenue.reduce(0) { $0 + $1.history.x }
        let repeatRevenue = withRevenue.reduce(0.0) { $0 + $1.repeatRevenue }
        let fallback = triangle.revenuePerPurchase ?? 0
        revenuePerPurchase = repeatDays > 0 && repeatRevenue > 0 ? repeatRevenue / Double(repeatDays) : fallback
        firstPurchaseRevenue = withRevenue.isEmpty ? fallback
            : withRevenue.reduce(0.0) { $0 + ($1.firstRevenue ?? 0) } / Double(withRevenue.count)
        let usable = spend.flatMap { $0.meanSpend.isFinite && $0.meanSpend > 0 ? $0 : nil }
        self.spend = withRevenue.isEmpty ? nil : usable
        struct Key: Hashable { let history: PurchaseHistory; let lastDay: Int }
        var groups: [Key: (weight: Double, spend: Double)] = [:]
        for buyer in buyers {
            let value: Double
            if let model = self.spend, buyer.firstRevenue != nil {
                value = model.conditionalExpectedSpend(x: buyer.history.x, meanSpend: buyer.meanRepeatSpend ?? 0)
            } else {
                value = revenuePerPurchase
            }
            let key = Key(history: buyer.history, lastDay: buyer.lastDay)
            groups[key, default: (0, 0)].weight += 1
            groups[key]!.spend += value
        }
        buyerGroups = groups.map { BuyerGroup(history: $0.key.history, lastDay: $0.key.lastDay, weight: $0.value.weight,
                                              spend: $0.value.spend) }
            .sorted { ($0.lastDay, $0.history.x, $0.history.tx, $0.history.T) < ($1.lastDay, $1.history.x, $1.history.tx, $1.history.T) }
        var waiting: [Int: Double] = [:]
        for cohort in triangle.cohorts {
            let bought = Double(cohort.buyerPurchaseDays.filter { ($0.first ?? .max) <= cohort.lastDay }.count)
            let count = max(0, cohort.installs - bought)
            if count > 0 { waiting[cohort.lastDay, default: 0] += count }
        }
        nonBuyers = waiting.sorted { $0.key < $1.key }.map { (lastDay: $0.key, count: $0.value) }
        firstPurchase = nonBuyers.isEmpty ? nil : FirstPurchaseModel.fit(triangle)
    }

    /// One buyer as the per-user model reads them, through their cohort's last mature day.
    public struct Buyer: Sendable, Equatable {
        /// (x repeat days, tx = last − first day, T = cohort's last day − first day).
        public let history: PurchaseHistory
        public let lastDay: Int
        /// Revenue on the first purchase day; nil when the buyers' revenue is unknown.
        public let firstRevenue: Double?
        /// Revenue on the repeat days.
        public let repeatRevenue: Double

        /// The mean revenue per repeat day; nil without repeat days or revenue.
        public var meanRepeatSpend: Double? {
            history.x > 0 && firstRevenue != nil ? repeatRevenue / Double(history.x) : nil
        }
    }

    /// One buyer's purchase days up to a cohort's last mature day, as the per-user model reads
    /// them: how many days with a purchase, the first and last of them (-1 without any) and the
    /// revenue on them (the first day's apart).
    public struct BuyerDays: Sendable, Equatable {
        /// Days with a purchase (the first included).
        public let days: Int
        public let firstDay: Int
        public let lastDay: Int
        public let revenue: Double
        public let firstDayRevenue: Double

        /// Repeat days: days with a purchase after the first.
        public var x: Int { max(0, days - 1) }

        /// Sums `days` (ascending, days since install; a day listed twice counts once) and their
        /// `revenue` (empty when unknown: the revenue is then 0) through `lastMatureDay`; later days
        /// are left out.
        public init(days: [Int], revenue: [Double], through lastMatureDay: Int) {
            var count = 0, first = -1, last = -1, total = 0.0, firstTotal = 0.0
            for (position, day) in days.enumerated() where day <= lastMatureDay {
                if day != last { count += 1 }
                if first < 0 { first = day }
                last = day
                let amount = revenue.isEmpty ? 0 : revenue[position]
                total += amount
                if day == first { firstTotal += amount }
            }
            self.days = count
            self.firstDay = first
            self.lastDay = last
            self.revenue = total
            self.firstDayRevenue = firstTotal
        }

        /// The papers' history of a buyer whose cohort is mature through `lastMatureDay`:
        /// (x repeat days, tx = last − first, T = lastMatureDay − first). Nil without a purchase.
        public func history(lastMatureDay: Int) -> PurchaseHistory? {
            guard days > 0 else { return nil }
            return PurchaseHistory(x: x, tx: Double(lastDay - firstDay), T: Double(lastMatureDay - firstDay))
        }
    }

    /// Every buyer of a triangle, purchase days past their cohort's last mature day left out.
    public static func buyers(_ triangle: CohortTriangle) -> [Buyer] {
        var result: [Buyer] = []
        for cohort in triangle.cohorts {
            let revenue = cohort.buyerPurchaseRevenue
            for (index, days) in cohort.buyerPurchaseDays.enumerated() {
                let summary = BuyerDays(days: days, revenue: revenue.isEmpty ? [] : revenue[index], through: cohort.lastDay)
                guard let history = summary.history(lastMatureDay: cohort.lastDay) else { continue }
                result.append(Buyer(history: history, lastDay: cohort.lastDay,
                                    firstRevenue: revenue.isEmpty ? nil : summary.firstDayRevenue,
                                    repeatRevenue: summary.revenue - summary.firstDayRevenue))
            }
        }
        return result
    }

    /// The buyers' (repeat days, mean revenue per repeat day) for the Gamma-Gamma fit, as in the
    /// papers (the first day's spend left out), means rounded to 1% steps (log scale) and grouped,
    /// so that a million users fit in the time of a few thousand rows; buyers without a repeat day
    /// or with no positive repeat revenue are left out (they carry no information on spend).
    public static func spendHistories(_ triangle: CohortTriangle) -> [SpendHistory] {
        struct Key: Hashable { let x: Int; let step: Int }
        var counts: [Key: Double] = [:]
        for buyer in buyers(triangle) {
            guard let mean = buyer.meanRepeatSpend, mean > 0, mean.isFinite else { continue }
            counts[Key(x: buyer.history.x, step: Int((log(mean) * 100).rounded())), default: 0] += 1
        }
        return counts.sorted { ($0.key.x, $0.key.step) < ($1.key.x, $1.key.step) }
            .map { SpendHistory(x: $0.key.x, meanSpend: exp(Double($0.key.step) / 100), weight: $0.value) }
    }

    /// Fewest repeat buyers with revenue the spend model is fitted on.
    public static let minimumSpendBuyers = 30

    /// The Gamma-Gamma fit on a triangle's repeat buyers; nil with fewer than `minimumBuyers` of
    /// them, or a fit without a finite population mean (q <= 1).
    public static func fitSpend(_ triangle: CohortTriangle, minimumBuyers: Int = minimumSpendBuyers) -> GammaGamma? {
        let data = spendHistories(triangle)
        guard data.reduce(0, { $0 + $1.weight }) >= Double(minimumBuyers),
              let fit = GammaGamma.fit(data, minimiser: minimiser), fit.model.meanSpend.isFinite
        else { return nil }
        return fit.model
    }

    /// The buyers' histories of a triangle in the papers' convention, grouped by (x, tx, T): what
    /// BG/NBD is fitted on.
    public static func histories(_ triangle: CohortTriangle) -> [WeightedPurchaseHistory] {
        PurchaseHistory.grouped(buyers(triangle).map(\.history))
    }

    /// Fits the model on a triangle that carries its buyers' purchase days; `start` warm-starts the
    /// minimiser. Nil with fewer than `minimumBuyers` buyers or a failed fit.
    public static func fit(_ triangle: CohortTriangle, start: BGNBD? = nil, spend: GammaGamma? = nil) -> PurchaseModelProjection? {
        let buyers = buyers(triangle)
        guard let fit = fitHistories(PurchaseHistory.grouped(buyers.map(\.history)), start: start) else { return nil }
        return PurchaseModelProjection(fit: fit, triangle: triangle, buyers: buyers, spend: spend)
    }

    /// The mean revenue per repeat day of a triangle's buyers; nil without repeat days with revenue.
    public static func meanRepeatRevenue(_ triangle: CohortTriangle) -> Double? {
        let repeats = buyers(triangle).filter { $0.firstRevenue != nil }
        let days = repeats.reduce(0) { $0 + $1.history.x }
        let revenue = repeats.reduce(0.0) { $0 + $1.repeatRevenue }
        return days > 0 && revenue > 0 ? revenue / Double(days) : nil
    }

    /// The population's mean revenue per repeat day.
    var repeatValue: Double { spend?.meanSpend ?? revenuePerPurchase }

    /// Projected LTV on a day over all the triangle's installs.
    public func predict(day: Int) -> Double {
        guard installs > 0 else { return 0 }
        var revenue = 0.0
        for value in revenueByDay.prefix(max(0, day + 1)) { revenue += value }
        let model = fit.model
        var future = 0.0
        for group in buyerGroups where group.lastDay < day {
            let h = group.history
            future += model.expectedPurchases(t: Double(day - group.lastDay), x: h.x, tx: h.tx, T: h.T) * group.spend
        }
        if let firstPurchase, let lastWaiting = nonBuyers.first?.lastDay, lastWaiting < day {
            // A new buyer's value on their first purchase day, by the days left to the horizon.
            let newBuyer = (0...(day - lastWaiting - 1)).map { left in
                firstPurchaseRevenue + repeatValue * model.expectedPurchases(t: Double(left))
            }
            for group in nonBuyers where group.lastDay < day {
                future += group.count * firstPurchase.expectedValue(after: group.lastDay, through: day) { newBuyer[day - $0] }
            }
        }
        return (revenue + future) / installs
    }

    /// How reports state the model.
    public var modelDescription: String {
        let m = fit.model
        return "BG/NBD per buyer from the first purchase day (r = \(String(format: "%.3g", m.r)), "
            + "alpha = \(String(format: "%.3g", m.alpha)), a = \(String(format: "%.3g", m.a)), b = \(String(format: "%.3g", m.b)), "
            + "repeat purchase days) "
            + (spend.map { "x Gamma-Gamma spend per repeat day (p = \(String(format: "%.3g", $0.p)), "
                + "q = \(String(format: "%.3g", $0.q)), gamma = \(String(format: "%.3g", $0.gamma)), mean $\(String(format: "%.2f", $0.meanSpend)))" }
               ?? "x $\(String(format: "%.2f", revenuePerPurchase)) per repeat day")
            + (firstPurchase.map { "; first purchases of the installs yet to buy: \($0.modelDescription)" } ?? "")
    }
}

/// When installs who have not bought yet make their first purchase: a discrete hazard per day
/// since install, h(d) = first purchases on day d / installs that had not bought by day d − 1,
/// over the cohorts mature for d. On the days backed by at least `DevelopmentFactorProjection.minimumSupport`
/// of the installs the observed hazard is used; past them, h(d) = k · d^(−γ) (γ in [0, 3]), fitted by
/// maximum likelihood on every observed day from day 1 (each cohort's installs at risk and first
/// purchases), capped at 1. Most app installs never buy: the hazard falls, and the share of
/// installs still to buy shrinks by Π (1 − h).
public struct FirstPurchaseModel: Sendable, Equatable {
    /// The observed hazard on days 0...supportedDay.
    public let observed: [Double]
    public let k: Double
    public let gamma: Double

    /// The hazard on day d (>= 1).
    public func hazard(day: Int) -> Double {
        if day < observed.count { return observed[day] }
        return min(1, k * pow(Double(day), -gamma))
    }

    /// Σ_{d = after+1..through} P(first purchase on d | none through `after`) × value(d).
    public func expectedValue(after: Int, through: Int, value: (Int) -> Double) -> Double {
        guard through > after else { return 0 }
        var waiting = 1.0
        var total = 0.0
        for day in (after + 1)...through {
            let h = hazard(day: day)
            total += waiting * h * value(day)
            waiting *= 1 - h
            if waiting < 1e-12 { break }
        }
        return total
    }

    /// The hazard from a triangle's buyers' first purchase days; nil when no first purchase is seen
    /// after day 0 (nothing to fit a decay on) or no install is at risk.
    public static func fit(_ triangle: CohortTriangle) -> FirstPurchaseModel? {
        let lastDay = triangle.lastDay
        guard lastDay >= 1 else { return nil }
        var firsts = [Double](repeating: 0, count: lastDay + 1)
        var atRisk = [Double](repeating: 0, count: lastDay + 1)
        for cohort in triangle.cohorts {
            var byDay = [Double](repeating: 0, count: cohort.lastDay + 1)
            for days in cohort.buyerPurchaseDays {
                if let first = days.first, first <= cohort.lastDay { byDay[first] += 1 }
            }
            var waiting = cohort.installs
            for day in 0...cohort.lastDay {
                atRisk[day] += waiting
                firsts[day] += byDay[day]
                waiting = max(0, waiting - byDay[day])
            }
        }
        guard firsts.dropFirst().reduce(0, +) > 0 else { return nil }
        // ln L = Σ_d e(d) ln h(d) + (n(d) − e(d)) ln(1 − h(d)), over (ln k, γ).
        let objective: ([Double]) -> Double = { theta in
            let gamma = theta[1]
            guard theta[0] < 0, gamma >= 0, gamma <= 3 else { return .infinity }
            var total = 0.0
            for day in 1...lastDay where atRisk[day] > 0 {
                let h = min(exp(theta[0] - gamma * log(Double(day))), 1 - 1e-12)
                total += firsts[day] * log(h) + (atRisk[day] - firsts[day]) * log1p(-h)
            }
            return -total
        }
        let rate = firsts.dropFirst().reduce(0, +) / atRisk.dropFirst().reduce(0, +)
        let result = NelderMead().minimize(objective, from: [log(max(rate, 1e-9)) - 0.01, 0.5])
        guard result.value.isFinite else { return nil }
        let supported = triangle.lastDay(backedBy: DevelopmentFactorProjection.minimumSupport)
        let observed = (0...max(0, supported)).map { atRisk[$0] > 0 ? firsts[$0] / atRisk[$0] : 0 }
        return FirstPurchaseModel(observed: observed, k: exp(result.point[0]), gamma: result.point[1])
    }

    /// How reports state the model.
    public var modelDescription: String {
        "daily hazard observed to day \(observed.count - 1), then \(String(format: "%.3g", k)) x d^-\(String(format: "%.3f", gamma))"
    }
}
