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
                try storeBacktest(connection, app: app, points: outcome.points, outcome: outcome, age: 0)
            } else {
                let fresh = LTVBacktest.run(networks: networks, horizons: horizons, methods: [.powerLaw, .developmentFactors, .linearTail])
                let carried = kept[app]!
                outcome = LTVBacktest.outcome(points: fresh.points + carried.points)
                try storeBacktest(connection, app: app, points: fresh.points, outcome: outcome, age: 0)
                try storeBacktest(connection, app: app, points: carried.points, outcome: outcome, age: carried.age)
                try storeBacktest(connection, app: app, points: outcome.points.filter { $0.method == .ensemble }, outcome: outcome,
                                  age: 0)
                if horizons.contains(where: { horizon in
                    let first = outcome.ranking(horizon: horizon).first
                    return first == .purchaseModel || (first == .ensemble && outcome.scores[horizon].map {
                        LTVBacktest.ensembleWeights($0)[.purchaseModel] != nil } == true)
                }) {
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
                let projection = NetworkProjection(triangle: triangle, outcome: outcome, horizons: horizons, pooled: allFit,
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

    /// Each buyer's expected value (`fct_user_value`), made with the per-user model in the papers'
    /// convention (the first purchase day is the trial): P(alive) and the expected repeat purchase
    /// days after the user's last mature day through `horizon` by the app's BG/NBD fit, each valued
    /// by the network's Gamma-Gamma model given the user's own repeat days and mean (the network's
    /// mean revenue per repeat day without one). Every buyer is listed: the expectations are finite
    /// and non-negative. Without a fit the app's rows are only removed.
    private func storeUserValues(_ connection: PostgresConnection, app: String, buyers: [LTVTriangles.Buyer], fit: BGNBD?,
                                 spend: [String: GammaGamma], networks: [String: CohortTriangle], horizon: Int) throws {
        try connection.query("delete from fct_user_value where app_id = $1", [app])
        guard let fit else { return }
        let repeatValue = networks.compactMapValues { PurchaseModelProjection.meanRepeatRevenue($0) }
        var users: [String] = [], userNetworks: [String] = [], cohorts: [String] = []
        var days: [Int] = [], lastDays: [Int] = [], ages: [Int] = []
        var revenue: [Double] = [], alive: [Double] = [], purchases: [Double] = [], perDay: [Double] = []
        for buyer in buyers where buyer.lastDay >= 0 {
            let summary = PurchaseModelProjection.BuyerDays(days: buyer.days, revenue: buyer.revenue, through: buyer.lastDay)
            guard let history = summary.history(lastMatureDay: buyer.lastDay) else { continue }
            let x = history.x
            let repeatRevenue = summary.revenue - summary.firstDayRevenue
            let expected = fit.expectedPurchases(t: Double(max(0, horizon - buyer.lastDay)), x: x, tx: history.tx, T: history.T)
            let fallback = repeatValue[buyer.network] ?? summary.revenue / Double(summary.days)
            let value = spend[buyer.network].map { $0.conditionalExpectedSpend(x: x, meanSpend: x > 0 ? repeatRevenue / Double(x) : 0) }
                ?? fallback
            users.append(buyer.userID)
            userNetworks.append(buyer.network)
            cohorts.append(buyer.cohortDate)
            days.append(summary.days)
            lastDays.append(summary.lastDay)
            ages.append(buyer.lastDay + 1)
            revenue.append(summary.revenue)
            alive.append(fit.probabilityAlive(x: x, tx: history.tx, T: history.T))
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
                   cs.data_through_date - b.data_through, b.origin_day
            from fct_ltv_backtest b join compute_state cs on cs.app_id = b.app_id
            where b.method = $1
            order by b.app_id, b.network, b.horizon, b.origin_day, b.target_day
            """, [LTVMethod.purchaseModel.rawValue]) {
            let app = try row.decode(String.self, at: 0)
            let point = LTVBacktest.Point(network: try row.decode(String.self, at: 1), method: .purchaseModel,
                                          horizon: try row.decode(Int.self, at: 2), fromDay: try row.decode(Int.self, at: 3),
                                          targetDay: try row.decode(Int.self, at: 4), originDay: try row.decode(Int.self, at: 8),
                                          projected: try row.decode(Double.self, at: 5),
                                          observed: try row.decode(Double.self, at: 6))
            let age = try row.decode(Int.self, at: 7)
            kept[app, default: (age, [])].points.append(point)
            kept[app]!.age = max(kept[app]!.age, age)
        }
        return kept
    }

    private func storeBacktest(_ connection: PostgresConnection, app: String, points: [LTVBacktest.Point],
                               outcome: LTVBacktest.Outcome, age: Int) throws {
        guard !points.isEmpty else { return }
        try connection.query("""
            insert into fct_ltv_backtest (app_id, network, method, horizon, from_day, target_day, origin_day, projected,
                                          observed, error, chosen, data_through)
            select $1, network, method, horizon, from_day, target_day, origin_day, round(projected::numeric, 6),
                   round(observed::numeric, 6), projected / observed - 1, method = chosen,
                   (select data_through_date from compute_state where app_id = $1) - $10::integer
            from unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::float8[], $8::float8[], $9::text[],
                        $11::int[])
                 as p (network, method, horizon, from_day, target_day, projected, observed, chosen, origin_day)
            """, [app, points.map(\.network), points.map(\.method.rawValue), points.map(\.horizon), points.map(\.fromDay),
                  points.map(\.targetDay), points.map(\.projected), points.map(\.observed),
                  points.map { outcome.chosenByHorizon[$0.horizon]?.rawValue ?? "" }, age, points.map(\.originDay)])
    }

    private func store(_ connection: PostgresConnection, app: String, network: String, _ chosen: NetworkProjection,
                       outcome: LTVBacktest.Outcome, horizons: [Int], projectionHorizon: Int) throws {
        let powerLaw = chosen.powerLaw
        let myPoints = outcome.points.filter { $0.network == network && $0.method == chosen.projection?.method }
        let coverage = chosen.usesBacktestInterval ? chosen.projection.flatMap { outcome.coverage(method: $0.method) } : nil
        let error = myPoints.isEmpty ? nil : myPoints.reduce(0) { $0 + abs($1.relativeError) } / Double(myPoints.count)
        try connection.query("""
            insert into fct_ltv_models (app_id, network, model, a, b, points, fit_from_day, fit_to_day,
                                        residual_sd, r_squared, note, method, projection, backtest_error,
                                        backtest_points, interval_coverage, coverage_points)
            values ($1, $2, 'power law', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
            """, [app, network, powerLaw?.a, powerLaw?.b, powerLaw?.points ?? 0, powerLaw?.fromDay, powerLaw?.toDay,
                  powerLaw?.residualSD, powerLaw?.rSquared, chosen.note, chosen.projection?.method.rawValue,
                  chosen.projection?.modelDescription, error, myPoints.count,
                  coverage?.share, coverage?.points])
        guard chosen.projection != nil else { return }
        for horizon in horizons where horizon > chosen.projectedFrom {
            let point = chosen.value(day: horizon)
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

/// The projection of one network: per horizon, the method the app's back-test chose for it (or the
/// next best that fits this network), its interval from the back-test errors of the method used,
/// and the power law fitted beside it.
struct NetworkProjection {
    /// The projection of the largest horizon (the daily curve's, and the one reports name).
    let projection: LTVProjection?
    /// The projection used at each configured horizon.
    let byHorizon: [Int: LTVProjection]
    /// The log half-width of the interval at each configured horizon (never narrower at a later one).
    let halfWidths: [Int: Double]
    let powerLaw: PowerLawFit?
    /// The last observed day the projection starts after (backed by 10% of the installs).
    let projectedFrom: Int
    /// The floor of projections: the highest observed LTV among the days 30% of the installs back.
    let floor: Double
    let usesBacktestInterval: Bool
    /// The horizons the history is too short to back-test: the power law with its own interval.
    let ownPowerLawInterval: Set<Int>
    let note: String

    init(triangle: CohortTriangle, outcome: LTVBacktest.Outcome, horizons: [Int], pooled: BGNBD.Fit?, ownFit: Bool,
         spend: GammaGamma?) {
        let curve = triangle.matureCurve()
        let installs = triangle.installsByDay()
        powerLaw = PowerLawFit.fit(days: Array(curve.indices), values: curve, weights: installs)
        projectedFrom = triangle.lastDay(backedBy: DevelopmentFactorProjection.minimumSupport)
        let supported = triangle.lastDay(backedBy: LTVBacktest.targetSupport)
        floor = supported >= 0 ? curve[0...supported].max() ?? 0 : 0
        guard outcome.chosen != nil else {
            byHorizon = [:]
            halfWidths = [:]
            ownPowerLawInterval = []
            usesBacktestInterval = false
            if let powerLaw {
                projection = .powerLaw(powerLaw)
                note = "history too short to back-test: power law, interval nominal 90% from the fit, widened with the "
                    + "extrapolation distance"
            } else {
                projection = nil
                note = "not enough observed days with revenue to fit (needs \(PowerLawFit.minimumPoints)); no projection"
            }
            return
        }
        var fitted: [LTVMethod: LTVProjection?] = [:]
        func fit(_ method: LTVMethod) -> LTVProjection? {
            if let known = fitted[method] { return known }
            guard method != .ensemble else { return nil }
            let made = LTVProjection.fit(method, triangle, pooled: pooled, ownFit: ownFit, spend: spend)
            fitted[method] = made
            return made
        }
        let widest = LTVMethod.allCases.compactMap { outcome.scale(method: $0) }.max { $0.c < $1.c }
        var chosenByHorizon: [Int: LTVProjection] = [:]
        var widths: [Int: Double] = [:]
        var parts: [String] = []
        var running = 0.0
        var ownInterval: Set<Int> = []
        for horizon in horizons.sorted() {
            if outcome.scores[horizon] == nil, let powerLaw {
                // Too far for the history to back-test at this ratio: the power law with its own interval.
                chosenByHorizon[horizon] = .powerLaw(powerLaw)
                ownInterval.insert(horizon)
                running = max(running, log(powerLaw.interval(day: horizon).high / max(powerLaw.predict(day: horizon), 1e-12)))
                parts.append("D\(horizon) power law (too far to back-test from this history), interval nominal 90% from the fit")
                continue
            }
            let made: (LTVMethod) -> LTVProjection? = { method in
                method == .ensemble ? outcome.ensemble(horizon: horizon, lastDay: triangle.lastDay, fit: fit) : fit(method)
            }
            guard let used = outcome.ranking(horizon: horizon).lazy.compactMap(made).first else { continue }
            chosenByHorizon[horizon] = used
            let own = outcome.halfWidth(method: used.method, horizon: horizon, lastDay: triangle.lastDay)
            let width = own ?? widest.map { LTVBacktest.studentT90(degrees: $0.points) * $0.c
                * max(0, log(Double(horizon) / Double(max(triangle.lastDay, 1)))) } ?? 0
            running = max(running, width)
            widths[horizon] = running
            let winner = outcome.chosen(horizon: horizon)
            let score = outcome.scores[horizon]?[used.method].map { String(format: "%.1f%%", 100 * $0) } ?? "n/a"
            parts.append("D\(horizon) \(used.method.rawValue)"
                         + (winner == used.method ? "" : " (\(winner?.rawValue ?? "none") won the back-test but cannot fit)")
                         + " back-test error \(score)" + (own == nil ? ", interval from the widest method's errors" : ""))
        }
        byHorizon = chosenByHorizon
        halfWidths = widths
        ownPowerLawInterval = ownInterval
        projection = horizons.sorted().reversed().lazy.compactMap { chosenByHorizon[$0] }.first
        usesBacktestInterval = projection != nil
        note = projection == nil ? "no method could fit this network's observed days; no projection"
            : parts.joined(separator: "; ") + "; intervals nominal 80% from the back-test errors of the method used, "
                + "widened with the extrapolation ratio"
    }

    /// The projection on a day with its interval.
    func value(day: Int) -> (ltv: Double, low: Double, high: Double) {
        guard let used = byHorizon[day] ?? projection else { return (0, 0, 0) }
        let center = max(used.predict(day: day), floor)
        if !usesBacktestInterval || ownPowerLawInterval.contains(day), case .powerLaw(let fit) = used {
            let interval = fit.interval(day: day)
            return (center, interval.low, interval.high)
        }
        let width = halfWidths[day] ?? halfWidths.filter { $0.key <= day }.max { $0.key < $1.key }?.value ?? 0
        return (center, max(center * exp(-width), floor), center * exp(width))
    }

    /// The projection on each of `days` (ascending), never falling. The per-user model, whose days
    /// cost a pass over every history, is evaluated weekly and interpolated between.
    func curve(days: [Int]) -> [Double] {
        guard let projection, let first = days.first, let last = days.last else { return [] }
        let step = projection.usesPurchaseModel ? 7 : 1
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
