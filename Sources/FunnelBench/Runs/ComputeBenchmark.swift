import Foundation
import FunnelCompute
import FunnelCore
import FunnelSQL
public import Logging
public import PostgresClient

/// `funnel bench compute`: a full rebuild, one added day, and reading every mart, on synthetic
/// raw rows (`SyntheticData`), with one plain scan of the largest table for scale; and the LTV
/// projection's parts on the computed data.
public struct ComputeBenchmark {
    public var users: Int
    public var days: Int
    public var keep: Bool

    public init(users: Int, days: Int, keep: Bool) {
        self.users = users
        self.days = days
        self.keep = keep
    }

    /// Runs the benchmark in a scratch database beside the one `connect` reaches.
    public func run(logger: Logger, connect: () throws -> (PostgresConnection, ConnectionSettings)) throws {
        let (admin, settings) = try connect()
        let name = "funnel_bench_compute_\(ProcessInfo.processInfo.processIdentifier)"
        try admin.execute("create database \(try admin.quoteIdentifier(name))")
        defer {
            if !keep { _ = try? admin.execute("drop database if exists \(try admin.quoteIdentifier(name)) with (force)") }
        }
        let scratch = ConnectionSettings(conninfo: ScratchDatabase.conninfo(settings.conninfo, database: name),
                                         searchPath: FunnelSchema.searchPath)
        let connection = try scratch.connect(logger: logger)
        try Migrator().migrate(connection, logger: logger)
        let app = "bench"
        let firstDay = "2024-01-01"
        let history = days - 1
        let historyUsers = users * history / days

        print("generating \(historyUsers) users over \(history) days (set-based SQL)...")
        var started = Date()
        let historyFile = try SyntheticData.registerFile(connection, name: "bench/history.csv")
        let events = try SyntheticData.insert(into: connection, app: app, users: historyUsers, firstDay: firstDay,
                                              days: history, seed: 1, fileID: historyFile)
        try connection.execute("analyze")
        print(String(format: "  %d raw rows in %.1f s", events, Date().timeIntervalSince(started)))

        started = Date()
        let scan = try connection.query("select count(*), count(distinct user_id) from raw_opens")
        let scanSeconds = Date().timeIntervalSince(started)
        print(String(format: "baseline scan:      %7.2f s  (select count(*), count(distinct user_id) from raw_opens: %d rows)",
                     scanSeconds, try scan.scalar(Int.self)))

        let engine = ComputeEngine(configuration: FunnelConfiguration(), logger: logger)
        let computeConnection = try scratch.connect(logger: logger)
        started = Date()
        let full = try engine.run(computeConnection, options: ComputeOptions(full: true, waitForLock: true))!
        let fullSeconds = Date().timeIntervalSince(started)
        print(String(format: "full rebuild:       %7.2f s  (%d cohort days, %d users; %.1f baseline scans)", fullSeconds,
                     full.cohortDaysRebuilt, full.usersRebuilt, fullSeconds / scanSeconds))

        started = Date()
        try connection.execute("vacuum analyze")
        let prepared = ScratchDatabase.checkpointAfterPreparation(connection)
        print(String(format: "  vacuum analyze:   %7.2f s  (untimed, %@ after a rebuild, before the next day)",
                     Date().timeIntervalSince(started), prepared))

        let newDay = try connection.query("select ($1::date + $2::integer)::text", [firstDay, history]).scalar(String.self)
        started = Date()
        let dayFile = try SyntheticData.registerFile(connection, name: "bench/\(newDay).csv")
        let added = try SyntheticData.insert(into: connection, app: app, users: users - historyUsers, firstDay: newDay,
                                             days: 1, seed: 2, fileID: dayFile)
        print(String(format: "  added day %@: %d raw rows in one loaded file (%.1f s to write)", newDay, added,
                     Date().timeIntervalSince(started)))
        started = Date()
        let incremental = try engine.run(computeConnection, options: ComputeOptions(waitForLock: true))!
        let incrementalSeconds = Date().timeIntervalSince(started)
        print(String(format: "add one day:        %7.2f s  (%d cohort days rebuilt, %d users; %.1f%% of full, target < 10%%; %.1f baseline scans)",
                     incrementalSeconds, incremental.cohortDaysRebuilt, incremental.usersRebuilt,
                     100 * incrementalSeconds / fullSeconds, incrementalSeconds / scanSeconds))

        try benchLTVProjection(connection, app: app)

        let marts = ["fct_funnel", "fct_funnel_top", "fct_retention", "fct_retention_summary", "fct_retention_brackets",
                     "fct_regular_users", "fct_ltv", "fct_ltv_models", "fct_ltv_backtest", "fct_ltv_projection", "fct_cpi",
                     "fct_kfactor", "fct_networks"]
        var rows = 0
        started = Date()
        for mart in marts {
            rows += try connection.query("select * from \(mart)").count
        }
        let readSeconds = Date().timeIntervalSince(started)
        print(String(format: "read every mart:    %7.1f ms (%d rows in %d marts, target < 200 ms)",
                     readSeconds * 1000, rows, marts.count))
        if !incremental.failedChecks.isEmpty {
            print("warning: checks with offending rows: \(incremental.failedChecks.joined(separator: ", "))")
        }
    }

