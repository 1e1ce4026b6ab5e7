import Foundation
import FunnelCore
import Testing

@Suite("LTV back-tested projection")
struct LTVProjectionTests {
    /// Two cohorts: A (10 installs, days 0-2: $10, $0, $5) and B (30 installs, days 0-1: $3, $6).
    /// Mature curve: day 0 (10 + 3) / 40, day 1 (10 + 9) / 40, day 2 15 / 10 (A alone).
    /// Chained: day 0 13/40, day 1 13/40 + 6/40, day 2 19/40 + 5/10.
    @Test("mature and chained curves, by hand")
    func curvesByHand() {
        let triangle = CohortTriangle(cohorts: [
            .init(installs: 10, revenueByDay: [10, 0, 5]),
            .init(installs: 30, revenueByDay: [3, 6]),
        ])
        #expect(triangle.installsByDay() == [40, 40, 10])
        #expect(triangle.matureCurve() == [13.0 / 40, 19.0 / 40, 1.5])
        let chained = triangle.chainedCurve()
        #expect(abs(chained[0] - 13.0 / 40) < 1e-12)
        #expect(abs(chained[1] - 19.0 / 40) < 1e-12)
        #expect(abs(chained[2] - (19.0 / 40 + 0.5)) < 1e-12)
        // A single cohort's chained curve is its exact cumulative LTV.
        let single = CohortTriangle(cohorts: [.init(installs: 10, revenueByDay: [10, 0, 5])])
        #expect(single.chainedCurve() == single.matureCurve())
        #expect(single.matureCurve() == [1.0, 1.0, 1.5])
        // Holding out a day: A keeps days 0-1, B keeps day 0.
        let held = triangle.holdingOut(days: 1)
        #expect(held.cohorts.map(\.revenueByDay) == [[10, 0], [3]])
    }

    /// The chained curve never falls, where the mature curve does (its last day rests on a weak
    /// old cohort).
    @Test("the chained curve cannot fall")
    func chainedIsMonotone() {
        let triangle = CohortTriangle(cohorts: [
            .init(installs: 100, revenueByDay: [1, 1, 1, 0]),
            .init(installs: 100, revenueByDay: [50, 50, 50]),
        ])
        let mature = triangle.matureCurve()
        #expect(mature[3] < mature[2])
        let chained = triangle.chainedCurve()
        #expect(zip(chained, chained.dropFirst()).allSatisfy { $0 <= $1 })
    }

    /// Planted shapes, each a curve LTV(d) of USD per install: users buy $5 on day d with
    /// probability (LTV(d) − LTV(d−1)) / 5, independently, so the cohorts' expected LTV is the
    /// planted curve. 90 daily cohorts of 1,000 installs (90 days of history).
    enum Shape: String, CaseIterable {
        case powerLaw = "power law"
        case frontLoadedLinear = "front-loaded then linear"
        case saturating

        func ltv(_ day: Int) -> Double {
            guard day >= 0 else { return 0 }
            let d = Double(day)
            switch self {
            case .powerLaw: return 0.5 * pow(d + 1, 0.45)
            case .frontLoadedLinear: return 1.0 + 0.006 * d
            case .saturating: return 3 * (1 - exp(-(d + 1) / 40))
            }
        }
    }

    static func triangle(_ shape: Shape, cohorts: Int = 90, installs: Int = 1_000, seed: UInt64) -> CohortTriangle {
        var random = SplitMix64(seed: seed)
        let price = 5.0
        var result: [CohortTriangle.Cohort] = []
        for index in 0..<cohorts {
            let lastDay = cohorts - 1 - index
            var revenue = [Double](repeating: 0, count: lastDay + 1)
            var purchases = [Double](repeating: 0, count: lastDay + 1)
            var buyers: [[Int]] = []
            let probability = (0...lastDay).map { (shape.ltv($0) - shape.ltv($0 - 1)) / price }
            for _ in 0..<installs {
                var days: [Int] = []
                for day in 0...lastDay where random.unit() < probability[day] { days.append(day) }
                for day in days {
                    revenue[day] += price
                    purchases[day] += 1
                }
                if !days.isEmpty { buyers.append(days) }
            }
            result.append(.init(installs: Double(installs), revenueByDay: revenue, purchasesByDay: purchases,
                                buyerPurchaseDays: buyers))
        }
        return CohortTriangle(cohorts: result)
    }

