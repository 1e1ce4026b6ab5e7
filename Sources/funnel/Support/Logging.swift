import ArgumentParser
import Foundation
import Logging

/// `--verbose` / `--quiet`, shared by every command.
struct LoggingOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Log more detail (debug level).")
    var verbose = false

    @Flag(name: .shortAndLong, help: "Log only warnings and errors.")
    var quiet = false

    /// Sets up logging once for the process and returns the command's logger.
    func bootstrap(label: String) -> Logger {
        let level: Logger.Level = verbose ? .debug : (quiet ? .warning : .info)
        LoggingBootstrap.once(level: level)
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}

enum LoggingBootstrap {
    private static let done = NSLock()
    nonisolated(unsafe) private static var isBootstrapped = false

    static func once(level: Logger.Level) {
        done.lock()
        defer { done.unlock() }
        guard !isBootstrapped else { return }
        isBootstrapped = true
        let structured = isatty(STDERR_FILENO) == 0
        LoggingSystem.bootstrap { label in
            var handler = StderrLogHandler(label: label, structured: structured)
            handler.logLevel = level
            return handler
        }
    }
}

/// Logs to standard error: short human lines on a terminal; one logfmt line per event
/// (`ts=... level=info msg="..." key=value`) otherwise, for journals and log shippers.
struct StderrLogHandler: LogHandler {
    let label: String
    let structured: Bool
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        for (key, value) in event.metadata ?? [:] { merged[key] = value }
        let line: String
        if structured {
            var parts = ["ts=\(Self.timestamp())", "level=\(event.level)", "msg=\(Self.quoted(event.message.description))"]
            for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
                parts.append("\(key)=\(Self.quoted(value.description))")
            }
            line = parts.joined(separator: " ")
        } else {
            let details = merged.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let prefix = event.level >= .warning ? "\(event.level): " : ""
            line = prefix + event.message.description + (details.isEmpty ? "" : " (\(details))")
        }
        if structured {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        } else {
            TerminalStatusLine.shared.printAbove(line)
        }
    }

    private static func timestamp() -> String {
        Date().formatted(.iso8601)
    }

    private static func quoted(_ text: String) -> String {
        if !text.isEmpty, !text.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }) {
            return text
        }
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\"\(escaped)\""
    }
}

/// The one status line a terminal shows at the bottom of stderr (the ingest progress). Log lines
/// are printed above it: the status line is cleared, the log line written whole, and the status
/// line drawn again, so the two never run into each other.
final class TerminalStatusLine: @unchecked Sendable {
    // Safe: `current` is only read and written while holding `lock`, which also orders the writes.
    static let shared = TerminalStatusLine()
    private let lock = NSLock()
    private var current: String?

    /// Shows `text` as the status line, replacing the previous one.
    func show(_ text: String) {
        lock.withLock {
            current = text
            FileHandle.standardError.write(Data("\r\u{1b}[2K\(text)".utf8))
        }
    }

    /// Removes the status line.
    func clear() {
        lock.withLock {
            if current != nil { FileHandle.standardError.write(Data("\r\u{1b}[2K".utf8)) }
            current = nil
        }
    }

    /// Writes a whole line above the status line.
    func printAbove(_ line: String) {
        lock.withLock {
            var text = line + "\n"
            if let current { text = "\r\u{1b}[2K" + text + current }
            FileHandle.standardError.write(Data(text.utf8))
        }
    }
}
