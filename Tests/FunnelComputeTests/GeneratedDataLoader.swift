import Foundation
import FunnelIngest
import Logging
import PostgresClient

/// Loads a directory written by the generator exactly as `funnel ingest DIR` does: through the
/// real loader (validation, deduplication by event id, restatements, late files), so the tests
/// that check compute against truth.json also run the production load path.
enum GeneratedDataLoader {
    /// A generated file that did not load.
    struct LoadFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// Loads the generated files of `directory`, or only those of `kinds` (file names start with
    /// the kind) when given.
    static func load(directory: String, settings: ConnectionSettings, kinds: [String]? = nil) throws {
        let files = try InputDiscovery.expand([directory]).filter { path in
            guard let kinds else { return true }
            let name = (path as NSString).lastPathComponent
            return kinds.contains { name.hasPrefix($0 + "-") }
        }
        let reports = try IngestRun(settings: settings, kind: nil, assumeTimeZone: nil, workers: 2)
            .run(files: files, stop: StopFlag(), progress: IngestProgress(), logger: Logger(label: "test.ingest"))
        if let failed = reports.first(where: { $0.status != .loaded }) {
            throw LoadFailed(description: "\(failed.path): \(failed.status.rawValue) \(failed.message ?? "")")
        }
        try settings.connect().execute("analyze")
    }
}
