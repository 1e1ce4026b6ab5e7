import ArgumentParser
import Foundation
import FunnelCompute
import FunnelSQL
import PostgresClient

/// `funnel status`: what the database holds and what it waits for.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "What is loaded per app and kind, the last file, the last compute and what waits for one.",
        discussion: """
        Per app and kind: the rows stored and the dates they span. Per kind: the files loaded, \
        the last one, files refused or still queued. Then the last compute (when, full or \
        incremental), what each app's data reaches, and what is waiting: loaded files no compute \
        has taken in yet ('funnel compute'), files queued or loading (a running ingest or worker). \
        Reads every raw table once: a look now and then, not for dashboards.
        """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    @Flag(help: "Print one JSON document instead of the human summary.")
    var json = false

    func run() throws {
        let logger = logging.bootstrap(label: "funnel.status")
        let (connection, settings) = try database.connectMigrated(logger: logger)
        let status = try DatabaseStatus.read(connection, database: settings.redactedDescription)
        if json {
            try printJSON(status)
        } else {
            print(status.human, terminator: "")
        }
    }
}

/// The `funnel status` document (docs/inputs.md, "What is loaded").
struct DatabaseStatus: Encodable {
    struct Loaded: Encodable {
        let kind: String
        let rows: Int64
        let firstDate: String?
        let lastDate: String?
    }

    struct App: Encodable {
        let app: String
        let loaded: [Loaded]
        /// The last date with data that compute has covered, and when it did; nil before a compute.
        let dataThroughDate: String?
        let computedAt: String?
    }

    struct Files: Encodable {
        let kind: String
        let status: String
        let files: Int64
        let rowsLoaded: Int64
        let lastPath: String?
        let lastAt: String?
        let lastMessage: String?
        let notComputed: Int64
    }

    struct Compute: Encodable {
        let finishedAt: String
        let mode: String
        let cohortDays: Int64
        let users: Int64
        let runs: Int64
    }

    let database: String
    let schema: String
    let apps: [App]
    let files: [Files]
    let lastCompute: Compute?
    /// What waits, in words, each with the command that deals with it; empty when up to date.
    let waitingFor: [String]

    static func read(_ connection: PostgresConnection, database: String) throws -> DatabaseStatus {
        let loaded = try connection.query(SQLCatalog.text("reports/status_loaded.sql")).map { row in
            (app: try row.decode(String.self, column: "app_id"),
             Loaded(kind: try row.decode(String.self, column: "kind"), rows: try row.decode(Int64.self, column: "rows"),
                    firstDate: try row.decode(String?.self, column: "first_date"), lastDate: try row.decode(String?.self, column: "last_date")))
        }
        var computed: [String: (String?, String?)] = [:]
        for row in try connection.query(SQLCatalog.text("reports/apps.sql")) {
            computed[try row.decode(String.self, column: "app_id")] = (try row.decode(String?.self, column: "data_through_date"),
                                                                         try row.decode(String?.self, column: "computed_at"))
        }
        let appIDs = (loaded.map(\.app) + computed.keys.sorted()).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let apps = appIDs.map { app in
            App(app: app, loaded: loaded.filter { $0.app == app }.map(\.1),
                dataThroughDate: computed[app]?.0, computedAt: computed[app]?.1)
        }
        let files = try connection.query(SQLCatalog.text("reports/status_files.sql")).map { row in
            Files(kind: try row.decode(String.self, column: "kind"), status: try row.decode(String.self, column: "status"),
                  files: try row.decode(Int64.self, column: "files"), rowsLoaded: try row.decode(Int64.self, column: "rows_loaded"),
                  lastPath: try row.decode(String?.self, column: "last_path"), lastAt: try row.decode(String?.self, column: "last_at"),
                  lastMessage: try row.decode(String?.self, column: "last_message"),
                  notComputed: try row.decode(Int64.self, column: "not_computed"))
        }
        let compute = try connection.query(SQLCatalog.text("reports/status_compute.sql")).rows.first.map { row in
            Compute(finishedAt: try row.decode(String.self, column: "finished_at"), mode: try row.decode(String.self, column: "mode"),
                    cohortDays: try row.decode(Int64.self, column: "cohort_days"), users: try row.decode(Int64.self, column: "users"),
                    runs: try row.decode(Int64.self, column: "runs"))
        }
        let pending = try connection.query(SQLCatalog.text("compute/pending_work.sql"), [PostgresDate?.none, PostgresDate?.none])
            .rows.first?.decode(Bool.self, at: 0) ?? false
        var waiting: [String] = []
        let notComputed = files.reduce(0) { $0 + $1.notComputed }
        if notComputed > 0 {
            waiting.append("\(notComputed) loaded file(s) not computed yet: run 'funnel compute'")
        } else if pending {
            waiting.append("loaded rows not computed yet: run 'funnel compute'")
        }
        let inFlight = files.filter { $0.status == "queued" || $0.status == "loading" }.reduce(0) { $0 + $1.files }
        if inFlight > 0 {
            waiting.append("\(inFlight) file(s) queued or loading: a running 'funnel ingest' or 'funnel worker' finishes them")
        }
        if apps.isEmpty, files.isEmpty {
            waiting.append("files: nothing is loaded yet; 'funnel ingest DIR' loads your exports (docs/inputs.md)")
        }
        return DatabaseStatus(database: database, schema: Migrator().migrations.last?.name ?? "", apps: apps, files: files,
                              lastCompute: compute, waitingFor: waiting)
    }

    /// The human summary.
    var human: String {
        var lines = ["database: \(database) (schema \(schema))"]
        for app in apps {
            lines.append("")
            lines.append("app \(app.app)" + (app.dataThroughDate.map { ": computed through \($0)" + (app.computedAt.map { " (at \($0))" } ?? "") }
                ?? ": not computed yet"))
            let width = max(9, app.loaded.map(\.kind.count).max() ?? 0)
            for kind in app.loaded {
                lines.append("  " + kind.kind.padding(toLength: width, withPad: " ", startingAt: 0)
                    + " " + ConfigurationChange.grouped(kind.rows).leftPadded(to: 12) + " rows  "
                    + "\(kind.firstDate ?? "-") .. \(kind.lastDate ?? "-")")
            }
        }
        if !files.isEmpty {
            lines.append("")
            lines.append("files:")
            for group in files {
                var line = "  \(group.kind) \(group.status): \(group.files) file(s)"
                if let path = group.lastPath { line += ", last \(path)" + (group.lastAt.map { " at \($0)" } ?? "") }
                if group.status == "refused" || group.status == "failed", let message = group.lastMessage {
                    line += ": " + RunCommand.withoutPath(message, group.lastPath ?? "")
                }
                lines.append(line)
            }
        }
        lines.append("")
        if let compute = lastCompute {
            lines.append("last compute: \(compute.finishedAt), \(compute.mode), \(compute.cohortDays) cohort day(s) and "
                + "\(ConfigurationChange.grouped(compute.users)) user(s) rebuilt (\(compute.runs) run(s) in all)")
        } else {
            lines.append("last compute: none yet")
        }
        lines.append(waitingFor.isEmpty ? "waiting for: nothing, the metrics are up to date" : "waiting for:")
        for item in waitingFor { lines.append("  \(item)") }
        return lines.joined(separator: "\n") + "\n"
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
