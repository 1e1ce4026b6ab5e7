import FunnelCore
import FunnelQuery
import FunnelSQL
import PostgresClient

extension ComputeEngine {
    /// Evaluates the configured retentions (`[[retention]]`) for the scope users, with the
    /// evaluator `funnel query retention` uses, and stores each user's cohorts with the periods they
    /// came back in (int_user_retention). Rows of retentions no longer configured are dropped.
    func evaluateCustomRetention(_ connection: PostgresConnection) throws {
        guard !configuration.retentions.isEmpty else {
            try connection.execute("delete from int_user_retention")
            return
        }
        try connection.execute("""
            delete from int_user_retention r using scope_installs si
            where r.app_id = si.app_id and r.user_id = si.user_id
            """)
        try connection.query("delete from int_user_retention where not (retention = any($1::text[]))",
                             [configuration.retentions.map(\.name)])
        let runner = RetentionQueryRunner(connection: connection)
        var batch = RetentionCohortBatch()
        for retention in configuration.retentions {
            let spec = retention.spec(timeZone: configuration.timeZone, dayRule: configuration.dayRule)
            try runner.evaluateComputeScope(spec) { app, user, result in
                batch.append(app: app, retention: retention.name, user: user, result: result)
                if batch.count >= 5_000 { try batch.insert(connection) }
            }
        }
        try batch.insert(connection)
    }

    /// Counts the configured retentions' marts (fct_custom_retention and its summary) from every
    /// user's stored cohorts and their first install's network (int_user_facts), with maturity by
    /// each app's last date with data: the table the ad hoc query builds (``RetentionTable``), per
    /// network and for 'all'. Counted whole each run, so a folded day and a full rebuild give the
    /// same marts.
    func buildCustomRetention(_ connection: PostgresConnection) throws {
        try connection.execute("delete from fct_custom_retention; delete from fct_custom_retention_summary")
        guard !configuration.retentions.isEmpty else { return }
        let apps = try connection.query("select app_id, (data_through_date - date '1970-01-01')::integer from compute_state where data_through_date is not null")
            .map { (try $0.decode(String.self, at: 0), try $0.decode(Int.self, at: 1)) }
        var writer = RetentionMartWriter()
        for retention in configuration.retentions {
            let spec = retention.spec(timeZone: configuration.timeZone, dayRule: configuration.dayRule,
                                      breakdown: FunnelBreakdown(property: "network", source: .person))
            var all = spec
            all.breakdown = nil
            for (app, asOfDay) in apps {
                var byNetwork = RetentionTable.Builder(spec: spec, asOfDay: asOfDay)
                var overall = RetentionTable.Builder(spec: all, asOfDay: asOfDay)
                let rows = try connection.query("""
                    select r.cohort_period, coalesce(f.network, 'unknown'), r.returned::text
                    from int_user_retention r
                    left join int_user_facts f on f.app_id = r.app_id and f.user_id = r.user_id
                    where r.app_id = $1 and r.retention = $2
                    """, [app, retention.name])
                for row in rows {
                    let cohort = try row.decode(Int.self, at: 0)
                    let returned = try row.decode(String.self, at: 2).dropFirst().dropLast().split(separator: ",").compactMap { Int($0) }
                    byNetwork.add(RetentionUserResult(cohort: cohort, breakdown: try row.decode(String.self, at: 1), returned: returned))
                    overall.add(RetentionUserResult(cohort: cohort, breakdown: nil, returned: returned))
                }
                for (table, allNetworks) in [(byNetwork.table(), false), (overall.table(), true)] {
                    for series in table.series {
                        writer.add(series, app: app, retention: retention.name, network: allNetworks ? "all" : series.value ?? "unknown",
                                   brackets: spec.brackets)
                    }
                }
                try writer.flush(connection)
            }
        }
    }
}

/// Users' retention cohorts collected for one multi-row insert.
private struct RetentionCohortBatch {
    var apps: [String] = []
    var retentions: [String] = []
    var users: [String] = []
    var cohorts: [Int] = []
    var returned: [String] = []

    var count: Int { apps.count }

