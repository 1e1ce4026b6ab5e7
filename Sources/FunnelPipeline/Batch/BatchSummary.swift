public import Foundation
public import FunnelCompute

/// What one `funnel run` did: printed with `--json`, and written as `run.json` into the report
/// folder (where the next run reads it to tell whether the reports are up to date).
public struct BatchSummary: Codable, Sendable {
    /// `completed`, `completed_with_errors` (a file was refused or failed), or `nothing_new`.
    public var status: String
    public var startedAt: Date
    public var finishedAt: Date?
    public var seconds: Double?
    public var inbox: String
    public var files: [File] = []
    /// Files left in the inbox for a later run because they were still being written.
    public var stillWriting: [String] = []
    public var totals = Totals()
    public var compute: ComputeSummary?
    /// The last compute run (`funnel.compute_runs.run_id`) the reports reflect.
    public var computeRunId: Int64?
    public var reportsDirectory: String?
    /// Why no report folder was written, when none was.
    public var reportsNote: String?
    /// The apps reported on: one folder each under `reportsDirectory` when there are several.
    public var apps: [String] = []
    /// The configuration the compute ran under, and the settings that changed since the last.
    public var configuration: Configuration?
    /// Steps retried after transient database errors.
    public var retries = 0

    public init(status: String, startedAt: Date, inbox: String) {
        self.status = status
        self.startedAt = startedAt
        self.inbox = inbox
    }

    public struct File: Codable, Sendable {
        public var path: String
        public var kind: String?
        public var status: String
        public var rowsLoaded: Int
        public var duplicates: Int
        public var rejected: Int
        public var message: String?
        public var archivedTo: String?
        /// Where a refused file was moved (its reason in `PATH.reason.txt`).
        public var quarantinedTo: String?
    }

    public struct Configuration: Codable, Sendable {
        /// The configuration file; nil for the built-in defaults.
        public var source: String?
        public var changes: [ConfigurationChange.Difference] = []
    }

    public struct Totals: Codable, Sendable {
        public var files = 0
        public var loaded = 0
        public var skipped = 0
        public var failed = 0
        public var rowsLoaded = 0
        public var duplicates = 0
        public var rejected = 0
    }
}