    @Test("from 90 days of history the chosen projection is within 10% of the planted D180 and D365",
          arguments: Shape.allCases)
    func chosenProjectionRecoversPlantedShape(shape: Shape) throws {
        let triangle = Self.triangle(shape, seed: 7)
        let outcome = LTVBacktest.run(networks: ["all": triangle], horizons: [180, 365])
        for method in LTVMethod.allCases {
            let points = outcome.appPoints.filter { $0.method == method }
            for horizon in [180, 365] {
                let errors = points.filter { $0.horizon == horizon }.map { String(format: "%+.1f%%", 100 * $0.relativeError) }
                print("\(shape.rawValue): \(method.rawValue) back-test errors at D\(horizon): \(errors.joined(separator: " "))")
            }
        }
        for horizon in [180, 365] {
            let chosen = try #require(outcome.chosenByHorizon[horizon])
            let coverage = outcome.coverage(method: chosen)
            print("\(shape.rawValue): D\(horizon) chosen \(chosen.rawValue), scores \(outcome.scores[horizon]!.map { "\($0.key.rawValue) \($0.value)" }), "
                  + "80% interval coverage \(coverage.map { String(format: "%.0f%%", 100 * $0.share) } ?? "n/a") "
                  + "of \(coverage?.points ?? 0)")
            // Projected the way compute does: the first of the ranking that can project (the
            // ensemble declines where its parts disagree past its interval).
            let made: (LTVMethod) -> LTVProjection? = { method in
                method == .ensemble ? outcome.ensemble(horizon: horizon, lastDay: triangle.lastDay) { LTVProjection.fit($0, triangle) }
                    : LTVProjection.fit(method, triangle)
            }
            let projection = try #require(outcome.ranking(horizon: horizon).lazy.compactMap(made).first)
            let used = projection.method
            let truth = shape.ltv(horizon)
            let error = projection.predict(day: horizon) / truth - 1
            print("\(shape.rawValue): \(used.rawValue) D\(horizon) \(projection.predict(day: horizon)) vs planted \(truth)")
            #expect(abs(error) < 0.10, "\(shape.rawValue) D\(horizon): \(used.rawValue) off by \(error)")
            // The chosen method's back-test error at the horizon is the smallest, unless the
            // ensemble is chosen: then no method beats it by more than a standard error.
            if chosen != .ensemble {
                #expect(outcome.scores[horizon]![chosen] == outcome.scores[horizon]!.values.min())
            } else {
                #expect(outcome.scores[horizon]![.ensemble] != nil)
            }
        }
        // The back-test measured every method on this shape.
        #expect(Set(outcome.points.map(\.method)).count >= 2)
    }

    @Test("the per-user model projects a cohort's future purchases from its buyers' histories")
    func purchaseModelProjects() throws {
        let triangle = Self.triangle(.powerLaw, cohorts: 40, installs: 500, seed: 3)
        let projection = try #require(PurchaseModelProjection.fit(triangle))
        // Inside the observed days its LTV is close to the observed one, and it keeps growing.
        let observed = triangle.matureCurve()[20]
        #expect(abs(projection.predict(day: 20) / observed - 1) < 0.1)
        #expect(projection.predict(day: 180) > projection.predict(day: 90))
        // Grouped histories keep every buyer; the others are the first-purchase model's.
        let weight = PurchaseModelProjection.histories(triangle).reduce(0) { $0 + $1.weight }
        #expect(weight == Double(triangle.cohorts.reduce(0) { $0 + $1.buyerPurchaseDays.count }))
        #expect(projection.firstPurchase != nil)
    }

