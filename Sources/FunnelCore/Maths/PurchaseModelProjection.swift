import Foundation

/// The per-user projection: BG/NBD fitted on every install's purchase history, the clock starting
/// at install (the install plays the part of the papers' first purchase, which is not counted).
///
/// A user of a cohort mature for days 0...L who bought on days d1 < ... < dx has x = that number
/// of purchase days, recency tx = dx + 1 (a purchase on day d is placed at the end of the day) and
/// age T = L + 1, in days; users who never bought have x = 0, tx = 0. Identical histories are
/// grouped (`PurchaseHistory.grouped`'s weights), so a million users fit in the time of a few
/// tens of thousands of rows.
///
/// LTV(H) over all installs = (each cohort's observed revenue through min(L, H)
/// + Σ over users younger than H + 1 of their expected purchases in the next H + 1 − T days
/// × their expected revenue per purchase day) / installs. With a Gamma-Gamma model (`spend`,
/// fitted on the buyers' mean revenue per purchase day by `fitSpend`), a buyer's expected revenue
/// per purchase day is its conditional expectation given their own x and mean (Fader & Hardie
/// 2013: a weighted average of the population's mean and theirs, theirs weighing more the more
/// days they bought), and a user who never bought has the population's mean. Without it (no
/// buyers' revenue, too few buyers, or a fit with no finite mean), every purchase day is valued
/// at the triangle's mean revenue per purchase day. Grouping keeps its speed: each (x, tx, T)
/// group carries the sum of its members' expected spends.
public struct PurchaseModelProjection: Sendable {
    public let fit: BGNBD.Fit
    public let revenuePerPurchase: Double
    /// The spend model valuing each user's future purchase days, when one could be used.
    public let spend: GammaGamma?
    let histories: [WeightedPurchaseHistory]
    /// Per history group, the summed expected revenue per purchase day of its users (with `spend`).
    let expectedSpend: [PurchaseHistory: Double]
    let observedRevenue: [[Double]]
    let installs: Double

    /// Fewest buyers a fit needs.
    public static let minimumBuyers = 30
    /// The minimiser of the fits: fewer evaluations and restarts than the default (the fits are
    /// warm-started, and a daily run makes several).
    public static let minimiser = NelderMead(maximumEvaluations: 4_000, maximumRestarts: 3)

    /// The refits of the back-test: from the whole history's fit only, with a small budget.
    public static let refitMinimiser = NelderMead(maximumEvaluations: 600, maximumRestarts: 1)

    /// The fit on (an app's) grouped histories; nil with fewer than `minimumBuyers` buyers. With
    /// `refit`, a cheap refit from `start` (the back-test's held-out histories).
    public static func fitHistories(_ data: [WeightedPurchaseHistory], start: BGNBD? = nil,
                                    refit: Bool = false) -> BGNBD.Fit? {
        let buyers = data.filter { $0.history.x > 0 }.reduce(0) { $0 + $1.weight }
        guard buyers >= Double(minimumBuyers) else { return nil }
        if refit, let start {
            return BGNBD.fit(data, start: start, minimiser: refitMinimiser, onlyFromStart: true)
        }
        return BGNBD.fit(data, start: start, minimiser: minimiser)
    }

    /// A fit made elsewhere (the app's, for a network with few buyers) projecting `triangle`'s
    /// installs, valuing purchase days with `spend` when given; nil without buyers in the fit or
    /// purchases in the triangle.
    public init?(fitted: BGNBD.Fit, triangle: CohortTriangle, spend: GammaGamma? = nil) {
        guard let perPurchase = triangle.revenuePerPurchase else { return nil }
        self.init(fit: fitted, revenuePerPurchase: perPurchase, histories: Self.histories(triangle),
                  observedRevenue: triangle.cohorts.map(\.revenueByDay), installs: triangle.installs,
                  spend: spend, triangle: triangle)
    }

