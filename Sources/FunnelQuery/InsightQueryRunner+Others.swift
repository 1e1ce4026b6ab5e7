import Foundation
public import FunnelCore

extension InsightQueryRunner {
    /// Runs a stickiness insight: per series (and breakdown value), for N = 1 to the range's
    /// intervals, the users who did the event on exactly N intervals of the range (at least N,
    /// cumulative). A user with several breakdown values counts under each, by that value's events.
    public func stickiness(_ spec: StickinessSpec, range: InsightRange) throws -> InsightResult {
        if spec.series.isEmpty { throw FunnelQueryError("stickiness needs at least one --series") }
        let (app, fromDay, toDay) = try resolve(range, timeZone: spec.timeZone)
        try check(spec.series, breakdown: spec.breakdown, app: app, defaulted: range.app == nil)
        let days = InsightCalendar(interval: .day, weekStart: spec.weekStart, timeZone: spec.timeZone)
        let calendar = InsightCalendar(interval: spec.interval, weekStart: spec.weekStart, timeZone: spec.timeZone)
        let indices = calendar.indices(fromDay: fromDay, toDay: toDay)
        var lines: [InsightLine] = []
        for series in spec.series {
            var users: [String?: [Int]] = [:]
            _ = try read([series], app: app, fromMicros: days.startMicros(ofDay: fromDay) - Self.zoneMarginMicros,
                         endMicros: days.startMicros(ofDay: toDay + 1) + Self.zoneMarginMicros, breakdown: spec.breakdown) { _, events in
                var intervals: [String?: Set<Int>] = [:]
                for event in events where event.steps.contains(1) {
                    let day = days.day(ofMicros: event.micros)
                    guard day >= fromDay && day <= toDay else { continue }
                    intervals[spec.breakdown == nil ? nil : (event.breakdown ?? ""), default: []].insert(calendar.index(ofMicros: event.micros))
                }
                for (key, set) in intervals {
                    users[key, default: [Int](repeating: 0, count: indices.count + 1)][set.count] += 1
                }
            }
            if users.isEmpty && spec.breakdown == nil { users[nil] = [Int](repeating: 0, count: indices.count + 1) }
            let keys = users.keys.sorted { (($0 ?? "").isEmpty ? 1 : 0, $0 ?? "") < (($1 ?? "").isEmpty ? 1 : 0, $1 ?? "") }
            for key in keys {
                let exactly = users[key]!
                let values = (1...indices.count).map { n -> Double? in
                    Double(spec.cumulative ? exactly[n...].reduce(0, +) : exactly[n])
                }
                lines.append(InsightLine(label: series.label, breakdown: key, compare: nil,
                                         points: (1...indices.count).map(String.init), values: values,
                                         total: Double(exactly.reduce(0, +))))
            }
        }
        let title = "stickiness on app \(app): " + spec.series.map(\.label).joined(separator: ", ")
            + ", users by the \(spec.interval.rawValue)s they did it on" + (spec.cumulative ? " (at least N)" : " (exactly N)")
            + ", of \(indices.count) \(spec.interval.rawValue)s, time zone \(spec.timeZone)"
        return InsightResult(app: app, title: title, fromDay: fromDay, toDay: toDay, lines: lines)
    }

    /// Runs a lifecycle insight: per interval of the range, among the users who did the event in
    /// it, the new (the interval of their first event of any kind), returning (they did it in the
    /// interval before too) and resurrecting (not in the interval before, and not new) users; and
    /// the dormant ones, who did it in the interval before but not in this one, as a negative count.
    public func lifecycle(_ spec: LifecycleSpec, range: InsightRange) throws -> InsightResult {
        let (app, fromDay, toDay) = try resolve(range, timeZone: spec.timeZone)
        try check([spec.event], breakdown: nil, app: app, defaulted: range.app == nil)
        let calendar = InsightCalendar(interval: spec.interval, weekStart: spec.weekStart, timeZone: spec.timeZone)
        let days = InsightCalendar(interval: .day, weekStart: spec.weekStart, timeZone: spec.timeZone)
        let indices = calendar.indices(fromDay: fromDay, toDay: toDay)
        var counts = [[Double]](repeating: [Double](repeating: 0, count: indices.count), count: 4)
        // Every event of each user: the first of any kind dates "new".
        _ = try read([spec.event], app: app, fromMicros: nil,
                     endMicros: days.startMicros(ofDay: toDay + 1) + Self.zoneMarginMicros, allEvents: true) { _, events in
            guard let first = events.first else { return }
            let newInterval = calendar.index(ofMicros: first.micros)
            var active = Set<Int>()
            for event in events where event.steps.contains(1) && days.day(ofMicros: event.micros) <= toDay {
                let index = calendar.index(ofMicros: event.micros)
                if index >= indices.lowerBound - 1 { active.insert(index) }
            }
            for (slot, index) in indices.enumerated() {
                let now = active.contains(index), before = active.contains(index - 1)
                if now {
                    counts[index == newInterval ? 0 : before ? 1 : 2][slot] += 1
                } else if before {
                    counts[3][slot] -= 1
                }
            }
        }
        let points = indices.map(calendar.label(of:))
        let lines = ["new", "returning", "resurrecting", "dormant"].enumerated().map { index, status in
            InsightLine(label: status, breakdown: nil, compare: nil, points: points, values: counts[index],
                        total: counts[index].reduce(0, +))
        }
        let title = "lifecycle on app \(app): \(spec.event.label) by \(spec.interval.rawValue)"
            + (spec.interval == .week ? " (from \(spec.weekStart.rawValue.capitalized))" : "") + ", time zone \(spec.timeZone)"
        return InsightResult(app: app, title: title, fromDay: fromDay, toDay: toDay, lines: lines)
    }

