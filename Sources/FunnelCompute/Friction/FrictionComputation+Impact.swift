import FunnelCore
import FunnelSQL
import PostgresClient

extension FrictionComputation {
    /// Brings the users' reached screens and outcomes (migration 0040), and the reached screens
    /// counted by outcome class (0045), up to date with the loaded files no friction run has read
    /// yet, or rebuilds them from every raw row. Returns the number of files taken in.
    func foldOutcomes(on connection: PostgresConnection, rebuild: Bool, timeZone: String, dayRule: String) throws -> Int {
        if rebuild { try connection.execute(SQLCatalog.text("bookkeeping/friction/reset.sql")) }
        let files = try connection.query(SQLCatalog.text("bookkeeping/friction/fold_window.sql"), [rebuild]).scalar(Int.self)
        guard rebuild || files > 0 else { return 0 }
        try connection.execute("analyze friction_window")
        for partition in try connection.query(SQLCatalog.text("bookkeeping/friction/stale_partitions.sql")) {
            try connection.execute("analyze \(try connection.quoteIdentifier(try partition.decode(String.self, at: 0)))")
        }
        try connection.query(SQLCatalog.text("intermediate/friction/int_friction_reached.sql"), [rebuild])
        if rebuild { try connection.execute(SQLCatalog.text("intermediate/friction/int_friction_reached.key.sql")) }
        // The ends of the apps' last days with an open first: the incremental outcomes read them.
        try connection.query(SQLCatalog.text("intermediate/friction/int_friction_apps.sql"), [rebuild, timeZone])
        if rebuild {
            // Every user's outcome from every install, step and open: hash joins throughout. The
            // planner, expecting a tenth of the users' first installs, chose merge joins and sorted
            // every open to disk (7.5 s at 300k users; hashed, 4.3 s).
            try connection.execute("set local enable_mergejoin = off")
            try connection.execute("set local enable_nestloop = off")
            try connection.query(SQLCatalog.text("intermediate/friction/int_friction_outcomes.sql"), [timeZone, dayRule])
            try connection.execute("set local enable_mergejoin = on")
            try connection.execute("set local enable_nestloop = on")
        } else {
            // The users who may have returned on day 1 are estimated at one row (a join filter on
            // dates), and the planner then read the window's opens once per user with a nested
            // loop: 64 scans of 1.5M rows, 11 s on a bench day. Its lookups by key are lateral
            // subqueries, which stay nested loops; every join between sets is hashed.
            try connection.execute("set local enable_nestloop = off")
            try connection.query(SQLCatalog.text("intermediate/friction/int_friction_outcomes.fold.sql"), [timeZone, dayRule])
            try connection.execute("set local enable_nestloop = on")
        }
        if !rebuild { try connection.execute(SQLCatalog.text("intermediate/friction/int_friction_outcomes.fold_rows.sql")) }
        try connection.execute(SQLCatalog.text(rebuild ? "intermediate/friction/int_friction_screen_counts.sql" : "intermediate/friction/int_friction_screen_counts.fold.sql"))
        try connection.execute(SQLCatalog.text("bookkeeping/friction/fold_files.sql"))
        // Tables filled from scratch have no statistics until autovacuum comes by; without them
        // the impact's joins ran as nested loops for minutes. A day's rows leave them good enough.
        let analyzed = try connection.query("select reltuples from pg_class where oid = 'int_friction_outcomes'::regclass")
            .scalar(Double.self)
        if rebuild || analyzed < 0 {
            try connection.execute("analyze int_friction_reached, int_friction_screens, int_friction_outcomes, int_friction_apps")
        }
        return files
    }

    /// The time zone and day rule of the configuration in force (`settings_in_force.sql`), and
    /// whether the outcomes were counted under others (or under none yet), so they must be rebuilt;
    /// `previous` names the ones they were counted under ("UTC, calendar"), nil before the first run.
    func dayRuleInForce(on connection: PostgresConnection) throws
        -> (timeZone: String, dayRule: String, changed: Bool, previous: String?) {
        let row = try connection.query(SQLCatalog.text("bookkeeping/friction/settings_in_force.sql"))[0]
        let timeZone = try row.decode(String.self, column: "time_zone")
        let dayRule = try row.decode(String.self, column: "day_rule")
        let previousTimeZone = try row.decode(String?.self, column: "previous_time_zone")
        let previousDayRule = try row.decode(String?.self, column: "previous_day_rule")
        let previous = previousTimeZone.flatMap { zone in previousDayRule.map { "\(zone), \($0)" } }
        return (timeZone, dayRule, previousTimeZone != timeZone || previousDayRule != dayRule, previous)
    }

