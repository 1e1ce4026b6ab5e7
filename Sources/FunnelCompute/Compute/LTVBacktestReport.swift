import FunnelCore
public import PostgresClient

/// `funnel backtest ltv`: every projection method's LTV at a horizon, projected from the history as
/// it stood on a cutoff date, beside what was observed later, per app and network. Reads the
/// computed rollups (`LTVTriangles`); the cutoff holds out the calendar days after it.
public struct LTVBacktestReport: Sendable {
    /// One method's projection for one network.
    public struct Row: Sendable, Codable, Equatable {
        public let app: String
        public let network: String
        public let method: String
        public let cutoff: String
        /// The held-out history's last day (its oldest cohort's age on the cutoff date).
        public let historyDays: Int
        public let horizon: Int
        /// Nil when the method cannot fit the held-out history.
        public let projected: Double?
        /// The observed LTV on the horizon (the cohorts mature for it); nil when the history does
        /// not reach it yet.
        public let observed: Double?
        /// projected / observed − 1.
        public let error: Double?
        /// Whether the compute's back-test chose this method for the app.
        public let chosen: Bool
    }

    /// What went wrong, in words a user can act on.
    public struct Problem: Error, Sendable {
        public let message: String
    }

    public let rows: [Row]

    /// Projects `horizon` from the history up to `cutoff` (YYYY-MM-DD; nil: halfway through each
    /// app's computed history).
    public static func run(_ connection: PostgresConnection, cutoff: String?, horizon: Int) throws -> LTVBacktestReport {
        let states = try connection.query("""
            select app_id, data_through_date::text,
                   case when $1::text is null then null else data_through_date - $1::date end
            from compute_state order by app_id
            """, [cutoff])
        guard !states.isEmpty else {
            throw Problem(message: "nothing is computed yet: run 'funnel ingest' and 'funnel compute' first")
        }
        let triangles = try LTVTriangles.load(connection)
        // What was observed later: the curve as fct_ltv has it, the most recent day included.
        let observedTriangles = try LTVTriangles.load(connection, withBuyers: false, completeDaysOnly: false)
        var chosen: [String: String] = [:]
        for row in try connection.query("select distinct app_id, method from fct_ltv_backtest where chosen") {
            chosen[try row.decode(String.self, at: 0)] = try row.decode(String.self, at: 1)
        }
        var rows: [Row] = []
        for state in states {
            let app = try state.decode(String.self, at: 0)
            let through = try state.decode(String.self, at: 1)
            guard let networks = triangles.byApp[app], let all = observedTriangles.byApp[app]?["all"] else { continue }
            let lastDay = all.lastDay
            let holdout = try state.decode(Int?.self, at: 2) ?? (lastDay - lastDay / 2)
            guard holdout > 0, holdout <= lastDay else {
                throw Problem(message: "--cutoff \(cutoff ?? "") is outside \(app)'s computed history (its oldest cohort is "
                              + "\(lastDay) days old on \(through)): pick a date before \(through) on which some cohort "
                              + "had installed, or leave --cutoff out to hold out the second half")
            }
            let cutoffDate = try connection.query("select ($1::date - $2::integer)::text", [through, holdout])
                .scalar(String.self)
            // The projections' triangles end a day earlier than the observed ones.
            let held = networks.mapValues { $0.holdingOut(days: holdout - 1) }
            let pooled = held["all"].map(PurchaseModelProjection.histories)
                .flatMap { PurchaseModelProjection.fitHistories($0) }
            for network in networks.keys.sorted(by: { ($0 == "all" ? 0 : 1, $0) < ($1 == "all" ? 0 : 1, $1) }) {
                guard let full = observedTriangles.byApp[app]?[network] else { continue }
                let curve = full.matureCurve()
                let installs = full.installsByDay()
                let observed = horizon < curve.count && installs[horizon] > 0 ? curve[horizon] : nil
                guard let history = held[network], history.lastDay >= 0 else { continue }
                for method in LTVMethod.allCases {
                    let projected = LTVProjection.fit(method, history, pooled: pooled, ownFit: network != "all")?
                        .predict(day: horizon)
                    let error = projected.flatMap { value in observed.flatMap { $0 > 0 ? value / $0 - 1 : nil } }
                    rows.append(Row(app: app, network: network, method: method.rawValue, cutoff: cutoffDate,
                                    historyDays: history.lastDay, horizon: horizon, projected: projected,
                                    observed: observed, error: error, chosen: chosen[app] == method.rawValue))
                }
            }
        }
        return LTVBacktestReport(rows: rows)
    }
}
