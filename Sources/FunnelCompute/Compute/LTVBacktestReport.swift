import FunnelCore
public import PostgresClient

/// `funnel backtest ltv`: every projection method's LTV at a horizon, projected from the history as
/// it stood on a cutoff date, beside what the same cohorts were observed to reach later, per app
/// and network. Reads the computed rollups (`LTVTriangles`); the cutoff holds out the calendar days
/// after it and the cohorts installed after it.
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
        /// The observed LTV on the horizon of the cohorts installed up to the cutoff; nil until every
        /// one of them is mature for it.
        public let observed: Double?
        /// projected / observed − 1.
        public let error: Double?
        /// Whether the compute's back-test chose this method for the app at this horizon (at the
        /// nearest horizon it back-tested).
        public let chosen: Bool
    }

    /// What went wrong, in words a user can act on.
    public struct Problem: Error, Sendable {
        public let message: String
    }

    /// An app the cutoff cannot be applied to, and why.
    public struct Skipped: Sendable, Codable, Equatable {
        public let app: String
        public let reason: String
    }

    public let rows: [Row]
    /// Apps left out (their own history does not fit the cutoff); the others are still reported.
    public let skipped: [Skipped]

    /// Projects `horizon` from the history up to `cutoff` (YYYY-MM-DD) of every computed app, or of
    /// `app` alone. Each app's cutoff is judged by its own history: the cohorts installed up to the
    /// cutoff (the days from its first install to it) project the horizon, and the observed LTV is
    /// those cohorts' LTV on the horizon once every one of them is mature for it. Without a cutoff,
    /// each app's is the latest that leaves every kept cohort mature for the horizon (the first
    /// half of the history when none does). Cohorts are read by their age, not by their rows: a
    /// cohort older than `[ltv].max_day` is counted from its install.
    public static func run(_ connection: PostgresConnection, cutoff: String?, horizon: Int, app: String? = nil)
        throws -> LTVBacktestReport {
        let states = try connection.query("""
            select app_id, data_through_date::text,
                   case when $1::text is null then null else data_through_date - $1::date end
            from compute_state where $2::text is null or app_id = $2 order by app_id
            """, [cutoff, app])
        guard !states.isEmpty else {
            if let app {
                let known = try connection.query("select app_id from compute_state order by app_id")
                    .map { try $0.decode(String.self, at: 0) }
                throw Problem(message: known.isEmpty ? "nothing is computed yet: run 'funnel ingest' and 'funnel compute' first"
                              : "no computed app \(app): pick one of \(known.joined(separator: ", ")) with --app")
            }
            throw Problem(message: "nothing is computed yet: run 'funnel ingest' and 'funnel compute' first")
        }
        // Every day, the most recent included: at a cutoff in the past, its days are complete.
        let triangles = try LTVTriangles.load(connection, withBuyers: true, completeDaysOnly: false)
        // The method compute chose for the back-tested horizon nearest the one asked for.
        var chosen: [String: String] = [:]
        for row in try connection.query("""
            select distinct on (app_id) app_id, method from fct_ltv_backtest
            where chosen and network = 'all' order by app_id, abs(horizon - $1), horizon
            """, [horizon]) {
            chosen[try row.decode(String.self, at: 0)] = try row.decode(String.self, at: 1)
        }
        // Compute's back-test points of each app: what weighs the ensemble.
        var points: [String: [LTVBacktest.Point]] = [:]
        for row in try connection.query("""
            select app_id, method, horizon, from_day, target_day, origin_day, projected::float8, observed::float8
            from fct_ltv_backtest where network = 'all' and method <> $1
            order by app_id, method, horizon, origin_day, target_day
            """, [LTVMethod.ensemble.rawValue]) {
            guard let method = LTVMethod(rawValue: try row.decode(String.self, at: 1)) else { continue }
            points[try row.decode(String.self, at: 0), default: []].append(LTVBacktest.Point(
                network: "all", method: method, horizon: try row.decode(Int.self, at: 2), fromDay: try row.decode(Int.self, at: 3),
                targetDay: try row.decode(Int.self, at: 4), originDay: try row.decode(Int.self, at: 5),
                projected: try row.decode(Double.self, at: 6), observed: try row.decode(Double.self, at: 7)))
        }
        var rows: [Row] = []
        var skipped: [Skipped] = []
        for state in states {
            let app = try state.decode(String.self, at: 0)
            let through = try state.decode(String.self, at: 1)
            guard let networks = triangles.byApp[app], let all = networks["all"] else {
                skipped.append(Skipped(app: app, reason: "no cohorts computed"))
                continue
            }
            let oldest = all.oldestAge
            // The cutoff's day counted from the first install.
            let cut: Int
            if let holdout = try state.decode(Int?.self, at: 2) {
                cut = oldest - holdout
                guard cut >= 0, holdout > 0 else {
                    let first = try connection.query("select ($1::date - $2::integer)::text", [through, oldest]).scalar(String.self)
                    skipped.append(Skipped(app: app, reason: "--cutoff \(cutoff ?? "") is outside \(app)'s computed history "
                                           + "(its oldest cohort, installed on \(first), is \(oldest) days old on \(through)): "
                                           + "pick a date from \(first) to the day before \(through), or leave --cutoff out"))
                    continue
                }
            } else {
                cut = oldest - horizon >= LTVBacktest.minimumFromDay ? oldest - horizon : oldest / 2
            }
            let cutoffDate = try connection.query("select ($1::date - $2::integer)::text", [through, oldest - cut])
                .scalar(String.self)
            let windows = networks.mapValues { $0.window(oldestAge: oldest, firstInstallDay: 0, days: cut + 1) }
            let pooledHistory = windows["all"]?.history
            let pooled = pooledHistory.map(PurchaseModelProjection.histories).flatMap { PurchaseModelProjection.fitHistories($0) }
            let spend = pooledHistory.flatMap { PurchaseModelProjection.fitSpend($0) }
            for network in networks.keys.sorted(by: { ($0 == "all" ? 0 : 1, $0) < ($1 == "all" ? 0 : 1, $1) }) {
                guard let window = windows[network], window.history.lastDay >= 0 else { continue }
                let observed = window.observed(day: horizon)
                var fitted: [LTVMethod: LTVProjection] = [:]
                for method in LTVMethod.allCases {
                    let projection = method == .ensemble
                        ? LTVBacktest.outcome(points: points[app] ?? []).ensemble(horizon: horizon, lastDay: window.history.lastDay) { fitted[$0] }
                        : LTVProjection.fit(method, window.history, pooled: pooled, ownFit: network != "all", spend: spend)
                    fitted[method] = projection
                    let projected = projection?.predict(day: horizon)
                    let error = projected.flatMap { value in observed.flatMap { $0 > 0 ? value / $0 - 1 : nil } }
                    rows.append(Row(app: app, network: network, method: method.rawValue, cutoff: cutoffDate,
                                    historyDays: window.history.lastDay, horizon: horizon, projected: projected,
                                    observed: observed, error: error, chosen: chosen[app] == method.rawValue))
                }
            }
        }
        if rows.isEmpty, let first = skipped.first {
            throw Problem(message: first.reason)
        }
        return LTVBacktestReport(rows: rows, skipped: skipped)
    }
}