    /// Times the LTV projection's parts on the computed data: reading the triangles and every
    /// buyer's purchase days, grouping every install's history, the per-user BG/NBD fit on the
    /// grouped rows (beside one likelihood evaluation on the grouped rows and on one row per
    /// user, the baseline the grouping saves), the Gamma-Gamma spend fit on the buyers' grouped
    /// mean spends (beside one evaluation on one row per buyer), and the whole back-test.
    func benchLTVProjection(_ connection: PostgresConnection, app: String) throws {
        var started = Date()
        let triangles = try LTVTriangles.load(connection)
        let loadSeconds = Date().timeIntervalSince(started)
        guard let networks = triangles.byApp[app], let all = networks["all"] else {
            print("LTV projection: no cohorts")
            return
        }
        started = Date()
        let histories = PurchaseModelProjection.histories(all)
        let groupSeconds = Date().timeIntervalSince(started)
        let installs = all.installs
        let buyers = histories.reduce(0) { $0 + $1.weight }
        started = Date()
        let fit = BGNBD.fit(histories, minimiser: NelderMead(maximumEvaluations: 4_000, maximumRestarts: 3))
        let fitSeconds = Date().timeIntervalSince(started)
        guard let fit else {
            print("per-user BG/NBD fit: no fit (no buyers)")
            return
        }
        let ungrouped = histories.flatMap { row in
            Array(repeating: WeightedPurchaseHistory(history: row.history), count: Int(row.weight))
        }
        started = Date()
        _ = fit.model.logLikelihood(histories)
        let groupedEvaluation = Date().timeIntervalSince(started)
        started = Date()
        _ = fit.model.logLikelihood(ungrouped)
        let ungroupedEvaluation = Date().timeIntervalSince(started)
        print(String(format: "per-user BG/NBD:    %7.2f s  (fit on %.0f installs, %.0f buyers, as %d grouped histories: "
                     + "%d likelihood evaluations; triangles and purchase days read in %.2f s, grouped in %.2f s)",
                     fitSeconds, installs, buyers, histories.count, fit.optimizer.evaluations, loadSeconds, groupSeconds))
        print(String(format: "  one likelihood evaluation: %.2f ms grouped, baseline %.2f ms on one row per install "
                     + "(%.0fx); the fit ungrouped would take about %.0f s",
                     groupedEvaluation * 1000, ungroupedEvaluation * 1000, ungroupedEvaluation / max(groupedEvaluation, 1e-9),
                     ungroupedEvaluation * Double(fit.optimizer.evaluations)))
        started = Date()
        let spendData = PurchaseModelProjection.spendHistories(all)
        let spend = PurchaseModelProjection.fitSpend(all)
        let spendSeconds = Date().timeIntervalSince(started)
        if let spend {
            let perBuyer = spendData.flatMap { Array(repeating: SpendHistory(x: $0.x, meanSpend: $0.meanSpend), count: Int($0.weight)) }
            started = Date()
            _ = spend.logLikelihood(spendData)
            let groupedSpend = Date().timeIntervalSince(started)
            started = Date()
            _ = spend.logLikelihood(perBuyer)
            let perBuyerSpend = Date().timeIntervalSince(started)
            print(String(format: "Gamma-Gamma spend:  %7.2f s  (grouped and fitted on %d buyers as %d rows: p = %.3g, q = %.3g, "
                         + "gamma = %.3g, mean $%.2f per purchase day; one evaluation %.2f ms grouped, %.2f ms on one row per buyer)",
                         spendSeconds, perBuyer.count, spendData.count, spend.p, spend.q, spend.gamma, spend.meanSpend,
                         groupedSpend * 1000, perBuyerSpend * 1000))
        } else {
            print("Gamma-Gamma spend: no fit (fewer than \(PurchaseModelProjection.minimumSpendBuyers) buyers with revenue)")
        }
        started = Date()
        let outcome = LTVBacktest.run(networks: networks, horizons: FunnelConfiguration().ltvHorizons)
        print(String(format: "LTV back-test:      %7.2f s  (%d methods, %d held-out projections over %d networks; chosen: %@)",
                     Date().timeIntervalSince(started), LTVMethod.allCases.count, outcome.points.count, networks.count,
                     outcome.chosen?.rawValue ?? "none"))
    }
}
