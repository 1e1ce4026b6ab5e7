import Foundation

/// The revenue triangle of one app and network: per install cohort, its installs and the revenue
/// (and purchase days) on each day since install up to the cohort's last mature day. Younger
/// cohorts have shorter rows, hence the triangle. The LTV projections read it, and the back-test
/// cuts its most recent calendar days off (`holdingOut`).
public struct CohortTriangle: Sendable, Equatable {
    /// One install cohort.
    public struct Cohort: Sendable, Equatable {
        public let installs: Double
        /// Revenue on days 0...lastDay since install (its count is lastDay + 1).
        public let revenueByDay: [Double]
        /// Users who bought on each day (purchase days), as `revenueByDay`.
        public let purchasesByDay: [Double]
        /// The days since install each buyer bought on (ascending), one list per buyer; empty when
        /// the per-user model is not wanted.
        public let buyerPurchaseDays: [[Int]]
        /// Each buyer's revenue on each of their purchase days, as `buyerPurchaseDays`; empty when
        /// unknown (the per-user model then values every purchase day at the triangle's mean).
        public let buyerPurchaseRevenue: [[Double]]

        /// Days from the cohort's install to the triangle's last day: `lastDay`, unless the rows
        /// are capped (`[ltv].max_day`) short of the cohort's age.
        public let age: Int

        public init(installs: Double, revenueByDay: [Double], purchasesByDay: [Double]? = nil,
                    buyerPurchaseDays: [[Int]] = [], buyerPurchaseRevenue: [[Double]] = [], age: Int? = nil) {
            self.installs = installs
            self.age = max(age ?? revenueByDay.count - 1, revenueByDay.count - 1)
            self.revenueByDay = revenueByDay
            self.purchasesByDay = purchasesByDay ?? Array(repeating: 0, count: revenueByDay.count)
            self.buyerPurchaseDays = buyerPurchaseDays
            self.buyerPurchaseRevenue = buyerPurchaseRevenue.count == buyerPurchaseDays.count
                && zip(buyerPurchaseRevenue, buyerPurchaseDays).allSatisfy { $0.count == $1.count } ? buyerPurchaseRevenue : []
        }

        /// The last day the cohort is mature for (-1: none).
        public var lastDay: Int { revenueByDay.count - 1 }

        /// The cohort as it stood on its day `day` (days after it, and purchases on them, left out).
        public func through(day: Int) -> Cohort {
            guard day < lastDay else {
                return Cohort(installs: installs, revenueByDay: revenueByDay, purchasesByDay: purchasesByDay,
                              buyerPurchaseDays: buyerPurchaseDays, buyerPurchaseRevenue: buyerPurchaseRevenue,
                              age: min(age, day))
            }
            var days: [[Int]] = []
            var revenue: [[Double]] = []
            for (index, buyer) in buyerPurchaseDays.enumerated() {
                let kept = buyer.prefix { $0 <= day }
                guard !kept.isEmpty else { continue }
                days.append(Array(kept))
                if !buyerPurchaseRevenue.isEmpty { revenue.append(Array(buyerPurchaseRevenue[index].prefix(kept.count))) }
            }
            return Cohort(installs: installs, revenueByDay: Array(revenueByDay.prefix(day + 1)),
                          purchasesByDay: Array(purchasesByDay.prefix(day + 1)), buyerPurchaseDays: days,
                          buyerPurchaseRevenue: revenue, age: day)
        }

        /// Cumulative revenue on days 0...day (day <= lastDay).
        public func cumulativeRevenue(through day: Int) -> Double {
            revenueByDay[0...min(day, lastDay)].reduce(0, +)
        }
    }

    public let cohorts: [Cohort]

    public init(cohorts: [Cohort]) {
        self.cohorts = cohorts.filter { $0.lastDay >= 0 && $0.installs > 0 }
    }

    /// The largest day any cohort is mature for (-1 when empty).
    public var lastDay: Int { cohorts.map(\.lastDay).max() ?? -1 }

    /// All installs.
    public var installs: Double { cohorts.reduce(0) { $0 + $1.installs } }

    /// The triangle as it stood `days` calendar days earlier: each cohort loses the days past its
    /// age then (a cohort whose rows are capped short of its age loses only those past it), and
    /// cohorts younger than that drop out.
    public func holdingOut(days: Int) -> CohortTriangle {
        guard days > 0 else { return self }
        let holdout = days
        return CohortTriangle(cohorts: cohorts.compactMap { cohort -> Cohort? in
            let keep = min(cohort.revenueByDay.count, cohort.age - holdout + 1)
            guard keep > 0 else { return nil }
            var days: [[Int]] = []
            var revenue: [[Double]] = []
            for (index, buyer) in cohort.buyerPurchaseDays.enumerated() {
                let kept = buyer.prefix { $0 < keep }
                guard !kept.isEmpty else { continue }
                days.append(Array(kept))
                if !cohort.buyerPurchaseRevenue.isEmpty { revenue.append(Array(cohort.buyerPurchaseRevenue[index].prefix(kept.count))) }
            }
            return Cohort(installs: cohort.installs, revenueByDay: Array(cohort.revenueByDay.prefix(keep)),
                          purchasesByDay: Array(cohort.purchasesByDay.prefix(keep)),
                          buyerPurchaseDays: days, buyerPurchaseRevenue: revenue, age: cohort.age - holdout)
        })
    }

