/// Messages about one input file, as the ingest queue stores them ("PATH: refused: why").
public enum FileMessage {
    /// The message without the file's path and "refused: " in front, for a line that already
    /// names the file and its status.
    public static func withoutPath(_ message: String, _ path: String) -> String {
        var text = message.hasPrefix(path + ": ") ? String(message.dropFirst(path.count + 2)) : message
        if text.hasPrefix("refused: ") { text.removeFirst("refused: ".count) }
        return text
    }
}
