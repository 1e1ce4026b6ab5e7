import Foundation

/// Every problem found in a configuration file, in file order, so one edit fixes them all.
public struct ConfigurationErrors: Error, Sendable, Equatable, CustomStringConvertible {
    public var errors: [ConfigurationError]

    public var description: String {
        guard errors.count > 1 else { return errors.first?.description ?? "configuration: invalid" }
        return "\(errors.count) problems in the configuration:\n" + errors.map { "  \($0)" }.joined(separator: "\n")
    }
}

extension FunnelConfiguration {
    /// Reads a configuration file and reports every problem in it at once (the parser stops at
    /// the first): each time a line is refused, it is set aside and the rest is read again.
    /// A refused table header sets its whole table aside.
    public static func loadReportingAll(path: String) throws(ConfigurationErrors) -> FunnelConfiguration {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationErrors(errors: [ConfigurationError(file: path, message: "cannot read the configuration file (\(error.localizedDescription))")])
        }
        do {
            return try parseReportingAll(toml: text)
        } catch {
            throw ConfigurationErrors(errors: error.errors.map { $0.inFile(path) })
        }
    }

    /// Parses configuration text, reporting every problem at once.
    public static func parseReportingAll(toml text: String) throws(ConfigurationErrors) -> FunnelConfiguration {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var errors: [ConfigurationError] = []
        var setAside = Set<Int>()
        while true {
            do {
                let configuration = try FunnelConfiguration(toml: lines.joined(separator: "\n"))
                if errors.isEmpty { return configuration }
                break
            } catch {
                // An error without a line (a rule across keys), or on a line already set aside
                // (a consequence of setting it aside), ends the search.
                guard let line = error.line, line >= 1, line <= lines.count, setAside.insert(line).inserted else {
                    if !errors.contains(where: { $0.key != nil && $0.key == error.key }) { errors.append(error) }
                    break
                }
                errors.append(error)
                let isHeader = lines[line - 1].trimmingCharacters(in: .whitespaces).hasPrefix("[")
                lines[line - 1] = ""
                if isHeader {
                    var next = line
                    while next < lines.count, !lines[next].trimmingCharacters(in: .whitespaces).hasPrefix("[") {
                        lines[next] = ""
                        next += 1
                    }
                }
            }
        }
        throw ConfigurationErrors(errors: errors.sorted { ($0.line ?? Int.max) < ($1.line ?? Int.max) })
    }
}