    @Test("a buyer's days are read through the cohort's last mature day in the papers' convention, by hand")
    func buyerDaysThroughMaturity() throws {
        let buyer = PurchaseModelProjection.BuyerDays(days: [2, 3, 9, 12], revenue: [1.5, 2, 4, 8], through: 9)
        #expect(buyer == PurchaseModelProjection.BuyerDays(days: [2, 3, 9], revenue: [1.5, 2, 4], through: 30))
        #expect((buyer.days, buyer.x, buyer.firstDay, buyer.lastDay, buyer.revenue, buyer.firstDayRevenue) == (3, 2, 2, 9, 7.5, 1.5))
        // The first purchase day is the trial: x = 2 repeat days, tx = 9 − 2, T = 9 − 2.
        let history = try #require(buyer.history(lastMatureDay: 9))
        #expect((history.x, history.tx, history.T) == (2, 7, 7))
        // Several orders on one day are one transaction.
        let sameDay = PurchaseModelProjection.BuyerDays(days: [0, 0, 4], revenue: [1, 2, 5], through: 9)
        #expect((sameDay.days, sameDay.x, sameDay.firstDayRevenue) == (2, 1, 3))
        let late = PurchaseModelProjection.BuyerDays(days: [5], revenue: [], through: 4)
        #expect((late.days, late.lastDay, late.revenue) == (0, -1, 0))
        #expect(late.history(lastMatureDay: 4) == nil)
        #expect(PurchaseModelProjection.BuyerDays(days: [2], revenue: [], through: 4).revenue == 0)
    }

    @Test("the back-test judges the real extrapolation: targets at the projection's ratio of horizon to history, windows whose cohorts are all mature for the target")
    func backtestRatio() throws {
        let triangle = Self.triangle(.frontLoadedLinear, cohorts: 90, installs: 200, seed: 11)
        let outcome = LTVBacktest.run(networks: ["all": triangle], horizons: [180, 365])
        let lastDay = triangle.lastDay
        #expect(!outcome.points.isEmpty)
        for point in outcome.points {
            let ratio = Double(point.horizon) / Double(lastDay)
            // t = round(k l): the same ratio, to rounding.
            #expect(abs(Double(point.targetDay) - ratio * Double(point.fromDay)) <= 0.5, "\(point)")
            #expect(point.fromDay >= LTVBacktest.minimumFromDay)
            // The window's youngest cohort is mature for the target.
            #expect(point.originDay + point.fromDay + point.targetDay <= lastDay)
        }
        // 90 days (L = 89) to D365: the longest pair is 17 -> 70 days, from day 0.
        #expect(outcome.points.contains { $0.horizon == 365 && $0.originDay == 0 && $0.fromDay == 17 && $0.targetDay == 70 })
        // Each (method, horizon, window) once.
        let keys = outcome.points.map { "\($0.method) \($0.horizon) \($0.originDay)" }
        #expect(Set(keys).count == keys.count)
        // The window's observed value is its cohorts' own LTV on the target, by hand.
        let window = triangle.window(oldestAge: triangle.oldestAge, firstInstallDay: 0, days: 18)
        #expect(window.cohorts.count == 18 && window.history.lastDay == 17)
        let byHand = window.cohorts.reduce(0) { $0 + $1.cumulativeRevenue(through: 70) } / window.cohorts.reduce(0) { $0 + $1.installs }
        #expect(window.observed(day: 70) == byHand)
        #expect(window.observed(day: 80) == nil)
    }

    @Test("holding out days counts a cohort from its install, not from its rows capped at max_day")
    func holdingOutCappedCohorts() {
        // Rows capped at day 5 of a cohort 10 days old, beside a cohort 4 days old.
        let triangle = CohortTriangle(cohorts: [
            .init(installs: 10, revenueByDay: [1, 1, 1, 1, 1, 1], age: 10),
            .init(installs: 10, revenueByDay: [2, 2, 2, 2, 2]),
        ])
        #expect(triangle.oldestAge == 10 && triangle.lastDay == 5)
        // Three days earlier the old cohort was 7 days old: still past its capped rows.
        let three = triangle.holdingOut(days: 3)
        #expect(three.cohorts.map(\.revenueByDay.count) == [6, 2])
        #expect(three.cohorts.map(\.age) == [7, 1])
        // Six days earlier it was 4 days old, and the young cohort not installed yet.
        let six = triangle.holdingOut(days: 6)
        #expect(six.cohorts.map(\.revenueByDay.count) == [5])
    }
}
