import Foundation
import FunnelCompute

/// What one `funnel run` did: printed with `--json`, and written as `run.json` into the report
/// folder (where the next run reads it to tell whether the reports are up to date).
struct BatchSummary: Codable, Sendable {
    /// `completed`, `completed_with_errors` (a file was refused or failed), or `nothing_new`.
    var status: String
    var startedAt: Date
    var finishedAt: Date?
    var seconds: Double?
    var inbox: String
    var files: [File] = []
    /// Files left in the inbox for a later run because they were still being written.
    var stillWriting: [String] = []
    var totals = Totals()
    var compute: ComputeSummary?
    /// The last compute run (`funnel.compute_runs.run_id`) the reports reflect.
    var computeRunId: Int64?
    var reportsDirectory: String?
    /// Why no report folder was written, when none was.
    var reportsNote: String?
    /// The apps reported on: one folder each under `reportsDirectory` when there are several.
    var apps: [String] = []
    /// The configuration the compute ran under, and the settings that changed since the last.
    var configuration: Configuration?
    /// Steps retried after transient database errors.
    var retries = 0

    struct File: Codable, Sendable {
        var path: String
        var kind: String?
        var status: String
        var rowsLoaded: Int
        var duplicates: Int
        var rejected: Int
        var message: String?
        var archivedTo: String?
        /// Where a refused file was moved (its reason in `PATH.reason.txt`).
        var quarantinedTo: String?
    }

    struct Configuration: Codable, Sendable {
        /// The configuration file; nil for the built-in defaults.
        var source: String?
        var changes: [ConfigurationChange.Difference] = []
    }

    struct Totals: Codable, Sendable {
        var files = 0
        var loaded = 0
        var skipped = 0
        var failed = 0
        var rowsLoaded = 0
        var duplicates = 0
        var rejected = 0
    }
}
