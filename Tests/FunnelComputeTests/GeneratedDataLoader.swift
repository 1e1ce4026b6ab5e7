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

    static func load(directory: String, settings: ConnectionSettings) throws {
        let files = try InputDiscovery.expand([directory])
        let reports = try IngestRun(settings: settings, kind: nil, assumeTimeZone: nil, workers: 2)
            .run(files: files, stop: StopFlag(), progress: IngestProgress(), logger: Logger(label: "test.ingest"))
        if let failed = reports.first(where: { $0.status != .loaded }) {
            throw LoadFailed(description: "\(failed.path): \(failed.status.rawValue) \(failed.message ?? "")")
        }
        try settings.connect().execute("analyze")
    }
}
