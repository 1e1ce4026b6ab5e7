import Foundation
import FunnelCore
import PostgresClient

extension ComputeEngine {
    /// Projects every app's LTV curves with the method its back-test chose (`LTVBacktest`): the
    /// back-test's points go to `fct_ltv_backtest`, each network's models to `fct_ltv_models`, the
    /// projection with its interval at the configured horizons past the observed days to `fct_ltv`
    /// (projected rows), and the projection for every day up to the projection horizon to
    /// `fct_ltv_projection`. Without enough history to back-test, the power law projects as before
    /// with its own interval. The per-user model is back-tested afresh weekly and on a full compute
    /// (`purchaseModelRefreshDays`). Projections are stored as numeric rounded to 6 decimals (a millionth
    /// of a USD, as amounts are stored).
    func projectLTV(_ connection: PostgresConnection, full: Bool) throws {
        let kept = try keptPurchaseModelPoints(connection)
        try connection.execute("""
            delete from fct_ltv_models; delete from fct_ltv where projected; delete from fct_ltv_backtest;
            delete from fct_ltv_projection
            """)
        let apps = try connection.query("select app_id from compute_state order by app_id").map { try $0.decode(String.self, at: 0) }
        let refresh = Set(apps.filter { app in full || (kept[app].map { $0.age >= Self.purchaseModelRefreshDays } ?? true) })
        var triangles = try LTVTriangles.load(connection, withBuyers: !refresh.isEmpty)
        var withBuyers = !refresh.isEmpty
        let horizons = configuration.ltvHorizons.sorted()
        let projectionHorizon = horizons.last ?? 365
        for app in triangles.byApp.keys.sorted() {
            var networks = triangles.byApp[app]!
            var allFit: BGNBD.Fit?
            var spend: GammaGamma?
            let outcome: LTVBacktest.Outcome
            if refresh.contains(app) {
                // The app's per-user fit on the whole history warm-starts the back-test's refits
                // and the networks' fits.
                allFit = networks["all"].map(PurchaseModelProjection.histories).flatMap { PurchaseModelProjection.fitHistories($0) }
                spend = networks["all"].flatMap { PurchaseModelProjection.fitSpend($0) }
                outcome = LTVBacktest.run(networks: networks, horizons: horizons, start: allFit?.model)
                try storeBacktest(connection, app: app, points: outcome.points, chosen: outcome.chosen, age: 0)
            } else {
                let fresh = LTVBacktest.run(networks: networks, horizons: horizons, methods: [.powerLaw, .developmentFactors, .linearTail])
                let carried = kept[app]!
                outcome = LTVBacktest.outcome(points: fresh.points + carried.points)
                try storeBacktest(connection, app: app, points: fresh.points, chosen: outcome.chosen, age: 0)
                try storeBacktest(connection, app: app, points: carried.points, chosen: outcome.chosen, age: carried.age)
                if outcome.ranking.first == .purchaseModel {
                    if !withBuyers {
                        triangles = try LTVTriangles.load(connection, withBuyers: true)
                        withBuyers = true
                    }
                    networks = triangles.byApp[app]!
                    allFit = networks["all"].map(PurchaseModelProjection.histories).flatMap { PurchaseModelProjection.fitHistories($0) }
                    spend = networks["all"].flatMap { PurchaseModelProjection.fitSpend($0) }
                }
            }
            var spendByNetwork: [String: GammaGamma] = [:]
            for network in networks.keys.sorted(by: { ($0 == "all" ? 0 : 1, $0) < ($1 == "all" ? 0 : 1, $1) }) {
                let triangle = networks[network]!
                // A network with as many buyers as its own BG/NBD fit needs gets its own spend model too.
                let networkSpend = network == "all" ? spend
                    : PurchaseModelProjection.fitSpend(triangle, minimumBuyers: LTVBacktest.minimumNetworkBuyers) ?? spend
                spendByNetwork[network] = networkSpend
                let projection = NetworkProjection(triangle: triangle, outcome: outcome, pooled: allFit,
                                                   ownFit: network != "all", spend: networkSpend)
                try store(connection, app: app, network: network, projection, outcome: outcome, horizons: horizons,
                          projectionHorizon: projectionHorizon)
            }
            if refresh.contains(app) {
                try storeUserValues(connection, app: app, buyers: triangles.buyersByApp[app] ?? [], fit: allFit?.model,
                                    spend: spendByNetwork, networks: networks, horizon: projectionHorizon)
            }
        }
    }

