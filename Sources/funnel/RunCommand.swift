import ArgumentParser
import Foundation
import FunnelCompute
import FunnelCore
import FunnelIngest
import FunnelPipeline
import PostgresClient

/// `funnel run`: the scheduled batch job (cron, systemd timer).
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "The scheduled batch job: ingest what is new in the inbox, compute, write the reports.",
        discussion: """
        Takes the input files of --inbox that are new (hidden files are skipped; a file modified \
        in the last --settle-seconds, or whose size changes while it is looked at, is still being \
        written and left for the next run; content already loaded is recognised by checksum), \
        loads them, brings the metrics up to date incrementally (the telemetry files load beside \
        the metrics, on a second connection that then brings the onboarding friction up to date), \
        writes the reports into \
        REPORTS/YYYY-MM-DD-HHMMSS/ and repoints REPORTS/latest to it, then moves the loaded files \
        into ARCHIVE/YYYY-MM-DD/ when --archive is given. The schema is migrated first. A report \
        is written only when something was computed (files still being copied in publish \
        nothing). Every app gets its report: one folder per app when there are several (--app \
        picks one). A refused file (not what it claims to be, or with more of its rows rejected \
        than --max-reject-share allows, such as timestamps without a zone) is moved to \
        QUARANTINE/YYYY-MM-DD/ with NAME.reason.txt beside it, and the run goes on with the \
        others; fix the file or the options ([ingest] in funnel.toml, or the options below) and \
        put it back into the inbox. The files are read as funnel ingest reads them, with the \
        same options and the same [ingest] settings of the configuration file.

        Safe under cron: a PostgreSQL advisory lock lets one run at a time per database; a run \
        killed anywhere is completed by the next one; transient database errors (connection lost, \
        server restarting) are retried after 1, 2, 4, 8 s ... for up to --retry-for seconds. When \
        nothing is new and the reports are current, the run exits at once saying so.

        Exit status: 0 done (also when nothing was new), 1 the job failed or is incomplete (a \
        file was refused, quarantined or failed to load, even when the others were loaded, \
        computed and reported; or the database stayed unreachable), 2 usage error, 75 another \
        run holds the lock (nothing was done; the next scheduled run takes over).
        """
    )

    @Option(help: ArgumentHelp("Directory the input files arrive in.", valueName: "dir"))
    var inbox: String

    @Option(help: ArgumentHelp("Directory of the dated report folders and the `latest` link.", valueName: "dir"))
    var reports: String

    @Option(help: ArgumentHelp("Move loaded files here, into dated subfolders (default: leave them in the inbox).", valueName: "dir"))
    var archive: String?

    @Option(help: ArgumentHelp("Move refused files here, into dated subfolders, each with NAME.reason.txt beside it (default: INBOX/quarantine).", valueName: "dir"))
    var quarantine: String?

    @Option(help: ArgumentHelp("Report on this app only (default: every app with data; one folder each when there are several).", valueName: "app-id"))
    var app: String?

    @Option(name: .customLong("settle-seconds"), help: ArgumentHelp("A file modified less than this long ago is still being written.", valueName: "seconds"))
    var settleSeconds: Double = 10

    @Option(name: .customLong("recheck-seconds"), help: ArgumentHelp("Pause between the two looks at each file's size.", valueName: "seconds"))
    var recheckSeconds: Double = 1

    @Option(name: .customLong("retry-for"), help: ArgumentHelp("Keep retrying transient database errors for up to this long per step.", valueName: "seconds"))
    var retryFor: Double = 60

    @Option(help: "Parallel ingest workers, each with its own database connection.")
    var workers = 2

    @Option(help: ArgumentHelp("Seconds a worker's claim on a file lasts without renewal; a killed run's file is taken over after it.", valueName: "seconds"))
    var lease: Double = 60

    @Option(help: ArgumentHelp("Configuration file (TOML), as for funnel compute.", valueName: "file"))
    var config: String?

    @Flag(help: "Print one JSON document instead of the human summary.")
    var json = false

    @Flag(help: "Load again the files already loaded with rejected rows, with the current options: what they stored is not stored twice.")
    var retry = false

    @OptionGroup var reading: FileReadingOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: inbox, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--inbox \(inbox): no such directory")
        }
        guard settleSeconds >= 0, recheckSeconds >= 0 else { throw ValidationError("--settle-seconds and --recheck-seconds must not be negative") }
        guard retryFor >= 0 else { throw ValidationError("--retry-for must not be negative") }
        guard workers >= 1, workers <= 64 else { throw ValidationError("--workers must be between 1 and 64") }
        guard lease >= 1 else { throw ValidationError("--lease must be at least 1 second") }
    }

    func run() throws {
        let logger = logging.bootstrap(label: "funnel.run")
        let configuration = try ConfigurationInForce.load(path: config)
        let settings = try database.settings(logger: logger)
        var options = BatchOptions(
            inbox: URL(fileURLWithPath: inbox), reports: URL(fileURLWithPath: reports),
            archive: archive.map { URL(fileURLWithPath: $0) },
            quarantine: URL(fileURLWithPath: quarantine ?? URL(fileURLWithPath: inbox).appending(path: "quarantine").path),
            app: app, settleSeconds: settleSeconds,
            recheckSeconds: recheckSeconds, workers: workers, leaseSeconds: lease,
            retry: RetryPolicy(totalSeconds: retryFor))
        options.reading = reading.reading(configuration.configuration.ingest)
        options.kind = reading.eventKind
        options.assumeTimeZone = reading.assumeTimeZone
        options.expansion = reading.expansion.limit(configuration.configuration.ingest)
        options.retryRejected = retry
        let stop = StopFlag()
        let signals = SignalWatcher(stop: stop, logger: logger)
        defer { signals.cancel() }
        let runner = BatchRunner(settings: settings, options: options, configuration: configuration,
                                 reportWriter: FullReportWriter(settings: settings), stop: stop, logger: logger)
        let summary = try runner.run()
        if json {
            try printJSON(summary)
        } else {
            printHuman(summary)
        }
        if summary.totals.failed > 0 { throw ExitCode(ExitStatus.failure) }
    }

    private func printHuman(_ summary: BatchSummary) {
        let waiting = summary.stillWriting.isEmpty ? "" : " (\(summary.stillWriting.count) file(s) still being written, left for the next run)"
        if summary.status == "nothing_new" {
            print("nothing new in \(summary.inbox): " + (summary.reportsNote.map { $0.replacingOccurrences(of: "no report written: ", with: "") }
                ?? "reports are up to date") + waiting)
            return
        }
        for file in summary.files {
            var line = "\(file.path)  \(file.status)"
            if file.status == "loaded" {
                line += " \(file.rowsLoaded) rows, \(file.duplicates) duplicates, \(file.rejected) rejected"
                if let message = file.message { line += " (note: \(message))" }
            } else if let message = file.message {
                line += ": " + FileMessage.withoutPath(message, file.path)
            }
            if let quarantined = file.quarantinedTo {
                line += "\n  moved to \(quarantined) (the reason beside it, in \(URL(fileURLWithPath: quarantined).lastPathComponent).reason.txt)"
            }
            print(line)
        }
        let totals = summary.totals
        print("run \(summary.status): \(totals.loaded) file(s) loaded, \(totals.skipped) already loaded, \(totals.failed) not loaded; "
            + "\(totals.rowsLoaded) rows" + (summary.stillWriting.isEmpty ? "" : "; \(summary.stillWriting.count) file(s) still being written"))
        if let compute = summary.compute {
            print("compute \(compute.mode): \(compute.cohortDaysRebuilt) cohort day(s) rebuilt")
        }
        if let directory = summary.reportsDirectory {
            print("reports: \(directory) (latest: \(URL(fileURLWithPath: reports).appending(path: "latest").path))"
                + (summary.apps.count > 1 ? "; one folder per app: \(summary.apps.map(ReportJob.folderName).joined(separator: ", "))" : ""))
        } else if let note = summary.reportsNote {
            print(note)
        }
    }
}
