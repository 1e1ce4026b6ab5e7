import Foundation
public import FunnelCore
import FunnelSQL
public import Logging
public import PostgresClient

/// Brings every derived table up to date: user facts, cohort rollups and metric marts.
///
/// A run holds the session advisory lock `funnel.compute` (a second concurrent run returns nil at
/// once, or waits with `waitForLock`) and does all its work in one transaction: the dirty ledger
/// rows it drains, the rebuilt rows and the marts commit together or not at all. By default only
/// the dirty (app, cohort day) pairs (each widened by a day either side for the time zone) are
/// rebuilt; `full` rebuilds everything in range, and a changed configuration forces that.
///
/// The configuration reaches the SQL through `ComputeSettings`, written before the run's
/// transaction; the run records in it (`computed_under`, lane `metrics`) that the metrics are
/// computed under that configuration, except after a --from/--to run under a changed one, which
/// rebuilt only its range (the next run without a range rebuilds everything).
///
/// Rows of loaded ingest files that no run has folded in yet (the window) need no dirty mark:
/// new installs and changed installs put their cohorts in the scope, and the other rows are
/// folded into the facts of the users they belong to (which keep the days they were active and
/// bought on, and their open and purchase times), with the rollups updated by the difference
/// (`int_cohort_rollups.fold.sql`), so adding a day costs what that day holds, not the history.
public struct ComputeEngine: Sendable {
    public static let lockKey = AdvisoryLockKey("funnel.compute")

    public let configuration: FunnelConfiguration
    /// The file the configuration came from (nil: the built-in defaults), for the record.
    public let source: String?
    public let logger: Logger
    /// The most events a rebuild of the whole history sums in the client (`UserDaysTable`); a
    /// history estimated bigger is summed by the server's statements. Tests lower it to run those.
    var clientEventLimit = UserDaysTable.maxEvents

    public init(configuration: FunnelConfiguration, source: String? = nil, logger: Logger = Logger(label: "funnel.compute")) {
        self.configuration = configuration
        self.source = source
        self.logger = logger
    }

    /// Runs compute; nil when another compute holds the lock and `waitForLock` is false.
    public func run(_ connection: PostgresConnection, options: ComputeOptions = ComputeOptions()) throws -> ComputeSummary? {
        let locked = { (connection: PostgresConnection) throws -> ComputeSummary in
            if !options.settingsWritten {
                try ComputeSettings(configuration: configuration, source: source).write(connection)
            }
            return try runLocked(connection, options: options)
        }
        if options.waitForLock {
            return try connection.withAdvisoryLock(Self.lockKey) { try locked(connection) }
        }
        return try connection.withAdvisoryLockIfFree(Self.lockKey) { try locked(connection) }
    }

