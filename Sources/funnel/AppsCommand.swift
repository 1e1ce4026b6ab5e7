import ArgumentParser
import Foundation
import FunnelPipeline
import PostgresClient

/// `funnel apps`: the apps a database holds, and deleting one.
struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List the apps the database holds, or delete one app's data.",
        subcommands: [List.self, Delete.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Every app with installs, ad spend or computed metrics.",
            discussion: "Per app: its installs and their first and last day (UTC), its ad spend rows, and what the last compute covered.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions
        @Flag(help: "Print one JSON document instead of the table.")
        var json = false

        func run() throws {
            let logger = logging.bootstrap(label: "funnel.apps")
            let (connection, _) = try database.connectMigrated(logger: logger)
            let apps = try KnownApp.list(connection)
            if json {
                try printJSON(apps)
                return
            }
            guard !apps.isEmpty else {
                print("No apps: nothing is loaded. Load files with 'funnel ingest FILE...'.")
                return
            }
            let rows = [["app", "installs", "first install", "last install", "ad spend rows", "computed through"]]
                + apps.map { app in
                    [app.app, String(app.installs), app.firstInstall ?? "-", app.lastInstall ?? "-",
                     String(app.spendRows), app.dataThroughDate ?? "not computed"]
                }
            let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                print(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                    .joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete every row of one app: its raw data, metrics and bookkeeping.",
            discussion: """
            In one transaction, holding the compute lock (exit 75 while a compute runs). The input \
            files whose rows were all the app's are forgotten, so ingesting them again loads them \
            again; files that also hold another app's rows stay recorded as loaded and are listed. \
            Asks for confirmation on a terminal; elsewhere (cron, scripts) it needs --yes.
            """)
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var logging: LoggingOptions
        @Argument(help: "The app_id to delete.")
        var app: String
        @Flag(help: "Delete without asking.")
        var yes = false
        @Flag(help: "Print one JSON document of what was deleted.")
        var json = false

        func run() throws {
            let logger = logging.bootstrap(label: "funnel.apps")
            let (connection, settings) = try database.connectMigrated(logger: logger)
            guard let known = try KnownApp.list(connection).first(where: { $0.app == app }) else {
                throw CommandFailure("no app \(app) in \(settings.redactedDescription); 'funnel apps list' lists the apps it holds")
            }
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw CommandFailure.usage("deleting \(app) needs --yes when not run on a terminal")
                }
                FileHandle.standardErrorWrite("Delete every row of \(app) (\(known.installs) installs) from \(settings.redactedDescription)? "
                    + "Type the app id to confirm: ")
                guard readLine()?.trimmingCharacters(in: .whitespaces) == app else {
                    throw CommandFailure("not confirmed: nothing was deleted")
                }
            }
            guard let outcome = try AppDeletion(app: app).run(connection) else {
                throw CommandFailure("a compute is running on this database; try again when it finishes", exitStatus: ExitStatus.busy)
            }
            if json {
                try printJSON(outcome)
                return
            }
            print("Deleted \(app): \(outcome.rowsDeleted) rows from \(outcome.tables.count) tables.")
            if !outcome.forgottenFiles.isEmpty {
                print("\(outcome.forgottenFiles.count) input file(s) forgotten: ingesting them again loads them again.")
            }
            if !outcome.sharedFiles.isEmpty {
                print("\(outcome.sharedFiles.count) input file(s) also hold other apps' rows and stay recorded as loaded:")
                for file in outcome.sharedFiles { print("  \(file.path ?? "file \(file.fileID)")") }
            }
        }
    }
}
