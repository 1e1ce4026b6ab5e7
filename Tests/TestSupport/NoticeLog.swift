import Foundation
public import Logging

/// Keeps what a logger was told (at debug level), for a test to read: the server's notices a
/// connection logs (their text), and every other event as its message followed by its metadata.
public final class NoticeLog: LogHandler, @unchecked Sendable {
    // Safe: the lock guards `lines`; `metadata` and `logLevel` keep their first values (nothing sets them).
    private let lock = NSLock()
    private var lines: [String] = []
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .debug

    public init() {}

    /// The lines logged so far.
    public var messages: [String] { lock.withLock { lines } }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let line: String
        if let notice = event.metadata?["db.notice"] {
            line = "\(notice)"
        } else {
            let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            line = ([event.message.description] + fields).joined(separator: " ")
        }
        lock.withLock { lines.append(line) }
    }
}