    mutating func append(app: String, retention: String, user: String, result: RetentionUserResult) {
        apps.append(app)
        retentions.append(retention)
        users.append(user)
        cohorts.append(result.cohort)
        returned.append("{" + result.returned.map(String.init).joined(separator: ",") + "}")
    }

    mutating func insert(_ connection: PostgresConnection) throws {
        guard count > 0 else { return }
        try connection.query("""
            insert into int_user_retention (app_id, retention, user_id, cohort_period, returned)
            select a, r, u, c, p::integer[]
            from unnest($1::text[], $2::text[], $3::text[], $4::integer[], $5::text[]) as x (a, r, u, c, p)
            """, [apps, retentions, users, cohorts, returned])
        self = RetentionCohortBatch()
    }
}

/// Mature cells and pooled rows of retention tables, collected for multi-row inserts.
private struct RetentionMartWriter {
    var cells: (apps: [String], retentions: [String], networks: [String], dates: [Int], periods: [Int], sizes: [Int],
                retained: [Int], rolling: [Int]) = ([], [], [], [], [], [], [], [])
    var pooled: (apps: [String], retentions: [String], networks: [String], measures: [String], firsts: [Int], lasts: [Int],
                 cohorts: [Int], sizes: [Int], retained: [Int]) = ([], [], [], [], [], [], [], [], [])

    mutating func add(_ series: RetentionTable.Series, app: String, retention: String, network: String,
                      brackets: [ClosedRange<Int>]) {
        for cohort in series.cohorts {
            for period in cohort.classic.indices {
                guard let retained = cohort.classic[period], let rolling = cohort.rolling[period] else { continue }
                cells.apps.append(app)
                cells.retentions.append(retention)
                cells.networks.append(network)
                cells.dates.append(cohort.firstDay)
                cells.periods.append(period)
                cells.sizes.append(cohort.size)
                cells.retained.append(retained)
                cells.rolling.append(rolling)
            }
        }
        func pool(_ measure: String, _ first: Int, _ last: Int, _ value: RetentionTable.Pooled) {
            pooled.apps.append(app)
            pooled.retentions.append(retention)
            pooled.networks.append(network)
            pooled.measures.append(measure)
            pooled.firsts.append(first)
            pooled.lasts.append(last)
            pooled.cohorts.append(value.cohorts)
            pooled.sizes.append(value.size)
            pooled.retained.append(value.retained)
        }
        for period in series.classic.indices {
            pool("classic", period, period, series.classic[period])
            pool("rolling", period, period, series.rolling[period])
        }
        for (index, bracket) in brackets.enumerated() {
            pool("bracket", bracket.lowerBound, bracket.upperBound, series.brackets[index])
        }
    }

    mutating func flush(_ connection: PostgresConnection) throws {
        if !cells.apps.isEmpty {
            try connection.query("""
                insert into fct_custom_retention (app_id, retention, network, cohort_date, period, cohort_size, retained,
                                                  rolling_retained)
                select a, r, n, date '1970-01-01' + d, p, s, k, l
                from unnest($1::text[], $2::text[], $3::text[], $4::integer[], $5::integer[], $6::integer[], $7::integer[],
                            $8::integer[]) as x (a, r, n, d, p, s, k, l)
                """, [cells.apps, cells.retentions, cells.networks, cells.dates, cells.periods, cells.sizes, cells.retained,
                      cells.rolling])
        }
        if !pooled.apps.isEmpty {
            try connection.query("""
                insert into fct_custom_retention_summary (app_id, retention, network, measure, first_period, last_period,
                                                          cohorts, cohort_size, retained, rate)
                select a, r, n, m, f, l, c, s, k, case when s > 0 then k::double precision / s end
                from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::integer[], $7::integer[],
                            $8::integer[], $9::integer[]) as x (a, r, n, m, f, l, c, s, k)
                """, [pooled.apps, pooled.retentions, pooled.networks, pooled.measures, pooled.firsts, pooled.lasts,
                      pooled.cohorts, pooled.sizes, pooled.retained])
        }
        self = RetentionMartWriter()
    }
}