    private func runLocked(_ connection: PostgresConnection, options: ComputeOptions) throws -> ComputeSummary {
        let started = Date()
        return try connection.transaction { connection in
            // One snapshot for the whole run: the files it folds in are exactly the rows it reads.
            try connection.execute("set transaction isolation level repeatable read")
            try tuneSession(connection)
            let changed = try configurationChanged(connection)
            if changed && !options.full {
                logger.info("configuration changed since the last run: rebuilding everything")
            }
            let inputsAppeared = try defaultFunnelInputsChanged(connection)
            if !inputsAppeared.isEmpty && !options.full && !changed {
                logger.info("an input of the default funnel appeared: rebuilding everything", metadata: [
                    "compute.apps": .string(inputsAppeared.joined(separator: ",")),
                ])
            }
            let full = options.full || changed || !inputsAppeared.isEmpty
            try connection.execute(SQLCatalog.text("intermediate/metrics/scope_tables.sql"))
            let wholeHistory = full && options.from == nil && options.to == nil
            // No JIT compilation, for rebuilds too: the steps that turn sorts off to get hashed
            // plans (int_funnel_points.sql, the rollups) carry the disabled sort's huge cost
            // estimate, which made PostgreSQL inline and optimise them at 1.5 s apiece; on a
            // partial run each compile (50-100 ms) costs more than it saves.
            try connection.execute("set local jit = off")
            if wholeHistory {
                try connection.execute(SQLCatalog.text("bookkeeping/metrics/reset.sql"))
                // The funnel points are filled from every user's facts at the end (int_funnel_points.sql).
                try connection.execute("set local funnel.fact_changes = off")
            } else {
                // A partial run matches tens of thousands of keys against the big derived tables,
                // whose pages the previous runs left in memory: probing their indexes beats
                // scanning them, which the default cost of a random read hides from the planner.
                try connection.execute("set local random_page_cost = 1.1")
            }
            let frictionScope: FrictionScope? = if options.full {
                FrictionScope(from: options.from, to: options.to)
            } else if options.findsFrictionScope {
                try Self.pendingFrictionScope(connection, options: options)
            } else {
                nil
            }
            let windowFiles = try connection.query(SQLCatalog.text("bookkeeping/metrics/window_files.sql")).scalar(Int.self)
            let scopeFile = full ? "intermediate/metrics/scope.full.sql" : "intermediate/metrics/scope.dirty.sql"
            try connection.query(SQLCatalog.text(scopeFile), [options.from, options.to])
            let rateChanges = try refreshRates(connection)
            if rateChanges > 0 && !wholeHistory {
                try timed("scope_rates") { try connection.execute(SQLCatalog.text("intermediate/metrics/scope.rates.sql")) }
            }
            var users = 0
            var foldedUsers = 0
            if windowFiles > 0 && !wholeHistory {
                try timed("scope_window") { try connection.execute(SQLCatalog.text("intermediate/metrics/scope.window.sql")) }
                foldedUsers = try fold(connection)
            }
            var cohortDays = try connection.query("select count(*) from compute_scope").scalar(Int.self)
            var funnelPointsBuilt = false
            if cohortDays > 0 {
                (users, funnelPointsBuilt) = try rebuild(connection, wholeHistory: wholeHistory)
                cohortDays = try connection.query("select count(*) from compute_scope").scalar(Int.self)
            }
            let spendDates = try connection.query(
                "select count(*) from (select app_id, spend_date from spend_scope union select app_id, cohort_date from compute_scope) d"
            ).scalar(Int.self)
            if spendDates > 0 {
                try timed("int_spend_day_rollup") {
                    try connection.execute(SQLCatalog.text("intermediate/metrics/int_spend_day_rollup.sql"))
                }
            }
            try timed("money_unconverted") {
                try connection.execute(SQLCatalog.text(
                    wholeHistory ? "intermediate/metrics/money_unconverted.full.sql" : "intermediate/metrics/money_unconverted.sql"))
            }
            let unconverted = try Self.unconvertedMoney(connection)
            for money in unconverted {
                logger.warning("money without an exchange rate", metadata: [
                    "compute.app": .string(money.appID), "compute.unconverted": .string(money.notice),
                ])
            }
            try connection.execute(SQLCatalog.text("bookkeeping/metrics/fold_files.sql"))
            if !funnelPointsBuilt { try updateFunnelPoints(connection, wholeHistory: wholeHistory) }
            if cohortDays > 0 || foldedUsers > 0 || spendDates > 0 || changed {
                try buildMarts(connection, full: full)
            }
            try timed("fct_insights") { try buildInsights(connection) }
            let failed = try failedChecks(connection)
            for check in failed {
                logger.warning("invariant check found offending rows", metadata: ["check.name": .string(check)])
            }
            try connection.query(
                "insert into compute_runs (mode, cohort_days, users, started_at) values ($1, $2, $3, $4)",
                [full ? "full" : "incremental", cohortDays, users + foldedUsers, started])
            if changed && !wholeHistory {
                logger.info("only the --from/--to range was rebuilt under the changed configuration: the next run without one rebuilds everything")
            } else {
                try ComputeLedger(connection).recordComputedUnder(lane: .metrics)
            }
            return ComputeSummary(
                mode: full ? "full" : "incremental", configurationChanged: changed, cohortDaysRebuilt: cohortDays,
                usersRebuilt: users + foldedUsers, seconds: Date().timeIntervalSince(started),
                dayRule: configuration.dayRule.label, timeZone: configuration.timeZone, failedChecks: failed,
                frictionScope: frictionScope, unconverted: unconverted)
        }
    }