    /// Each buyer's expected value (`fct_user_value`), made with the per-user model: P(alive) and
    /// the expected purchase days from the user's age to `horizon` by the app's BG/NBD fit, each
    /// valued by the network's Gamma-Gamma model given the user's own days and mean (the network's
    /// mean revenue per purchase day without one). Without a fit the app's rows are only removed.
    private func storeUserValues(_ connection: PostgresConnection, app: String, buyers: [LTVTriangles.Buyer], fit: BGNBD?,
                                 spend: [String: GammaGamma], networks: [String: CohortTriangle], horizon: Int) throws {
        try connection.query("delete from fct_user_value where app_id = $1", [app])
        guard let fit else { return }
        var users: [String] = [], userNetworks: [String] = [], cohorts: [String] = []
        var days: [Int] = [], lastDays: [Int] = [], ages: [Int] = []
        var revenue: [Double] = [], alive: [Double] = [], purchases: [Double] = [], perDay: [Double] = []
        for buyer in buyers where buyer.lastDay >= 0 {
            let summary = PurchaseModelProjection.BuyerDays(days: buyer.days, revenue: buyer.revenue, through: buyer.lastDay)
            guard summary.x > 0 else { continue }
            let (x, last, total) = (summary.x, summary.lastDay, summary.revenue)
            let age = Double(buyer.lastDay + 1)
            let expected = fit.expectedPurchases(t: max(0, Double(horizon + 1) - age), x: x, tx: Double(last + 1), T: age)
            let value = spend[buyer.network].map { $0.conditionalExpectedSpend(x: x, meanSpend: total / Double(x)) }
                ?? networks[buyer.network]?.revenuePerPurchase ?? total / Double(x)
            guard expected.isFinite, value.isFinite else { continue }
            users.append(buyer.userID)
            userNetworks.append(buyer.network)
            cohorts.append(buyer.cohortDate)
            days.append(x)
            lastDays.append(last)
            ages.append(buyer.lastDay + 1)
            revenue.append(total)
            alive.append(fit.probabilityAlive(x: x, tx: Double(last + 1), T: age))
            purchases.append(expected)
            perDay.append(value)
        }
        try connection.query("""
            insert into fct_user_value (app_id, user_id, network, cohort_date, purchase_days, last_purchase_day, age_days,
                                        revenue, p_alive, horizon, expected_purchases, expected_spend, expected_revenue,
                                        data_through)
            select $1, u.user_id, u.network, u.cohort_date::date, u.x, u.last_day, u.age, round(u.revenue::numeric, 6),
                   u.alive, $12, u.purchases, u.per_day, u.purchases * u.per_day,
                   (select data_through_date from compute_state where app_id = $1)
            from unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[], $8::float8[], $9::float8[],
                        $10::float8[], $11::float8[]) as u (user_id, network, cohort_date, x, last_day, age, revenue, alive,
                                                            purchases, per_day)
            """, [app, users, userNetworks, cohorts, days, lastDays, ages, revenue, alive, purchases, perDay, horizon])
    }

    /// Days between fresh back-tests of the per-user model. Its refits cost a daily run more than
    /// all the rest of the projection (3.8 s of a 300k-user run when made every day), so between
    /// them the choice reuses its back-test points from the run that made them (`data_through`
    /// in `fct_ltv_backtest`), while the power law and the development factors are back-tested on
    /// every run; a full compute always makes them again.
    static let purchaseModelRefreshDays = 7

