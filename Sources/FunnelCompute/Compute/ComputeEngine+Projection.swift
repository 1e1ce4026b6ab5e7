import Foundation
import FunnelCore
import PostgresClient

extension ComputeEngine {
    /// Projects every app's LTV curves with the method its back-test chose (`LTVBacktest`): the
    /// back-test's points go to `fct_ltv_backtest`, each network's models to `fct_ltv_models`, the
    /// projection with its interval at the configured horizons past the observed days to `fct_ltv`
    /// (projected rows), and the projection for every day up to the projection horizon to
    /// `fct_ltv_projection`. Without enough history to back-test, the power law projects as before
    /// with its own interval. Projections are stored as numeric rounded to 6 decimals (a millionth
    /// of a USD, as amounts are stored).
    func projectLTV(_ connection: PostgresConnection) throws {
        try connection.execute("""
            delete from fct_ltv_models; delete from fct_ltv where projected; delete from fct_ltv_backtest;
            delete from fct_ltv_projection
            """)
        let triangles = try LTVTriangles.load(connection)
        let horizons = configuration.ltvHorizons.sorted()
        let projectionHorizon = horizons.last ?? 365
        for app in triangles.byApp.keys.sorted() {
            let networks = triangles.byApp[app]!
            // The app's per-user fit on the whole history warm-starts the back-test's and the
            // networks' fits.
            let pooled = networks["all"].map(PurchaseModelProjection.histories)
            let allFit = pooled.flatMap { PurchaseModelProjection.fitHistories($0) }
            let outcome = LTVBacktest.run(networks: networks, horizons: horizons, start: allFit?.model)
            try storeBacktest(connection, app: app, outcome: outcome)
            for network in networks.keys.sorted(by: { ($0 == "all" ? 0 : 1, $0) < ($1 == "all" ? 0 : 1, $1) }) {
                let triangle = networks[network]!
                let projection = NetworkProjection(triangle: triangle, outcome: outcome, pooled: allFit,
                                                   ownFit: network != "all")
                try store(connection, app: app, network: network, projection, outcome: outcome, horizons: horizons,
                          projectionHorizon: projectionHorizon)
            }
        }
    }

    private func storeBacktest(_ connection: PostgresConnection, app: String, outcome: LTVBacktest.Outcome) throws {
        guard !outcome.points.isEmpty else { return }
        let points = outcome.points
        try connection.query("""
            insert into fct_ltv_backtest (app_id, network, method, horizon, from_day, target_day, projected, observed,
                                          error, chosen)
            select $1, network, method, horizon, from_day, target_day, round(projected::numeric, 6),
                   round(observed::numeric, 6), projected / observed - 1, method = $9
            from unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::float8[], $8::float8[])
                 as p (network, method, horizon, from_day, target_day, projected, observed)
            """, [app, points.map(\.network), points.map(\.method.rawValue), points.map(\.horizon), points.map(\.fromDay),
                  points.map(\.targetDay), points.map(\.projected), points.map(\.observed), outcome.chosen?.rawValue ?? ""])
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

    init(triangle: CohortTriangle, outcome: LTVBacktest.Outcome, pooled: BGNBD.Fit?, ownFit: Bool) {
        let curve = triangle.matureCurve()
        let installs = triangle.installsByDay()
        powerLaw = PowerLawFit.fit(days: Array(curve.indices), values: curve, weights: installs)
        projectedFrom = triangle.lastDay(backedBy: DevelopmentFactorProjection.minimumSupport)
        let supported = triangle.lastDay(backedBy: LTVBacktest.targetSupport)
        floor = supported >= 0 ? curve[0...supported].max() ?? 0 : 0
        if outcome.chosen != nil {
            var found: LTVProjection?
            for method in outcome.ranking {
                if let fitted = LTVProjection.fit(method, triangle, pooled: pooled, ownFit: ownFit) {
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
