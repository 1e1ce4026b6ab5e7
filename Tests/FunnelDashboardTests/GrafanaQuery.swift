import Foundation

/// What Grafana does to a panel's `rawSql` before PostgreSQL sees it: the front end substitutes
/// template variables (`$var`, `${var}`, `${var:format}`, `$__interval`, `$__interval_ms`), then the
/// PostgreSQL data source expands its macros (pkg/tsdb/grafana-postgresql-datasource/macros.go).
struct GrafanaQuery {
    /// A template variable's current value: one value, or several (multi-value or "All").
    struct Variable {
        var values: [String]
        var isMulti: Bool
    }

    var from: Date
    var to: Date
    /// The panel interval as Grafana writes it (`1d`, `30m`).
    var interval: String
    var variables: [String: Variable]

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func render(_ sql: String) throws -> String {
        try expandMacros(try interpolate(sql))
    }

    // MARK: template variables (public/app/features/templating/template_srv.ts, SqlDatasource.interpolateVariable)

    func interpolate(_ sql: String) throws -> String {
        let pattern = try Regex(#"\$(\w+)|\$\{(\w+)(?::([^\}]+))?\}"#)
        var failure: Failure?
        let result = sql.replacing(pattern) { match -> String in
            let whole = String(match.output[0].substring ?? "")
            let name = String((match.output[1].substring ?? match.output[2].substring) ?? "")
            let format = match.output[3].substring.map(String.init)
            if name == "__interval" { return interval }
            if name == "__interval_ms" { return String(Int((try? Self.seconds(interval)) ?? 0) * 1000) }
            guard let variable = variables[name] else { return whole }
            do {
                return try Self.format(variable, as: format)
            } catch {
                failure = error as? Failure
                return whole
            }
        }
        if let failure { throw failure }
        return result
    }

    static func quoteLiteral(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
    }

    static func format(_ variable: Variable, as format: String?) throws -> String {
        switch format {
        case nil:
            if variable.isMulti { return variable.values.map(quoteLiteral).joined(separator: ",") }
            return (variable.values.first ?? "").replacingOccurrences(of: "'", with: "''")
        case "csv", "raw":
            return variable.values.joined(separator: ",")
        case "sqlstring":
            return variable.values.map(quoteLiteral).joined(separator: ",")
        case "singlequote":
            return variable.values.map { "'" + $0.replacingOccurrences(of: "'", with: "\\'") + "'" }.joined(separator: ",")
        default:
            throw Failure(description: "variable format \(format!) is not one the dashboards may use")
        }
    }

    // MARK: data source macros (macros.go)

    func expandMacros(_ sql: String) throws -> String {
        let pattern = try Regex(#"\$(__[_a-zA-Z0-9]+)\(([^\)]*)\)"#)
        var failure: Failure?
        let result = sql.replacing(pattern) { match -> String in
            let name = String(match.output[1].substring ?? "")
            let argumentText = String(match.output[2].substring ?? "")
            let arguments = argumentText.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            do {
                return try macro(name, arguments)
            } catch {
                failure = error as? Failure ?? Failure(description: "\(error)")
                return ""
            }
        }
        if let failure { throw failure }
        return result
    }

    private func macro(_ name: String, _ arguments: [String]) throws -> String {
        func argument(_ index: Int) throws -> String {
            guard arguments.count > index, !arguments[index].isEmpty else {
                throw Failure(description: "macro \(name) needs at least \(index + 1) argument(s)")
            }
            return arguments[index]
        }
        let fromText = Self.rfc3339(from), toText = Self.rfc3339(to)
        let fromEpoch = Int(from.timeIntervalSince1970), toEpoch = Int(to.timeIntervalSince1970)
        switch name {
        case "__time":
            return "\(try argument(0)) AS \"time\""
        case "__timeEpoch":
            return "extract(epoch from \(try argument(0))) as \"time\""
        case "__timeFilter":
            return "\(try argument(0)) BETWEEN '\(fromText)' AND '\(toText)'"
        case "__timeFrom":
            return "'\(fromText)'"
        case "__timeTo":
            return "'\(toText)'"
        case "__timeGroup", "__timeGroupAlias":
            let seconds = Self.goNumber(try Self.seconds(try argument(1).trimmingCharacters(in: CharacterSet(charactersIn: "'\""))))
            let group = "floor(extract(epoch from \(try argument(0)))/\(seconds))*\(seconds)"
            return name == "__timeGroupAlias" ? group + " AS \"time\"" : group
        case "__unixEpochFilter":
            let column = try argument(0)
            return "\(column) >= \(fromEpoch) AND \(column) <= \(toEpoch)"
        case "__unixEpochFrom":
            return "\(fromEpoch)"
        case "__unixEpochTo":
            return "\(toEpoch)"
        case "__unixEpochGroup", "__unixEpochGroupAlias":
            let seconds = Self.goNumber(try Self.seconds(try argument(1).trimmingCharacters(in: CharacterSet(charactersIn: "'\""))))
            let group = "floor((\(try argument(0)))/\(seconds))*\(seconds)"
            return name == "__unixEpochGroupAlias" ? group + " AS \"time\"" : group
        default:
            throw Failure(description: "undefined macro: $\(name)")
        }
    }

    /// RFC 3339 in UTC, as Go's `time.RFC3339Nano` prints whole seconds.
    static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// Go's `%v` of a float64 number of seconds: `86400`, `0.5`.
    static func goNumber(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// gtime.ParseInterval: a number and a unit (ms, s, m, h, d, w, M, y).
    static func seconds(_ interval: String) throws -> Double {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400), ("w", 604_800),
                                         ("M", 2_592_000), ("y", 31_536_000)]
        for (unit, factor) in units where interval.hasSuffix(unit) {
            if let number = Double(interval.dropLast(unit.count)) { return number * factor }
        }
        throw Failure(description: "not an interval: \(interval)")
    }
}