    init(fit: BGNBD.Fit, revenuePerPurchase: Double, histories: [WeightedPurchaseHistory], observedRevenue: [[Double]],
         installs: Double, spend: GammaGamma? = nil, triangle: CohortTriangle? = nil) {
        self.fit = fit
        self.revenuePerPurchase = revenuePerPurchase
        self.histories = histories
        self.observedRevenue = observedRevenue
        self.installs = installs
        var expected: [PurchaseHistory: Double] = [:]
        let usable = spend.flatMap { $0.meanSpend.isFinite && $0.meanSpend > 0 ? $0 : nil }
        if let usable, let triangle, triangle.cohorts.contains(where: { !$0.buyerPurchaseRevenue.isEmpty }) {
            for buyer in Self.buyers(triangle) {
                let value = buyer.meanSpend.map { usable.conditionalExpectedSpend(x: buyer.history.x, meanSpend: $0) }
                    ?? usable.meanSpend
                expected[buyer.history, default: 0] += value
            }
            for row in histories where row.history.x == 0 {
                expected[row.history] = row.weight * usable.meanSpend
            }
            self.spend = usable
        } else {
            self.spend = nil
        }
        expectedSpend = expected
    }

    /// One buyer's purchase days up to a cohort's last mature day, as the per-user model reads
    /// them: how many (x), the last one (-1 without any) and the revenue on them.
    public struct BuyerDays: Sendable, Equatable {
        public let x: Int
        public let lastDay: Int
        public let revenue: Double

        /// Sums `days` (ascending, days since install) and their `revenue` (empty when unknown:
        /// the revenue is then 0) through `lastMatureDay`; later days are left out.
        public init(days: [Int], revenue: [Double], through lastMatureDay: Int) {
            var x = 0, last = -1, total = 0.0
            for (position, day) in days.enumerated() where day <= lastMatureDay {
                x += 1
                last = day
                if !revenue.isEmpty { total += revenue[position] }
            }
            self.x = x
            self.lastDay = last
            self.revenue = total
        }

        /// The history (x, tx, T) of a buyer whose cohort is `lastMatureDay + 1` days old.
        public func history(lastMatureDay: Int) -> PurchaseHistory {
            PurchaseHistory(x: x, tx: Double(lastDay + 1), T: Double(lastMatureDay + 1))
        }
    }

    /// Each buyer's history (x, tx, T) with their mean revenue per purchase day (nil when the
    /// triangle carries no buyers' revenue), purchase days past the cohort's last mature day left out.
    static func buyers(_ triangle: CohortTriangle) -> [(history: PurchaseHistory, meanSpend: Double?)] {
        var result: [(history: PurchaseHistory, meanSpend: Double?)] = []
        for cohort in triangle.cohorts {
            let revenue = cohort.buyerPurchaseRevenue
            for (index, days) in cohort.buyerPurchaseDays.enumerated() {
                let buyer = BuyerDays(days: days, revenue: revenue.isEmpty ? [] : revenue[index], through: cohort.lastDay)
                guard buyer.x > 0 else { continue }
                result.append((buyer.history(lastMatureDay: cohort.lastDay),
                               revenue.isEmpty ? nil : buyer.revenue / Double(buyer.x)))
            }
        }
        return result
    }

    /// The buyers' (purchase days, mean revenue per purchase day) for the Gamma-Gamma fit, means
    /// rounded to 1% steps (log scale) and grouped, so that a million users fit in the time of a
    /// few thousand rows; buyers with no positive revenue are left out.
    public static func spendHistories(_ triangle: CohortTriangle) -> [SpendHistory] {
        struct Key: Hashable { let x: Int; let step: Int }
        var counts: [Key: Double] = [:]
        for buyer in buyers(triangle) {
            guard let mean = buyer.meanSpend, mean > 0, mean.isFinite else { continue }
            counts[Key(x: buyer.history.x, step: Int((log(mean) * 100).rounded())), default: 0] += 1
        }
        return counts.sorted { ($0.key.x, $0.key.step) < ($1.key.x, $1.key.step) }
            .map { SpendHistory(x: $0.key.x, meanSpend: exp(Double($0.key.step) / 100), weight: $0.value) }
    }

    /// Fewest buyers with revenue the spend model is fitted on.
    public static let minimumSpendBuyers = 30