    /// The per-user model's back-test points of the previous run, per app, with how many days
    /// older than the app's data they are.
    private func keptPurchaseModelPoints(_ connection: PostgresConnection) throws
        -> [String: (age: Int, points: [LTVBacktest.Point])] {
        var kept: [String: (age: Int, points: [LTVBacktest.Point])] = [:]
        for row in try connection.query("""
            select b.app_id, b.network, b.horizon, b.from_day, b.target_day, b.projected::float8, b.observed::float8,
                   cs.data_through_date - b.data_through
            from fct_ltv_backtest b join compute_state cs on cs.app_id = b.app_id
            where b.method = $1
            order by b.app_id, b.network, b.horizon, b.target_day
            """, [LTVMethod.purchaseModel.rawValue]) {
            let app = try row.decode(String.self, at: 0)
            let point = LTVBacktest.Point(network: try row.decode(String.self, at: 1), method: .purchaseModel,
                                          horizon: try row.decode(Int.self, at: 2), fromDay: try row.decode(Int.self, at: 3),
                                          targetDay: try row.decode(Int.self, at: 4),
                                          projected: try row.decode(Double.self, at: 5),
                                          observed: try row.decode(Double.self, at: 6))
            let age = try row.decode(Int.self, at: 7)
            kept[app, default: (age, [])].points.append(point)
            kept[app]!.age = max(kept[app]!.age, age)
        }
        return kept
    }

    private func storeBacktest(_ connection: PostgresConnection, app: String, points: [LTVBacktest.Point],
                               chosen: LTVMethod?, age: Int) throws {
        guard !points.isEmpty else { return }
        try connection.query("""
            insert into fct_ltv_backtest (app_id, network, method, horizon, from_day, target_day, projected, observed,
                                          error, chosen, data_through)
            select $1, network, method, horizon, from_day, target_day, round(projected::numeric, 6),
                   round(observed::numeric, 6), projected / observed - 1, method = $9,
                   (select data_through_date from compute_state where app_id = $1) - $10::integer
            from unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::float8[], $8::float8[])
                 as p (network, method, horizon, from_day, target_day, projected, observed)
            """, [app, points.map(\.network), points.map(\.method.rawValue), points.map(\.horizon), points.map(\.fromDay),
                  points.map(\.targetDay), points.map(\.projected), points.map(\.observed), chosen?.rawValue ?? "", age])
    }

    private func store(_ connection: PostgresConnection, app: String, network: String, _ chosen: NetworkProjection,
                       outcome: LTVBacktest.Outcome, horizons: [Int], projectionHorizon: Int) throws {
        let powerLaw = chosen.powerLaw
        let myPoints = outcome.points.filter { $0.network == network && $0.method == chosen.projection?.method }
        let error = myPoints.isEmpty ? nil : myPoints.reduce(0) { $0 + abs($1.relativeError) } / Double(myPoints.count)
        try connection.query("""
            insert into fct_ltv_models (app_id, network, model, a, b, points, fit_from_day, fit_to_day,
                                        residual_sd, r_squared, note, method, projection, backtest_error,
                                        backtest_points, interval_coverage, coverage_points)
            values ($1, $2, 'power law', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
            """, [app, network, powerLaw?.a, powerLaw?.b, powerLaw?.points ?? 0, powerLaw?.fromDay, powerLaw?.toDay,
                  powerLaw?.residualSD, powerLaw?.rSquared, chosen.note, chosen.projection?.method.rawValue,
                  chosen.projection?.modelDescription, error, myPoints.count,
                  chosen.usesBacktestInterval ? outcome.coverage : nil,
                  chosen.usesBacktestInterval ? outcome.coveragePoints : nil])
        guard chosen.projection != nil else { return }
        for horizon in horizons where horizon > chosen.projectedFrom {
            let point = chosen.value(day: horizon, outcome: outcome)
            try connection.query("""
                insert into fct_ltv (app_id, network, day, projected, ltv, ltv_low, ltv_high)
                values ($1, $2, $3, true, round($4::numeric, 6), round($5::numeric, 6), round($6::numeric, 6))
                """, [app, network, horizon, point.ltv, point.low, point.high])
        }
        guard projectionHorizon > chosen.projectedFrom else { return }
        let days = Array((chosen.projectedFrom + 1)...projectionHorizon)
        let values = chosen.curve(days: days)
        try connection.query("""
            insert into fct_ltv_projection (app_id, network, day, ltv)
            select $1, $2, day, round(ltv::numeric, 6) from unnest($3::int[], $4::float8[]) as p (day, ltv)
            """, [app, network, days, values])
    }
}

