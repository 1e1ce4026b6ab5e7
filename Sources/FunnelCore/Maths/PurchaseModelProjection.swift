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
/// × the revenue per purchase day) / installs. The revenue per purchase day is the triangle's
/// mean: the facts keep no per-user spend, so the Gamma-Gamma model cannot weigh each user's own
/// mean spend here.
public struct PurchaseModelProjection: Sendable {
    public let fit: BGNBD.Fit
    public let revenuePerPurchase: Double
    let histories: [WeightedPurchaseHistory]
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
    /// installs; nil without buyers in the fit or purchases in the triangle.
    public init?(fitted: BGNBD.Fit, triangle: CohortTriangle) {
        guard let perPurchase = triangle.revenuePerPurchase else { return nil }
        self.init(fit: fitted, revenuePerPurchase: perPurchase, histories: Self.histories(triangle),
                  observedRevenue: triangle.cohorts.map(\.revenueByDay), installs: triangle.installs)
    }

    init(fit: BGNBD.Fit, revenuePerPurchase: Double, histories: [WeightedPurchaseHistory], observedRevenue: [[Double]],
         installs: Double) {
        self.fit = fit
        self.revenuePerPurchase = revenuePerPurchase
        self.histories = histories
        self.observedRevenue = observedRevenue
        self.installs = installs
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
    public static func fit(_ triangle: CohortTriangle, start: BGNBD? = nil) -> PurchaseModelProjection? {
        let own = histories(triangle)
        let data = own
        let buyers = data.filter { $0.history.x > 0 }.reduce(0) { $0 + $1.weight }
        guard buyers >= Double(minimumBuyers), let perPurchase = triangle.revenuePerPurchase,
              let fit = BGNBD.fit(data, start: start, minimiser: minimiser)
        else { return nil }
        return PurchaseModelProjection(fit: fit, revenuePerPurchase: perPurchase, histories: own,
                                       observedRevenue: triangle.cohorts.map(\.revenueByDay),
                                       installs: triangle.installs)
    }

    /// Projected LTV on a day over all the triangle's installs.
    public func predict(day: Int) -> Double {
        guard installs > 0 else { return 0 }
        var revenue = 0.0
        for byDay in observedRevenue { revenue += byDay.prefix(day + 1).reduce(0, +) }
        let horizon = Double(day + 1)
        var purchases = 0.0
        let model = fit.model
        for row in histories where row.history.T < horizon {
            let h = row.history
            let expected = model.expectedPurchases(t: horizon - h.T, x: h.x, tx: h.tx, T: h.T)
            if expected.isFinite { purchases += row.weight * expected }
        }
        return (revenue + purchases * revenuePerPurchase) / installs
    }

    /// How reports state the model.
    public var modelDescription: String {
        let m = fit.model
        return "BG/NBD per install (r = \(String(format: "%.3g", m.r)), alpha = \(String(format: "%.3g", m.alpha)), "
            + "a = \(String(format: "%.3g", m.a)), b = \(String(format: "%.3g", m.b)), days since install) "
            + "x $\(String(format: "%.2f", revenuePerPurchase)) per purchase day"
    }
}