    /// Where friction must look again, from what waits for this run (read in its snapshot, before
    /// the dirty ledger is drained and the new files are recorded as folded in): the sessions the
    /// new files touch; with a `--from`/`--to` range or a cohort day in the dirty ledger, the
    /// sessions from the day before the earliest new telemetry or dirty cohort day, and only the
    /// impact when the new files hold no telemetry (their steps and opens change outcomes); nil
    /// when nothing waits.
    static func pendingFrictionScope(_ connection: PostgresConnection, options: ComputeOptions) throws -> FrictionScope? {
        let pending = try connection.query(SQLCatalog.text("bookkeeping/metrics/pending_work.sql"), [options.from, options.to])
        guard let row = pending.rows.first, try row.decode(Bool.self, at: 0) else { return nil }
        if options.from == nil && options.to == nil, !(try row.decode(Bool.self, at: 2)) {
            return .newFiles
        }
        if let from = try row.decode(PostgresDate?.self, at: 1) {
            return FrictionScope(from: from, to: options.to)
        }
        return .impactOnly
    }

    /// Rebuilds the day-by-day exchange rates (`currency_rate_days.sql`) when the loaded or the
    /// undated rates differ from those they were last built from, listing in `rate_changes` the
    /// first changed date of each currency; returns how many currencies changed (0 when nothing
    /// was rebuilt). Cheap when nothing changed: a fingerprint of both tables.
    private func refreshRates(_ connection: PostgresConnection) throws -> Int {
        let stale = try connection.query(
            "select currency_rates_fingerprint() is distinct from (select fingerprint from currency_rates_built)"
        ).scalar(Bool.self)
        guard stale else { return 0 }
        try timed("currency_rate_days") { try connection.execute(SQLCatalog.text("intermediate/metrics/currency_rate_days.sql")) }
        return try connection.query("select count(*) from rate_changes").scalar(Int.self)
    }

    /// The money compute could not convert to USD, per app, source and currency
    /// (`reports/money_unconverted.sql`), for every app or one.
    public static func unconvertedMoney(_ connection: PostgresConnection, app: String? = nil) throws -> [UnconvertedMoney] {
        try connection.query(SQLCatalog.text("reports/money_unconverted.sql"), [app]).rows.map { row in
            try UnconvertedMoney(decoding: { try row.decode(String.self, column: $0) })
        }
    }

    /// The run's `work_mem` (`hashInMemory`).
    private static let workMem = "256MB"

    /// Session settings for the run's big set-based statements: hash aggregates and joins in
    /// memory instead of spilling to disk. `set local` ends with the transaction.
    private func tuneSession(_ connection: PostgresConnection) throws {
        // On Citus: one connection per worker for the whole run. A run writes and then reads the
        // same shards many times; once a shard was written over one of several parallel
        // connections, Citus refuses a later statement that must reach it over another
        // ("placements that were modified over multiple connections"). On plain PostgreSQL the
        // setting is an unused placeholder.
        try connection.execute("set local citus.max_adaptive_executor_pool_size = 1")
        try Self.hashInMemory(connection)
    }

    /// Hash aggregates and joins in memory (`workMem`, twice that for hashes) instead of spilling
    /// to disk, for the rest of the transaction: the metrics' run, and friction's rebuild.
    static func hashInMemory(_ connection: PostgresConnection) throws {
        try connection.execute("set local work_mem = '\(workMem)'")
        try connection.execute("set local hash_mem_multiplier = 2")
    }

