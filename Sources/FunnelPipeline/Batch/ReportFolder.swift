public import Foundation
import FunnelReports
public import PostgresClient

/// Writes the reports of one `funnel run` into the dated folder it is given. The CLI supplies
/// it, so the batch job does not depend on how reports are made.
public protocol RunReportWriter: Sendable {
    func writeReports(into directory: URL, summary: BatchSummary) throws
}

/// The report step of `funnel run`: every report format (as `funnel report --format
/// text,csv,html,json` writes them; one folder per app when there are several) and `run.json`,
/// the run's summary (what was loaded, what compute did).
public struct FullReportWriter: RunReportWriter {
    public let settings: ConnectionSettings

    public init(settings: ConnectionSettings) {
        self.settings = settings
    }

    public func writeReports(into directory: URL, summary: BatchSummary) throws {
        let connection = try settings.connect()
        _ = try ReportJob.writeEveryApp(summary.apps, request: ReportRequest(), formats: ReportFormat.allCases,
                                            to: directory, connection: connection)
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(summary).write(to: directory.appending(path: "run.json"), options: .atomic)
    }
}

/// `REPORTS/YYYY-MM-DD-HHMMSS/` folders and the `REPORTS/latest` symlink. A folder is written
/// under a hidden temporary name and renamed into place when complete, then `latest` is
/// repointed by renaming a new symlink over it: readers never see a half-written folder or a
/// missing `latest`.
struct ReportFolders: Sendable {
    let root: URL

    var latest: URL { root.appending(path: "latest") }

    static func folderName(for date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02d-%02d%02d%02d", parts.year!, parts.month!, parts.day!,
                      parts.hour!, parts.minute!, parts.second!)
    }

    /// Writes a new dated folder with `write` and makes it `latest`; returns its URL.
    func publish(at date: Date, _ write: (_ partial: URL, _ final: URL) throws -> Void) throws -> URL {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var name = Self.folderName(for: date)
        var suffix = 1
        while FileManager.default.fileExists(atPath: root.appending(path: name).path) {
            suffix += 1
            name = Self.folderName(for: date) + "-\(suffix)"
        }
        let partial = root.appending(path: ".partial-\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: partial)
        try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
        let final = root.appending(path: name)
        do {
            try write(partial, final)
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
        try Self.rename(partial, to: final)
        let link = root.appending(path: ".latest-\(getpid())")
        try? FileManager.default.removeItem(at: link)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: name)
        try Self.rename(link, to: latest)
        return final
    }

    /// The `run.json` of the folder `latest` points to, if there is one.
    func latestSummary() -> BatchSummary? {
        guard let data = try? Data(contentsOf: latest.appending(path: "run.json")) else { return nil }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(BatchSummary.self, from: data)
    }

    /// `.current-through`: the last compute run `latest` is known to reflect, when a later run's
    /// compute found nothing new and so published nothing.
    var currentThroughFile: URL { root.appending(path: ".current-through") }

    /// The last compute run (`compute_runs.run_id`) whose numbers `latest` shows; nil without a
    /// `latest`.
    func currentThrough() -> Int64? {
        guard let latest = latestSummary() else { return nil }
        let marked = (try? String(contentsOf: currentThroughFile, encoding: .utf8))
            .flatMap { Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return max(latest.computeRunId ?? -1, marked ?? -1)
    }

    /// Records that `latest` still shows the numbers of compute run `runID` (it computed nothing new).
    func markCurrent(through runID: Int64) throws {
        try Data("\(runID)\n".utf8).write(to: currentThroughFile, options: .atomic)
    }

    /// Removes partial folders and links that a killed run left behind.
    func removeLeftovers() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else { return }
        for name in names where name.hasPrefix(".partial-") || name.hasPrefix(".latest-") {
            try? FileManager.default.removeItem(at: root.appending(path: name))
        }
    }

    /// rename(2): atomic, and replaces a symlink (not a directory) at the destination.
    static func rename(_ source: URL, to destination: URL) throws {
        guard Foundation.rename(source.path, destination.path) == 0 else {
            throw CommandFailure("cannot rename \(source.path) to \(destination.path): \(String(cString: strerror(errno)))")
        }
    }
}