/// The projection of one network: the app's chosen method (or the next best that fits this
/// network), its interval from the back-test, and the power law fitted beside it.
struct NetworkProjection {
    let projection: LTVProjection?
    let powerLaw: PowerLawFit?
    /// The last observed day the projection starts after (backed by 10% of the installs).
    let projectedFrom: Int
    /// The floor of projections: the highest observed LTV among the days 30% of the installs back.
    let floor: Double
    let usesBacktestInterval: Bool
    let note: String

    init(triangle: CohortTriangle, outcome: LTVBacktest.Outcome, pooled: BGNBD.Fit?, ownFit: Bool, spend: GammaGamma?) {
        let curve = triangle.matureCurve()
        let installs = triangle.installsByDay()
        powerLaw = PowerLawFit.fit(days: Array(curve.indices), values: curve, weights: installs)
        projectedFrom = triangle.lastDay(backedBy: DevelopmentFactorProjection.minimumSupport)
        let supported = triangle.lastDay(backedBy: LTVBacktest.targetSupport)
        floor = supported >= 0 ? curve[0...supported].max() ?? 0 : 0
        if outcome.chosen != nil {
            var found: LTVProjection?
            for method in outcome.ranking {
                if let fitted = LTVProjection.fit(method, triangle, pooled: pooled, ownFit: ownFit, spend: spend) {
                    found = fitted
                    break
                }
            }
            projection = found
            usesBacktestInterval = found != nil
            if let found {
                let won = found.method == outcome.chosen
                let score = outcome.scores[found.method].map { String(format: "%.1f%%", 100 * $0) } ?? "n/a"
                note = (won ? "\(found.method.rawValue) won the back-test" : "\(outcome.chosen!.rawValue) won the back-test "
                        + "but cannot fit this network: \(found.method.rawValue) instead")
                    + " (mean absolute log error \(score)); interval nominal 80% from the back-test errors"
            } else {
                note = "no method could fit this network's observed days; no projection"
            }
        } else if let powerLaw {
            projection = .powerLaw(powerLaw)
            usesBacktestInterval = false
            note = "history too short to back-test: power law, interval nominal 90% from the fit, widened with the "
                + "extrapolation distance"
        } else {
            projection = nil
            usesBacktestInterval = false
            note = "not enough observed days with revenue to fit (needs \(PowerLawFit.minimumPoints)); no projection"
        }
    }

    /// The projection on a day with its interval.
    func value(day: Int, outcome: LTVBacktest.Outcome) -> (ltv: Double, low: Double, high: Double) {
        guard let projection else { return (0, 0, 0) }
        let center = max(projection.predict(day: day), floor)
        if !usesBacktestInterval, case .powerLaw(let fit) = projection {
            let interval = fit.interval(day: day)
            return (center, interval.low, interval.high)
        }
        let width = outcome.halfWidth(horizon: day) ?? 0
        return (center, max(center * exp(-width), floor), center * exp(width))
    }

    /// The projection on each of `days` (ascending), never falling. The per-user model, whose days
    /// cost a pass over every history, is evaluated weekly and interpolated between.
    func curve(days: [Int]) -> [Double] {
        guard let projection, let first = days.first, let last = days.last else { return [] }
        let step = projection.method == .purchaseModel ? 7 : 1
        var knots = Array(stride(from: first, through: last, by: step))
        if knots.last != last { knots.append(last) }
        let knotValues = knots.map { projection.predict(day: $0) }
        var result: [Double] = []
        var knot = 0
        var running = floor
        for day in days {
            while knot + 1 < knots.count && knots[knot + 1] < day { knot += 1 }
            let value: Double
            if knots[knot] == day || knot + 1 >= knots.count {
                value = knotValues[knot]
            } else {
                let share = Double(day - knots[knot]) / Double(knots[knot + 1] - knots[knot])
                value = knotValues[knot] + share * (knotValues[knot + 1] - knotValues[knot])
            }
            running = max(running, value)
            result.append(running)
        }
        return result
    }
}