    /// Folds the window's rows into the users they touch outside the scope's cohorts (see
    /// `scope_installs.fold.sql`): their facts, which keep the state a fold needs, are updated from the new
    /// days alone (`scope_user_days.fold.sql`) and the rollups get the difference. Returns the number of
    /// users folded.
    private func fold(_ connection: PostgresConnection) throws -> Int {
        var folded = 0
        try timed("delta_users") {
            folded = try connection.query(SQLCatalog.text("intermediate/metrics/scope_installs.fold.sql")).affectedRows
        }
        guard folded > 0 else { return 0 }
        try connection.execute("analyze delta_users")
        // The fold joins its working tables (a few hundred thousand rows at most) by user: hashing
        // them beats sorting them for merge joins, which the planner picked on thin statistics
        // and which took most of the fold's time at 10M events.
        try connection.execute("set local enable_mergejoin = off")
        defer { _ = try? connection.execute("set local enable_mergejoin = on") }
        try connection.execute("insert into held_scope select * from compute_scope; truncate compute_scope")
        try timed("delta_user_days") { try connection.execute(SQLCatalog.text("intermediate/metrics/scope_user_days.fold.sql")) }
        try timed("user_activity") { try sumActivity(connection, of: .newDays) }
        try timed("delta_general_users") { try connection.execute(SQLCatalog.text("intermediate/metrics/scope_user_state.fold.sql")) }
        // User-defined funnels read the raw events of every delta user; then the facts: most
        // updated in place, the general users' derived again from their state and onboarding.
        try timed("int_user_funnel_steps") { try evaluateCustomFunnels(connection) }
        try timed("int_user_retention") { try evaluateCustomRetention(connection) }
        for step in ["int_user_facts.fold", "scope_onboarding", "int_user_facts"] {
            try timed(step) { try connection.execute(SQLCatalog.text("intermediate/metrics/\(step).sql")) }
        }
        try timed("int_user_facts.inviters") { try linkInviters(connection, from: .facts) }
        // As for the cohort rebuild's rollups: hashing the contributions by their six or seven
        // keys beats sorting them (466 -> 270 ms for the day rollup at 3M events). Only here:
        // elsewhere in the fold, plans without sorts were far worse.
        try connection.execute("set local enable_sort = off")
        try timed("delta_rollups") { try connection.execute(SQLCatalog.text("intermediate/metrics/int_cohort_rollups.fold.sql")) }
        try connection.execute("set local enable_sort = on")
        try timed("compute_state") { try connection.execute(SQLCatalog.text("bookkeeping/metrics/compute_state.sql")) }
        try connection.execute("insert into compute_scope select * from held_scope")
        return folded
    }

