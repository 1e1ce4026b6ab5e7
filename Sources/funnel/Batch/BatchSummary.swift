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
