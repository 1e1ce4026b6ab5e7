import Foundation
import FunnelIngest

/// Finds the files of the inbox that are ready to load: input files (hidden files and folders
/// skipped, as `funnel ingest` does) that are not still being written. A file counts as still
/// being written when it was modified in the last `settleSeconds`, or when its size or
/// modification time changes between two looks `recheckSeconds` apart. Files already loaded are
/// not filtered here: ingest recognises their content by checksum and skips them.
struct InboxScanner: Sendable {
    var inbox: URL
    /// Folders inside the inbox never taken from (the archive and reports when nested in it).
    var excluded: [URL]
    var settleSeconds: Double
    var recheckSeconds: Double

    struct Scan: Sendable, Equatable {
        var ready: [String]
        var stillWriting: [String]
    }

    private struct Look: Equatable {
        let size: Int64
        let modified: Date
    }

    func scan(now: () -> Date = Date.init) throws -> Scan {
        let excludedPaths = excluded.map { $0.standardizedFileURL.path + "/" }
        let candidates = try InputDiscovery.expand([inbox.path]).filter { path in
            let standard = URL(fileURLWithPath: path).standardizedFileURL.path
            return !excludedPaths.contains { standard.hasPrefix($0) }
        }
        guard !candidates.isEmpty else { return Scan(ready: [], stillWriting: []) }
        var first: [String: Look] = [:]
        var stillWriting: [String] = []
        for path in candidates {
            guard let look = Self.look(path) else { continue }
            if now().timeIntervalSince(look.modified) < settleSeconds {
                stillWriting.append(path)
            } else {
                first[path] = look
            }
        }
        if !first.isEmpty, recheckSeconds > 0 {
            Thread.sleep(forTimeInterval: recheckSeconds)
        }
        var ready: [String] = []
        for path in candidates where first[path] != nil {
            if Self.look(path) == first[path] {
                ready.append(path)
            } else {
                stillWriting.append(path)
            }
        }
        return Scan(ready: ready, stillWriting: stillWriting)
    }

    private static func look(_ path: String) -> Look? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = (attributes[.size] as? NSNumber)?.int64Value,
              let modified = attributes[.modificationDate] as? Date else { return nil }
        return Look(size: size, modified: modified)
    }
}