    /// Facts and rollups of the scope's cohort days (and, for the whole history, the default
    /// funnel's points and medians); returns the number of users rebuilt and whether the funnel's
    /// points were built.
    private func rebuild(_ connection: PostgresConnection, wholeHistory: Bool) throws -> (users: Int, funnelPointsBuilt: Bool) {
        // The whole history: every install's user, the facts just emptied (the same rows, in one scan).
        let installs = wholeHistory ? "intermediate/metrics/scope_installs.full.sql" : "intermediate/metrics/scope_installs.sql"
        try timed("int_scope_installs") { try connection.execute(SQLCatalog.text(installs)) }
        for _ in 0..<3 {
            let added = try connection.query(SQLCatalog.text("intermediate/metrics/scope.expand.sql")).count
            guard added > 0 else { break }
            logger.debug("scope widened by moved users", metadata: ["compute.added_days": "\(added)"])
            try connection.execute(SQLCatalog.text("intermediate/metrics/scope_installs.sql"))
        }
        let users = try connection.query("select count(*) from scope_installs").scalar(Int.self)
        // The whole history's days are summed in the client (`UserDaysTable`), which also gives
        // the day rollup's cells, written with the other rollups below: on the server, its 4.2M
        // events (at 300k users) were sorted by user and day, the 2.2M days sorted again by user,
        // and 2.6M contributions hashed into the cells. A history too big for the client's memory
        // bound is summed by the server's statements.
        var clientDays: UserDaysTable.Sums?
        let expectedEvents = wholeHistory ? try expectedUserEvents(connection) : 0
        if wholeHistory && expectedEvents <= clientEventLimit {
            clientDays = try sumUserDaysInClient(connection, expectedEvents: expectedEvents)
            try timed("int_user_facts_inviters") { try linkInviters(connection, from: .installs) }
        } else {
            // The whole history's days on the server are sorted by user and day to be summed: in
            // memory with 1 GB instead of merged on disk (19.7 -> 14.7 s at 300k users); not hashed,
            // as the planner expects far fewer groups than there are and its hash spilled. Summing
            // them per user sorts them again, in memory too.
            if wholeHistory { try connection.execute("set local work_mem = '1GB'; set local enable_hashagg = off") }
            try timed("int_scope_user_days") { try connection.execute(SQLCatalog.text("intermediate/metrics/scope_user_days.sql")) }
            if wholeHistory { try connection.execute("set local enable_hashagg = on") }
            try timed("user_activity") { try sumActivity(connection, of: .allDays) }
            if wholeHistory {
                try connection.execute("set local work_mem = '\(Self.workMem)'")
                try timed("int_user_facts_inviters") { try linkInviters(connection, from: .installs) }
            }
        }
        for step in ["scope_user_state", "scope_onboarding", "int_user_facts"] {
            try timed(step) { try connection.execute(SQLCatalog.text("intermediate/metrics/\(step).sql")) }
        }
        // Facts rewritten in bulk need fresh statistics before the inviter lookup and the rollups
        // join them; a few cohorts' worth leaves the statistics as good as they were.
        // On Citus the facts are sharded: the coordinator's table is empty (its statistics say
        // nothing), each worker analyzes its own shards, and Citus refuses an ANALYZE (a DDL to it)
        // of shards this transaction has already read over several connections.
        let rows = try connection.query("select reltuples from pg_class where oid = 'int_user_facts'::regclass")
            .scalar(Double.self)
        if try !connection.hasExtension("citus") && (rows < 0 || Double(users) * 5 > rows) {
            try timed("analyze int_user_facts") { try connection.execute("analyze int_user_facts") }
        }
        if !wholeHistory {
            try timed("int_user_facts_inviters") { try linkInviters(connection, from: .facts) }
        }
        try timed("int_user_funnel_steps") { try evaluateCustomFunnels(connection) }
        try timed("int_user_retention") { try evaluateCustomRetention(connection) }
        // The whole history's funnel points come from the facts alone: their medians are computed
        // here on a thread of their own while the server builds the rollups, which the medians'
        // step 0 reads.
        let medians = wholeHistory ? try startFunnelMedians(connection) : nil
        // The rollups group hundreds of thousands of rows by six or seven keys: hashing them took
        // half the time of the sort-based plan the planner picks on its own (measured at 1M events).
        // Only for this step: elsewhere, plans without sorts were far worse.
        // The whole history's day rollup is written into an empty table without its key, which is
        // built after in one sorted pass.
        try connection.execute("set local enable_sort = off")
        try timed("int_cohort_rollups") {
            if wholeHistory { try connection.execute(SQLCatalog.text("intermediate/metrics/int_cohort_day_rollup.key_drop.sql")) }
            try connection.execute(SQLCatalog.text("intermediate/metrics/int_cohort_rollups.sql"))
            if let clientDays {
                try writeDayRollup(connection, clientDays)
            } else {
                try connection.execute(SQLCatalog.text("intermediate/metrics/int_cohort_day_rollup.sql"))
            }
            if wholeHistory { try connection.execute(SQLCatalog.text("intermediate/metrics/int_cohort_day_rollup.key_add.sql")) }
            try connection.execute(SQLCatalog.text("intermediate/metrics/int_network_day_rollup.sql"))
        }
        try connection.execute("set local enable_sort = on")
        if let medians { try finishFunnelMedians(connection, medians) }
        try timed("compute_state") { try connection.execute(SQLCatalog.text("bookkeeping/metrics/compute_state.sql")) }
        return (users, medians != nil)
    }

    /// Where `int_user_facts.inviters.sql` reads the inviters' attribution: the scope's installs
    /// before the facts are written (a rebuild of all history: every inviter is in the scope), or
    /// the facts after (any other run: an inviter may lie outside the scope).
    private enum InviterSource: String {
        case installs = "scope_installs"
        case facts = "int_user_facts"
    }

    /// Links the viral scope users to their inviters (`scope_inviters`); from the facts, writes
    /// the links into them at once (`int_user_facts.inviters.apply.sql`). The table name comes from
    /// `InviterSource`, never from input.
    private func linkInviters(_ connection: PostgresConnection, from source: InviterSource) throws {
        try executeTemplate(connection, "intermediate/metrics/int_user_facts.inviters.sql", filling: "inviters", with: source.rawValue)
        if source == .facts {
            try connection.execute(SQLCatalog.text("intermediate/metrics/int_user_facts.inviters.apply.sql"))
        }
    }

    /// The days `scope_user_activity.sql` sums per user: every day of the scope's users (a rebuild) or
    /// the days a fold's window adds.
    private enum ActivityDays: String {
        case allDays = "scope_user_days"
        case newDays = "delta_new_days"
    }

    /// Fills `scope_user_activity` from one of the two day tables; the table name comes from
    /// `ActivityDays`, never from input.
    private func sumActivity(_ connection: PostgresConnection, of days: ActivityDays) throws {
        try executeTemplate(connection, "intermediate/metrics/scope_user_activity.sql", filling: "days", with: days.rawValue)
    }

