import FunnelCore
import PostgresClient

extension ComputeEngine {
    /// Fits the LTV model per (app, network) on the observed curve in `fct_ltv`, records it in
    /// `fct_ltv_models`, and adds projected rows (with their interval) for the configured
    /// horizons the observed curve has not reached. The fit is floating point; its projections are
    /// stored as numeric rounded to 6 decimals (a millionth of a USD, as amounts are stored), so
    /// the money columns hold decimals and the last bits of a double do not reach the reports.
    func projectLTV(_ connection: PostgresConnection) throws {
        try connection.execute("delete from fct_ltv_models; delete from fct_ltv where projected")
        let rows = try connection.query("""
            select app_id, network, day, ltv, installs from fct_ltv
            where not projected and ltv is not null
            order by app_id, network, day
            """)
        var curves: [String: (app: String, network: String, days: [Int], values: [Double], installs: [Double])] = [:]
        var order: [String] = []
        for row in rows {
            let app = try row.decode(String.self, at: 0)
            let network = try row.decode(String.self, at: 1)
            let key = app + "\u{1}" + network
            if curves[key] == nil {
                curves[key] = (app, network, [], [], [])
                order.append(key)
            }
            curves[key]!.days.append(try row.decode(Int.self, at: 2))
            curves[key]!.values.append(try row.decode(Double.self, at: 3))
            curves[key]!.installs.append(try row.decode(Double?.self, at: 4) ?? 0)
        }
        for key in order {
            let curve = curves[key]!
            guard let fit = PowerLawFit.fit(days: curve.days, values: curve.values, weights: curve.installs) else {
                try connection.query("""
                    insert into fct_ltv_models (app_id, network, model, points, note)
                    values ($1, $2, 'power law', $3, $4)
                    """, [curve.app, curve.network, curve.days.count,
                          "not enough observed days with revenue to fit (needs \(PowerLawFit.minimumPoints)); no projection"])
                continue
            }
            try connection.query("""
                insert into fct_ltv_models (app_id, network, model, a, b, points, fit_from_day, fit_to_day,
                                            residual_sd, r_squared, note)
                values ($1, $2, 'power law', $3, $4, $5, $6, $7, $8, $9, $10)
                """, [curve.app, curve.network, fit.a, fit.b, fit.points, fit.fromDay, fit.toDay, fit.residualSD,
                      fit.rSquared, fit.modelDescription + "; interval nominal 90%, widened with the extrapolation distance"])
            for horizon in configuration.ltvHorizons where horizon > fit.toDay {
                let interval = fit.interval(day: horizon)
                try connection.query("""
                    insert into fct_ltv (app_id, network, day, projected, ltv, ltv_low, ltv_high)
                    values ($1, $2, $3, true, round($4::numeric, 6), round($5::numeric, 6), round($6::numeric, 6))
                    """, [curve.app, curve.network, horizon, fit.predict(day: horizon), interval.low, interval.high])
            }
        }
    }
}