    /// The age of the oldest cohort (-1 when empty).
    public var oldestAge: Int { cohorts.map(\.age).max() ?? -1 }

    /// A back-test window of a triangle whose oldest cohort is `oldestAge` days old (every cohort
    /// ending on the same calendar day; for a network, the app's oldest): the cohorts installed
    /// `firstInstallDay` ..< firstInstallDay + `days` days after the first install, as they stood
    /// at the window's end (`history`: the oldest `days − 1` days old), and those cohorts' full
    /// rows (`cohorts`).
    public struct Window: Sendable {
        public let history: CohortTriangle
        public let cohorts: [Cohort]

        /// The window's cohorts' LTV on `day` as observed (cumulative revenue through day over
        /// installs); nil unless every one of them is mature for it.
        public func observed(day: Int) -> Double? {
            guard !cohorts.isEmpty, cohorts.allSatisfy({ $0.lastDay >= day }) else { return nil }
            let installs = cohorts.reduce(0) { $0 + $1.installs }
            return installs > 0 ? cohorts.reduce(0) { $0 + $1.cumulativeRevenue(through: day) } / installs : nil
        }
    }

    public func window(oldestAge: Int, firstInstallDay: Int, days: Int) -> Window {
        let end = firstInstallDay + days - 1
        var chosen: [Cohort] = []
        var held: [Cohort] = []
        for cohort in cohorts {
            let installDay = oldestAge - cohort.age
            guard installDay >= firstInstallDay, installDay <= end else { continue }
            chosen.append(cohort)
            held.append(cohort.through(day: end - installDay))
        }
        return Window(history: CohortTriangle(cohorts: held), cohorts: chosen)
    }

    /// The installs of the cohorts mature for each day 0...lastDay.
    public func installsByDay() -> [Double] {
        var steps = [Double](repeating: 0, count: lastDay + 2)
        for cohort in cohorts { steps[cohort.lastDay] += cohort.installs }
        var result = [Double](repeating: 0, count: lastDay + 1)
        var running = 0.0
        for day in stride(from: lastDay, through: 0, by: -1) {
            running += steps[day]
            result[day] = running
        }
        return result
    }

    /// The observed LTV on each day N: cumulative revenue on days 0...N of the cohorts mature for N
    /// over their installs. Exact for a single cohort and for any set of cohorts all mature for N;
    /// across cohorts of different ages it can fall from one day to the next (later days rest on
    /// older cohorts only).
    public func matureCurve() -> [Double] {
        guard lastDay >= 0 else { return [] }
        var curve = [Double](repeating: 0, count: lastDay + 1)
        let installs = installsByDay()
        for cohort in cohorts {
            var cumulative = 0.0
            for (day, revenue) in cohort.revenueByDay.enumerated() {
                cumulative += revenue
                curve[day] += cumulative
            }
        }
        return zip(curve, installs).map { $1 > 0 ? $0 / $1 : 0 }
    }

    /// The chained LTV on each day N: the sum over days 0...N of the revenue per install on that
    /// day of the cohorts mature for it. It cannot fall (each term is revenue per install, >= 0 for
    /// non-negative revenue), and for a single cohort, or cohorts all mature for N, it equals
    /// `matureCurve()` on N.
    public func chainedCurve() -> [Double] {
        incrementalCurve().reduce(into: [Double]()) { $0.append(($0.last ?? 0) + $1) }
    }

    /// Revenue per install on each day N of the cohorts mature for N.
    public func incrementalCurve() -> [Double] {
        guard lastDay >= 0 else { return [] }
        var revenue = [Double](repeating: 0, count: lastDay + 1)
        for cohort in cohorts {
            for (day, amount) in cohort.revenueByDay.enumerated() { revenue[day] += amount }
        }
        return zip(revenue, installsByDay()).map { $1 > 0 ? $0 / $1 : 0 }
    }

    /// The last day backed by at least `share` of day 0's installs (-1 when empty).
    public func lastDay(backedBy share: Double) -> Int {
        let installs = installsByDay()
        guard let first = installs.first else { return -1 }
        return installs.lastIndex { $0 >= share * first } ?? -1
    }

    /// Revenue per purchase day (a user buying on a day), over the whole triangle; nil without
    /// purchases.
    public var revenuePerPurchase: Double? {
        var revenue = 0.0
        var purchases = 0.0
        for cohort in cohorts {
            revenue += cohort.revenueByDay.reduce(0, +)
            purchases += cohort.purchasesByDay.reduce(0, +)
        }
        return purchases > 0 ? revenue / purchases : nil
    }
}