    /// Runs a template statement with its placeholder `{{name}}` filled by a table name, which the
    /// callers take from their enums, never from input.
    private func executeTemplate(_ connection: PostgresConnection, _ path: String, filling name: String, with table: String) throws {
        try connection.execute(SQLCatalog.text(path).replacingOccurrences(of: "{{\(name)}}", with: table))
    }

    /// Brings the default funnel's points and exact medians (migration 0043) up to date where the
    /// rebuild did not build them: from this run's fact changes, or from every user's facts after
    /// a full rebuild of no cohort or when they were never built (a database migrated from before
    /// them).
    private func updateFunnelPoints(_ connection: PostgresConnection, wholeHistory: Bool) throws {
        let missing = try connection.query(
            "select exists (select 1 from int_user_facts) and not exists (select 1 from int_funnel_medians)"
        ).scalar(Bool.self)
        if wholeHistory || missing {
            try finishFunnelMedians(connection, try startFunnelMedians(connection))
        } else if try connection.query("select exists (select 1 from funnel_fact_changes)").scalar(Bool.self) {
            try timed("funnel_points") { try connection.execute(SQLCatalog.text("intermediate/metrics/int_funnel_points.fold.sql")) }
        }
    }

    /// The marts, rebuilt from the rollups (the retention triangle, unless `full`, only where this
    /// run can have changed it); projections come between the LTV curve and the verdicts.
    private func buildMarts(_ connection: PostgresConnection, full: Bool) throws {
        // The marts join rollups of tens of thousands of rows: hashing them beat the merge joins
        // the planner chose, whose sorts on text keys took most of the retention triangle's time
        // (the triangle's query 129-349 ms merged, 67-88 ms hashed, at 300k users).
        try connection.execute("set local enable_mergejoin = off")
        defer { _ = try? connection.execute("set local enable_mergejoin = on") }
        // The triangle and the CPI table compute again only the cells and dates this run can
        // have changed, unless the run rebuilds everything (a configuration change may move every
        // cell).
        try timed("fct_retention") {
            try connection.query(SQLCatalog.text("marts/metrics/fct_retention.sql"), [!full])
        }
        for step in ["fct_retention_summary", "fct_retention_brackets", "fct_regular_users", "fct_ltv", "fct_revenue"] {
            try timed(step) { try connection.execute(SQLCatalog.text("marts/metrics/\(step).sql")) }
        }
        try timed("fct_cpi") { try connection.query(SQLCatalog.text("marts/metrics/fct_cpi.sql"), [!full]) }
        for step in ["fct_funnel_top", "fct_kfactor", "fct_funnel", "fct_funnel_breakdown"] {
            try timed(step) { try connection.execute(SQLCatalog.text("marts/metrics/\(step).sql")) }
        }
        try timed("fct_custom_retention") { try buildCustomRetention(connection) }
        try timed("fct_ltv_models") { try projectLTV(connection, full: full) }
        try timed("fct_networks") { try connection.execute(SQLCatalog.text("marts/metrics/fct_networks.sql")) }
        try timed("fct_spend_response") { try buildSpendResponse(connection) }
        try timed("verdicts") { try buildVerdicts(connection) }
        try timed("fct_campaigns") { try buildCampaigns(connection) }
        try timed("fct_plan") { try buildPlan(connection) }
        try timed("fct_cpi_hourly") { try connection.execute(SQLCatalog.text("marts/metrics/fct_cpi_hourly.sql")) }
    }

    /// The invariant checks of `sql/checks/` that return rows.
    public func failedChecks(_ connection: PostgresConnection) throws -> [String] {
        var failed: [String] = []
        for check in SQLCatalog.files(under: "checks") where try !connection.query(check.text).isEmpty {
            failed.append(check.path)
        }
        return failed
    }

    /// Runs one step and logs its time; returns what the step gives.
    @discardableResult
    func timed<Value>(_ step: String, _ body: () throws -> Value) rethrows -> Value {
        let started = Date()
        let value = try body()
        logger.debug("compute step done", metadata: [
            "compute.step": .string(step),
            "compute.seconds": .string(String(format: "%.3f", Date().timeIntervalSince(started))),
        ])
        return value
    }
}