    /// Recomputes impact and breakdown of `apps`: counts per (screen, type) in SQL, tests and
    /// flags in Swift (Fisher's exact test, Benjamini-Hochberg per app), then writes both tables.
    func recomputeImpact(on connection: PostgresConnection, apps: [String], summary: inout FrictionSummary) throws {
        try connection.query(SQLCatalog.text("marts/friction/fct_friction_impact.delete_apps.sql"), [apps])
        guard !apps.isEmpty else { return }
        let rows = try connection.query(SQLCatalog.text("marts/friction/fct_friction_impact.counts.sql"), [apps])
        var byApp: [String: [(screen: String, type: String, counts: FrictionCounts, d1: FrictionCounts)]] = [:]
        for row in rows {
            func counts(from index: Int) throws -> FrictionCounts {
                FrictionCounts(usersHit: try row.decode(Int.self, at: index),
                               droppedHit: try row.decode(Int.self, at: index + 1),
                               usersNotHit: try row.decode(Int.self, at: index + 2),
                               droppedNotHit: try row.decode(Int.self, at: index + 3))
            }
            byApp[try row.decode(String.self, at: 0), default: []].append(
                (try row.decode(String.self, at: 1), try row.decode(String.self, at: 2), try counts(from: 3),
                 try counts(from: 7)))
        }
        let insert = SQLCatalog.text("marts/friction/fct_friction_impact.insert.sql")
        for app in byApp.keys.sorted() {
            let family = byApp[app] ?? []
            let assessed = settings.rules.assess(family.map(\.counts))
            summary.pairsTested += family.count
            for (pair, assessment) in zip(family, assessed) {
                let counts = assessment.counts
                try connection.query(insert, [
                    app, pair.screen, pair.type, counts.usersHit, counts.usersNotHit, counts.droppedHit,
                    counts.droppedNotHit, counts.dropoffHit, counts.dropoffNotHit, counts.relativeRisk,
                    assessment.pValue, assessment.qValue, counts.usersLost, assessment.meetsMinimumSample,
                    assessment.flagged, assessment.rank, pair.d1.usersHit, pair.d1.usersNotHit, pair.d1.dropoffHit,
                    pair.d1.dropoffNotHit, pair.d1.relativeRisk, pair.d1.pValue,
                ])
                if let rank = assessment.rank {
                    summary.flagged.append(FlaggedFriction(appID: app, screen: pair.screen, frictionType: pair.type,
                                                           rank: rank, usersHit: counts.usersHit,
                                                           usersLost: counts.usersLost, qValue: assessment.qValue))
                    try writeBreakdown(on: connection, app: app, screen: pair.screen, type: pair.type, counts: counts)
                }
            }
        }
        summary.flagged.sort { ($0.appID, $0.rank) < ($1.appID, $1.rank) }
    }

    /// The flagged pair's hit users by input mode, orientation and platform, each slice compared
    /// with the users who did not hit it; `share_of_users_lost` says how much of the effect the
    /// slice explains.
    private func writeBreakdown(on connection: PostgresConnection, app: String, screen: String, type: String,
                                counts: FrictionCounts) throws {
        let insert = SQLCatalog.text("marts/friction/fct_friction_breakdown.insert.sql")
        let slices = try connection.query(SQLCatalog.text("marts/friction/fct_friction_breakdown.counts.sql"), [app, screen, type])
        for row in slices {
            let slice = FrictionCounts(usersHit: try row.decode(Int.self, at: 2), droppedHit: try row.decode(Int.self, at: 3),
                                       usersNotHit: counts.usersNotHit, droppedNotHit: counts.droppedNotHit)
            let share: Double? = counts.usersLost > 0 ? slice.usersLost / counts.usersLost : nil
            try connection.query(insert, [
                app, screen, type, try row.decode(String.self, at: 0), try row.decode(String.self, at: 1),
                slice.usersHit, slice.droppedHit, slice.dropoffHit, slice.dropoffNotHit, slice.relativeRisk,
                slice.usersLost, share, (share ?? 0) >= settings.explainingShare,
            ])
        }
    }
}