    /// The Gamma-Gamma fit on a triangle's buyers; nil with fewer than `minimumBuyers` buyers with
    /// revenue, or a fit without a finite population mean (q <= 1).
    public static func fitSpend(_ triangle: CohortTriangle, minimumBuyers: Int = minimumSpendBuyers) -> GammaGamma? {
        let data = spendHistories(triangle)
        guard data.reduce(0, { $0 + $1.weight }) >= Double(minimumBuyers),
              let fit = GammaGamma.fit(data, minimiser: minimiser), fit.model.meanSpend.isFinite
        else { return nil }
        return fit.model
    }

    /// The per-install histories of a triangle, grouped by (x, tx, T).
    public static func histories(_ triangle: CohortTriangle) -> [WeightedPurchaseHistory] {
        var all: [PurchaseHistory] = []
        var nonBuyers: [Double: Double] = [:]
        for cohort in triangle.cohorts {
            let age = Double(cohort.lastDay + 1)
            for days in cohort.buyerPurchaseDays {
                let kept = days.filter { $0 <= cohort.lastDay }
                guard let last = kept.last else { continue }
                all.append(PurchaseHistory(x: Set(kept).count, tx: Double(last + 1), T: age))
            }
            let buyers = Double(cohort.buyerPurchaseDays.filter { ($0.first ?? .max) <= cohort.lastDay }.count)
            nonBuyers[age, default: 0] += max(0, cohort.installs - buyers)
        }
        var grouped = PurchaseHistory.grouped(all)
        for (age, count) in nonBuyers.sorted(by: { $0.key < $1.key }) where count > 0 {
            grouped.append(WeightedPurchaseHistory(history: PurchaseHistory(x: 0, tx: 0, T: age), weight: count))
        }
        return grouped
    }

    /// Fits the model on a triangle that carries its buyers' purchase days; `start` warm-starts the
    /// minimiser. Nil with fewer than `minimumBuyers` buyers, no purchases or a failed fit.
    public static func fit(_ triangle: CohortTriangle, start: BGNBD? = nil, spend: GammaGamma? = nil) -> PurchaseModelProjection? {
        let own = histories(triangle)
        let data = own
        let buyers = data.filter { $0.history.x > 0 }.reduce(0) { $0 + $1.weight }
        guard buyers >= Double(minimumBuyers), let perPurchase = triangle.revenuePerPurchase,
              let fit = BGNBD.fit(data, start: start, minimiser: minimiser)
        else { return nil }
        return PurchaseModelProjection(fit: fit, revenuePerPurchase: perPurchase, histories: own,
                                       observedRevenue: triangle.cohorts.map(\.revenueByDay),
                                       installs: triangle.installs, spend: spend, triangle: triangle)
    }

    /// Projected LTV on a day over all the triangle's installs.
    public func predict(day: Int) -> Double {
        guard installs > 0 else { return 0 }
        var revenue = 0.0
        for byDay in observedRevenue { revenue += byDay.prefix(day + 1).reduce(0, +) }
        let horizon = Double(day + 1)
        var future = 0.0
        let model = fit.model
        for row in histories where row.history.T < horizon {
            let h = row.history
            let expected = model.expectedPurchases(t: horizon - h.T, x: h.x, tx: h.tx, T: h.T)
            guard expected.isFinite else { continue }
            future += expected * (expectedSpend[h] ?? row.weight * revenuePerPurchase)
        }
        return (revenue + future) / installs
    }

    /// How reports state the model.
    public var modelDescription: String {
        let m = fit.model
        return "BG/NBD per install (r = \(String(format: "%.3g", m.r)), alpha = \(String(format: "%.3g", m.alpha)), "
            + "a = \(String(format: "%.3g", m.a)), b = \(String(format: "%.3g", m.b)), days since install) "
            + (spend.map { "x Gamma-Gamma spend per purchase day (p = \(String(format: "%.3g", $0.p)), "
                + "q = \(String(format: "%.3g", $0.q)), gamma = \(String(format: "%.3g", $0.gamma)), mean $\(String(format: "%.2f", $0.meanSpend)))" }
               ?? "x $\(String(format: "%.2f", revenuePerPurchase)) per purchase day")
    }
}
