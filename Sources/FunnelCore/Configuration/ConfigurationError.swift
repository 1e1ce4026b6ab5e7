/// Why a configuration file was refused: where (file, line, key) and what was expected.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file, when the configuration came from one.
    public var file: String?
    /// The 1-based line, when known.
    public var line: Int?
    /// The key in dotted form (`regular_user.opens`, `funnels[2].order`), when the error is about one.
    public var key: String?
    /// What is wrong and what is expected.
    public var message: String

    public init(file: String? = nil, line: Int? = nil, key: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    static func syntax(line: Int, _ message: String) -> ConfigurationError {
        ConfigurationError(line: line, message: message)
    }

    /// The same error, naming the file it came from.
    public func inFile(_ path: String) -> ConfigurationError {
        var copy = self
        copy.file = path
        return copy
    }

    public var description: String {
        var location = file ?? "configuration"
        if let line { location += ":\(line)" }
        if let key { return "\(location): \(key): \(message)" }
        return "\(location): \(message)"
    }
}