    /// Runs a paths insight over the events of the range: each user's events split into paths at
    /// gaps of 30 minutes or more, names grouped, consecutive repeats collapsed; a path begins at
    /// its first start event (paths without one are dropped) and keeps `steps` events, or ends at
    /// its first end event and keeps the `steps` events up to it. Each pair of consecutive events
    /// is an edge, counted once per path it is in.
    public func paths(_ spec: PathsSpec, range: InsightRange) throws -> PathsResult {
        if let problem = spec.problem() { throw FunnelQueryError(problem) }
        let (app, fromDay, toDay) = try resolve(range, timeZone: spec.timeZone)
        let anchor = spec.start ?? spec.end
        if let anchor {
            try check([EventMatcher(events: [anchor])], breakdown: nil, app: app, defaulted: range.app == nil)
        }
        let days = InsightCalendar(interval: .day, timeZone: spec.timeZone)
        var edges: [String: (step: Int, source: String, target: String, paths: Int)] = [:]
        var pathCount = 0
        let patterns = spec.groups.map { ($0, Self.globRegex($0)) }
        _ = try read([EventMatcher(events: anchor.map { [$0] } ?? [])], app: app,
                     fromMicros: days.startMicros(ofDay: fromDay) - Self.zoneMarginMicros,
                     endMicros: days.startMicros(ofDay: toDay + 1) + Self.zoneMarginMicros,
                     allEvents: true, column: .eventName) { _, events in
            var runs: [[String]] = []
            var last: Int64?
            for event in events {
                let day = days.day(ofMicros: event.micros)
                guard day >= fromDay && day <= toDay, var name = event.breakdown else { continue }
                if let group = patterns.first(where: { $0.1?.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil }) {
                    name = group.0
                }
                if last == nil || event.micros - last! >= spec.gapMicros { runs.append([]) }
                last = event.micros
                if runs[runs.count - 1].last != name { runs[runs.count - 1].append(name) }
            }
            for run in runs {
                var path = run
                if let start = spec.start {
                    guard let index = path.firstIndex(of: start) else { continue }
                    path = Array(path[index...].prefix(spec.steps))
                } else if let end = spec.end {
                    guard let index = path.firstIndex(of: end) else { continue }
                    path = Array(path[...index].suffix(spec.steps))
                } else {
                    path = Array(path.prefix(spec.steps))
                }
                guard path.count > 1 else { continue }
                pathCount += 1
                for step in 1..<path.count {
                    let id = "\(step)\u{1F}\(path[step - 1])\u{1F}\(path[step])"
                    edges[id, default: (step, path[step - 1], path[step], 0)].paths += 1
                }
            }
        }
        let sorted = edges.values.sorted { ($0.step, -$0.paths, $0.source, $0.target) < ($1.step, -$1.paths, $1.source, $1.target) }
        let kept = Set(edges.values.sorted { (-$0.paths, $0.step, $0.source, $0.target) < (-$1.paths, $1.step, $1.source, $1.target) }
            .prefix(spec.edgeLimit).map { "\($0.step)\u{1F}\($0.source)\u{1F}\($0.target)" })
        let result = sorted.filter { kept.contains("\($0.step)\u{1F}\($0.source)\u{1F}\($0.target)") }
            .map { PathEdge(step: $0.step, source: $0.source, target: $0.target, paths: $0.paths) }
        var title = "paths on app \(app)"
        if let start = spec.start { title += " after \(start)" }
        if let end = spec.end { title += " before \(end)" }
        title += ": up to \(spec.steps) events a path, a new path after a gap of \(spec.gapMicros / 60_000_000) minutes, "
            + "time zone \(spec.timeZone)" + (spec.groups.isEmpty ? "" : ", grouped: " + spec.groups.joined(separator: ", "))
        return PathsResult(app: app, title: title, fromDay: fromDay, toDay: toDay, edges: result, paths: pathCount)
    }

    /// A name pattern (`*` any text) as a whole-name regular expression.
    static func globRegex(_ pattern: String) -> NSRegularExpression? {
        let escaped = pattern.split(separator: "*", omittingEmptySubsequences: false)
            .map { NSRegularExpression.escapedPattern(for: String($0)) }.joined(separator: ".*")
        return try? NSRegularExpression(pattern: "^" + escaped + "$")
    }
}
