import Foundation
public import FunnelCore
import FunnelSQL
public import PostgresClient

/// The `funnel status` document (docs/inputs.md, "What is loaded").
public struct DatabaseStatus: Encodable, Sendable {
    public struct Loaded: Encodable, Sendable {
        public let kind: String
        public let rows: Int64
        public let firstDate: String?
        public let lastDate: String?
    }

    /// People known by a device (docs/inputs.md, "Users, devices and identity").
    public struct Identity: Encodable, Sendable {
        /// People whose rows name a device and never a user id (yet): each counts as one user.
        public let deviceOnlyUsers: Int64
        /// Devices tied to a user id, whose rows count for that user.
        public let linkedDevices: Int64
    }

    public struct App: Encodable, Sendable {
        public let app: String
        public let loaded: [Loaded]
        /// Nil for an app whose rows name no device.
        public let identity: Identity?
        /// The last date with data that compute has covered, and when it did; nil before a compute.
        public let dataThroughDate: String?
        public let computedAt: String?
        /// Money the last compute could not convert to USD (no rate on its date), left out of the metrics.
        public let unconverted: [UnconvertedMoney]
    }

    public struct Files: Encodable, Sendable {
        public let kind: String
        public let status: String
        public let files: Int64
        public let rowsLoaded: Int64
        public let lastPath: String?
        public let lastAt: String?
        public let lastMessage: String?
        public let notComputed: Int64
    }

    public struct Compute: Encodable, Sendable {
        public let finishedAt: String
        public let mode: String
        public let cohortDays: Int64
        public let users: Int64
        public let runs: Int64
    }

    public let database: String
    public let schema: String
    public let apps: [App]
    public let files: [Files]
    public let lastCompute: Compute?
    /// What waits, in words, each with the command that deals with it; empty when up to date.
    public let waitingFor: [String]

    /// Reads the status. `schema` is the newest migration the binary carries; `pendingWork` tells
    /// whether loaded rows wait for a compute (the compute ledger knows).
    public static func read(_ connection: PostgresConnection, database: String, schema: String,
                            pendingWork pending: Bool) throws -> DatabaseStatus {
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
        var identities: [String: Identity] = [:]
        for row in try connection.query(SQLCatalog.text("reports/status_identity.sql")) {
            identities[try row.decode(String.self, column: "app_id")] = Identity(
                deviceOnlyUsers: try row.decode(Int64.self, column: "device_only_users"),
                linkedDevices: try row.decode(Int64.self, column: "linked_devices"))
        }
        let unconverted = try connection.query(SQLCatalog.text("reports/money_unconverted.sql"), [String?.none]).rows.map { row in
            try UnconvertedMoney(decoding: { try row.decode(String.self, column: $0) })
        }
        let appIDs = (loaded.map(\.app) + computed.keys.sorted()).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let apps = appIDs.map { app in
            App(app: app, loaded: loaded.filter { $0.app == app }.map(\.1), identity: identities[app],
                dataThroughDate: computed[app]?.0, computedAt: computed[app]?.1,
                unconverted: unconverted.filter { $0.appID == app })
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
        return DatabaseStatus(database: database, schema: schema, apps: apps, files: files,
                              lastCompute: compute, waitingFor: waiting)
    }

    /// The human summary.
    public var human: String {
        var lines = ["database: \(database) (schema \(schema))"]
        for app in apps {
            lines.append("")
            lines.append("app \(app.app)" + (app.dataThroughDate.map { ": computed through \($0)" + (app.computedAt.map { " (at \($0))" } ?? "") }
                ?? ": not computed yet"))
            let width = max(9, app.loaded.map(\.kind.count).max() ?? 0)
            for kind in app.loaded {
                lines.append("  " + kind.kind.padding(toLength: width, withPad: " ", startingAt: 0)
                    + " " + Formatting.grouped(Int(kind.rows)).leftPadded(to: 12) + " rows  "
                    + "\(kind.firstDate ?? "-") .. \(kind.lastDate ?? "-")")
            }
            if let identity = app.identity {
                lines.append("  devices: \(Formatting.grouped(Int(identity.deviceOnlyUsers))) user(s) known by a device alone, "
                    + "\(Formatting.grouped(Int(identity.linkedDevices))) device(s) linked to a user id")
            }
            for money in app.unconverted {
                lines.append("  not converted to USD: \(money.notice)")
            }
        }
        if !files.isEmpty {
            lines.append("")
            lines.append("files:")
            for group in files {
                var line = "  \(group.kind) \(group.status): \(group.files) file(s)"
                if let path = group.lastPath { line += ", last \(path)" + (group.lastAt.map { " at \($0)" } ?? "") }
                if group.status == "refused" || group.status == "failed", let message = group.lastMessage {
                    line += ": " + FileMessage.withoutPath(message, group.lastPath ?? "")
                }
                lines.append(line)
            }
        }
        lines.append("")
        if let compute = lastCompute {
            lines.append("last compute: \(compute.finishedAt), \(compute.mode), \(compute.cohortDays) cohort day(s) and "
                + "\(Formatting.grouped(Int(compute.users))) user(s) rebuilt (\(compute.runs) run(s) in all)")
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
