import FunnelCore
import FunnelSQL
import PostgresClient

/// What a query says about event names its app has no event of: as PostHog does, such a step or
/// series simply counts nobody (0), and a warning names the nearest names of the app (a typo is
/// the usual cause) and the other apps that have the name.
struct EventNameHints {
    let connection: PostgresConnection

    /// One warning per unknown name among `names` (empty when the app has every name). `flag`
    /// prefixes each warning (`--start`, `step 2`, ...); `defaulted` says the app was picked by
    /// default, so the warning names `--app` and the other apps.
    func warnings(app: String, names: [String], flag: String? = nil, defaulted: Bool) throws -> [String] {
        let known = try connection.query(SQLCatalog.text("query/funnel_checks.sql"), [app, names])
        let unknown = try known.rows.filter { !(try $0.decode(Bool.self, at: 1)) }.map { try $0.decode(String.self, at: 0) }
        guard !unknown.isEmpty else { return [] }
        let rows = try connection.query(SQLCatalog.text("query/event_names.sql")).rows.map {
            (app: try $0.decode(String.self, at: 0), event: try $0.decode(String.self, at: 1))
        }
        let appNames = rows.filter { $0.app == app }.map(\.event)
        return unknown.map { name in
            var text = (flag.map { "\($0): " } ?? "") + "app \(app) has no event named \(name); counted as 0 users"
            let nearest = Self.nearest(to: name, among: appNames)
            if !nearest.isEmpty { text += "; nearest names: " + nearest.joined(separator: ", ") }
            let others = rows.filter { $0.app != app && $0.event == name }.map(\.app)
            if !others.isEmpty {
                text += "; app\(others.count == 1 ? "" : "s") \(others.joined(separator: ", ")) "
                    + "\(others.count == 1 ? "has" : "have") it (choose one with --app)"
            } else if defaulted {
                let apps = Set(rows.map(\.app)).subtracting([app]).sorted()
                if !apps.isEmpty {
                    text += "; \(app) is the default app (the most installs); others: \(apps.joined(separator: ", ")) (choose one with --app)"
                }
            }
            return text + "; event names are case-sensitive"
        }
    }

    /// Up to three names closest to `name` by edit distance (case ignored), nearest first, among
    /// those at most half the name's length away.
    static func nearest(to name: String, among names: [String]) -> [String] {
        let target = Array(name.lowercased())
        let limit = max(2, target.count / 2)
        return names.map { ($0, distance(target, Array($0.lowercased()))) }
            .filter { $0.1 <= limit }
            .sorted { ($0.1, $0.0) < ($1.1, $1.0) }
            .prefix(3).map(\.0)
    }

    /// Levenshtein distance.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

extension EventMatcher {
    /// The matcher without the event names in `unknown` (names its app has no event of).
    func known(excluding unknown: Set<String>) -> EventMatcher {
        EventMatcher(events: events.filter { !unknown.contains($0) }, filters: filters)
    }
}
