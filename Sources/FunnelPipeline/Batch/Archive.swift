import Foundation

/// Moves loaded input files out of the inbox into `ARCHIVE/YYYY-MM-DD/`, keeping their path
/// relative to the inbox; an existing name gets a numeric suffix, never overwritten.
struct Archive: Sendable {
    let root: URL
    let inbox: URL

    func move(_ path: String, at date: Date) throws -> String {
        let day = String(ReportFolders.folderName(for: date).prefix(10))
        let inboxPath = inbox.standardizedFileURL.path + "/"
        let standard = URL(fileURLWithPath: path).standardizedFileURL.path
        let relative = standard.hasPrefix(inboxPath) ? String(standard.dropFirst(inboxPath.count))
            : URL(fileURLWithPath: path).lastPathComponent
        var destination = root.appending(path: day).appending(path: relative)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        var counter = 1
        let original = destination
        while FileManager.default.fileExists(atPath: destination.path) {
            counter += 1
            destination = original.deletingLastPathComponent()
                .appending(path: "\(counter)-\(original.lastPathComponent)")
        }
        do {
            try FileManager.default.moveItem(atPath: path, toPath: destination.path)
        } catch {
            throw CommandFailure("cannot archive \(path) into \(destination.path): \(error.localizedDescription)")
        }
        return destination.path
    }
}
