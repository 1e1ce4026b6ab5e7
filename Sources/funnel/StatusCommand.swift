import ArgumentParser
import Foundation
import FunnelPipeline
import FunnelReports
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
