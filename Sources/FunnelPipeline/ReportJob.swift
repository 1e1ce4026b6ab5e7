public import Foundation
public import FunnelReports
public import PostgresClient

/// The report step as `funnel report`, `funnel run` and `funnel demo` take it: which apps to
/// report on, the report read from the marts, and the files written in every format asked for
/// (one folder per app when there are several). A missing schema becomes a message naming what
/// to run.
public enum ReportJob {
    /// The apps to report on: the one asked for (a usage error naming the apps there are when it
    /// has no data), else every app with computed data, most installs first.
    public static func apps(for app: String?, connection: PostgresConnection) throws -> [String] {
        let known: [String]
        do {
            known = try ReportReader(connection: connection).apps()
        } catch let error as PostgresError where error.sqlState == "42P01" || error.sqlState == "3F000" {
            throw CommandFailure("the schema is missing or out of date (\(error.message)); run 'funnel migrate'")
        }
        guard let app else { return known }
        guard known.contains(app) else {
            throw CommandFailure.usage("--app \(app): no computed data for this app; "
                + (known.isEmpty ? "no app has computed data yet (funnel ingest, then funnel compute)" : "apps with data: \(known.joined(separator: ", "))"))
        }
        return [app]
    }

    /// Writes the reports of `apps` into `directory`: the files themselves for one app (or none:
    /// the zero state), one folder per app (named by its id) for several.
    public static func writeEveryApp(_ apps: [String], request: ReportRequest, formats: [ReportFormat], to directory: URL,
                                     connection: PostgresConnection) throws -> [URL] {
        guard apps.count > 1 else {
            var one = request
            one.app = apps.first ?? request.app
            return try write(try read(one, connection: connection), formats: formats, to: directory.path)
        }
        var written: [URL] = []
        for app in apps {
            var one = request
            one.app = app
            written += try write(try read(one, connection: connection), formats: formats,
                                 to: directory.appending(path: folderName(app)).path)
        }
        return written
    }

    /// A folder name for an app id: its letters, digits, dots, dashes and underscores.
    public static func folderName(_ app: String) -> String {
        let kept = String(app.map { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) ? $0 : "_" })
        return kept.isEmpty || kept.hasPrefix(".") ? "app-" + kept : kept
    }

    /// Reads the report, mapping a missing schema to a message that says what to run.
    public static func read(_ request: ReportRequest, connection: PostgresConnection) throws -> Report {
        do {
            return try ReportReader(connection: connection).read(request)
        } catch let error as PostgresError where error.sqlState == "42P01" || error.sqlState == "3F000" {
            throw CommandFailure("the schema is missing or out of date (\(error.message)); run 'funnel migrate', "
                + "then 'funnel ingest DIR' and 'funnel compute'")
        }
    }

    /// Writes one report in `formats` into `directory` (created if missing).
    public static func write(_ report: Report, formats: [ReportFormat], to directory: String) throws -> [URL] {
        do {
            return try ReportWriter.write(report, formats: formats, to: URL(fileURLWithPath: directory))
        } catch let error as CocoaError {
            throw CommandFailure("cannot write the reports into \(directory): \(error.localizedDescription)")
        }
    }
}
