import Foundation
import FunnelCompute
import FunnelBench
import FunnelCore
import PostgresClient
import Testing

@Suite("LTV projection chosen by back-test, kept between daily runs")
struct LTVProjectionComputeTests {
    /// Synthetic data (set-based SQL, as `bench compute` writes it): 4,000 users over 60 days, then
    /// one more day in a new loaded file. A full compute back-tests every method; the incremental
    /// run after it back-tests the power law and the development factors again and keeps the
    /// per-user model's points (made a day earlier); a week later they are made again.
    @Test("every method back-tested on a full compute; the per-user points kept by a daily run, remade after a week")
    func perUserPointsKeptThenRefreshed() throws {
        let f = try ComputeFixture(app: "bench")
        let history = try SyntheticData.registerFile(f.connection, name: "bench/history.csv")
        _ = try SyntheticData.insert(into: f.connection, app: "bench", users: 4_000, firstDay: "2024-01-01", days: 60,
                                     seed: 1, fileID: history)
        _ = try f.compute(full: true)
        func ages() throws -> [String: Int] {
            var result: [String: Int] = [:]
            for row in try f.connection.query("""
                select b.method, max(cs.data_through_date - b.data_through)::int
                from fct_ltv_backtest b join compute_state cs using (app_id) group by b.method
                """) {
                result[try row.decode(String.self, at: 0)] = try row.decode(Int.self, at: 1)
            }
            return result
        }
        #expect(try ages() == ["power law": 0, "development factors": 0, "linear tail": 0, "per-user BG/NBD": 0, "ensemble": 0])
        let perUser = "select string_agg(projected::text, ',' order by network, horizon, target_day) from fct_ltv_backtest where method = 'per-user BG/NBD'"
        let before = try f.string(perUser)
        // Per horizon, the chosen method is the one with the smallest mean |ln(projected / observed)|
        // per unit of ln(target / from) over the app's points at that horizon and the shorter ones.
        let horizons = try f.connection.query("select distinct horizon from fct_ltv_backtest where network = 'all' order by 1")
            .map { try $0.decode(Int.self, at: 0) }
        #expect(!horizons.isEmpty)
        for horizon in horizons {
            let scores = try f.connection.query("""
                select method, avg(abs(ln(projected / observed)) / ln(target_day::float8 / from_day))::float8,
                       bool_and(chosen) filter (where horizon = $1), count(*)::int
                from fct_ltv_backtest where network = 'all' and horizon <= $1
                group by method having count(*) filter (where horizon = $1) > 0
                """, [horizon]).map { (try $0.decode(String.self, at: 0), try $0.decode(Double.self, at: 1),
                                       try $0.decode(Bool.self, at: 2), try $0.decode(Int.self, at: 3)) }
            let most = scores.map(\.3).max() ?? 0
            let best = try #require(scores.filter { 2 * $0.3 >= most }.min { $0.1 < $1.1 })
            // The ensemble is chosen unless a method beats it by more than a standard error.
            let ensemble = scores.first { $0.0 == "ensemble" }
            #expect(best.2 || ensemble?.2 == true, "D\(horizon): the best-scoring method \(best.0) or the ensemble is marked chosen")
            #expect(scores.filter(\.2).count == 1)
        }
        #expect(try f.int("select count(*) from fct_ltv_models where method is null") == 0)

        let day = try SyntheticData.registerFile(f.connection, name: "bench/2024-03-01.csv")
        _ = try SyntheticData.insert(into: f.connection, app: "bench", users: 60, firstDay: "2024-03-01", days: 1, seed: 2,
                                     fileID: day)
        _ = try f.compute()
        #expect(try ages() == ["power law": 0, "development factors": 0, "linear tail": 0, "per-user BG/NBD": 1, "ensemble": 0])
        #expect(try f.string(perUser) == before, "the per-user points are kept as they were made")

        try f.connection.execute("update fct_ltv_backtest set data_through = data_through - 6 where method = 'per-user BG/NBD'")
        let next = try SyntheticData.registerFile(f.connection, name: "bench/2024-03-02.csv")
        _ = try SyntheticData.insert(into: f.connection, app: "bench", users: 60, firstDay: "2024-03-02", days: 1, seed: 3,
                                     fileID: next)
        _ = try f.compute()
        #expect(try ages() == ["power law": 0, "development factors": 0, "linear tail": 0, "per-user BG/NBD": 0, "ensemble": 0], "remade after a week")
    }

    /// The same synthetic history: every buyer gets a row in fct_user_value with their purchase
    /// days and revenue as the facts and raw purchases have them, and values that follow the model.
    @Test("each buyer's value: purchase days and revenue as stored, P(alive) falling with silence, revenue = purchases x spend")
    func userValues() throws {
        let f = try ComputeFixture(app: "bench")
        let history = try SyntheticData.registerFile(f.connection, name: "bench/history.csv")
        _ = try SyntheticData.insert(into: f.connection, app: "bench", users: 4_000, firstDay: "2024-01-01", days: 60,
                                     seed: 1, fileID: history)
        _ = try f.compute(full: true)
        // The projections count each cohort to the day before its last data day.
        let buyers = try #require(try f.int("""
            select count(*) from int_user_facts f join compute_state cs using (app_id)
            where exists (select from unnest(f.purchase_days) d where d <= cs.data_through_date - f.cohort_date - 1)
            """))
        #expect(buyers > 100)
        #expect(try f.int("select count(*) from fct_user_value") == buyers)
        #expect(try f.int("""
            select count(*) from fct_user_value v join int_user_facts f using (app_id, user_id)
            where v.purchase_days <> (select count(*) from unnest(f.purchase_days) d where d <= v.age_days - 1)
               or v.last_purchase_day <> (select max(d) from unnest(f.purchase_days) d where d <= v.age_days - 1)
               or v.network <> f.network or v.cohort_date <> f.cohort_date
            """) == 0, "days as the facts have them")
        let revenue = try f.connection.query("""
            select sum(v.revenue)::float8, (select sum(r.revenue_usd)::float8 from int_cohort_day_rollup r
                                             join compute_state cs using (app_id)
                                             where r.day_n <= cs.data_through_date - r.cohort_date - 1)
            from fct_user_value v
            """)[0]
        #expect(abs(try revenue.decode(Double.self, at: 0) - (try revenue.decode(Double.self, at: 1))) < 0.01,
                "the buyers' revenue is the cohorts' revenue on the days counted")
        #expect(try f.int("""
            select count(*) from fct_user_value
            where abs(expected_revenue - expected_purchases * expected_spend) > 1e-9 * greatest(1, expected_revenue)
               or p_alive <= 0 or p_alive > 1 or expected_purchases < 0 or expected_spend <= 0
               or (age_days > horizon and expected_purchases <> 0)
            """) == 0)
        // Among buyers alike in days bought and age, the one silent longer is less likely alive.
        #expect(try f.int("""
            select count(*) from fct_user_value a join fct_user_value b
              on a.app_id = b.app_id and a.purchase_days = b.purchase_days and a.age_days = b.age_days
             and a.last_purchase_day < b.last_purchase_day and a.purchase_days > 1
            where a.p_alive > b.p_alive + 1e-12
            """) == 0)
        #expect(try #require(try f.int("select count(*) from fct_user_value where p_alive < 1")) > 0)
    }
}
