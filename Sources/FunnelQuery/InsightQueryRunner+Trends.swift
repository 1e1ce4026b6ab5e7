import Foundation
public import FunnelCore

/// One series' events as trends keep them: per event its user, local day, interval, breakdown
/// value (an index into `keys`) and number (NaN: none), users' events contiguous.
struct TrendEvents {
    var users: [Int32] = []
    var days: [Int32] = []
    var micros: [Int64] = []
    var keyOfEvent: [Int32] = []
    var values: [Double] = []
    var keys: [String?] = []
    var keyIndex: [String?: Int32] = [:]
    var eventsOfKey: [Int] = []
    var userCount: Int32 = 0

    mutating func append(user: Int32, micros time: Int64, day: Int, key: String?, value: Double) {
        let index: Int32
        if let known = keyIndex[key] {
            index = known
        } else {
            index = Int32(keys.count)
            keyIndex[key] = index
            keys.append(key)
            eventsOfKey.append(0)
        }
        eventsOfKey[Int(index)] += 1
        users.append(user)
        days.append(Int32(day))
        micros.append(time)
        keyOfEvent.append(index)
        values.append(value)
    }

    /// Each user's events, as a range of positions.
    func forEachUser(_ body: (Range<Int>) -> Void) {
        var start = 0
        while start < users.count {
            var end = start + 1
            while end < users.count && users[end] == users[start] { end += 1 }
            body(start..<end)
            start = end
        }
    }
}

extension InsightQueryRunner {
    /// Runs a trends insight over `range` (default: the app's last 7 days with data).
    /// - Throws: ``FunnelQueryError`` for a definition that cannot run, or a ``PostgresError``.
    public func trends(_ spec: TrendsSpec, range: InsightRange) throws -> InsightResult {
        if let problem = spec.problem() { throw FunnelQueryError(problem) }
        let (app, fromDay, toDay) = try resolve(range, timeZone: spec.timeZone)
        try check(spec.series.map(\.matcher), breakdown: spec.breakdown, app: app, defaulted: range.app == nil)
        let days = InsightCalendar(interval: .day, weekStart: spec.weekStart, timeZone: spec.timeZone)
        let calendar = InsightCalendar(interval: spec.interval, weekStart: spec.weekStart, timeZone: spec.timeZone)
        let length = toDay - fromDay + 1
        let periods: [(name: String?, from: Int, to: Int)] = spec.compare
            ? [("current", fromDay, toDay), ("previous", fromDay - length, fromDay - 1)] : [(nil, fromDay, toDay)]
        // Monthly active users on the range's first day reach 29 days before it.
        let readFrom = days.startMicros(ofDay: periods.map(\.from).min()! - 29) - Self.zoneMarginMicros
        let end = days.startMicros(ofDay: toDay + 1) + Self.zoneMarginMicros
        var perSeries: [[(key: String?, period: Int, line: InsightLine)]] = []
        for series in spec.series {
            var store = TrendEvents()
            let firstTime = series.math == .firstTimeForUser
            var column: InsightColumn?
            if case .property(_, let property) = series.math { column = .value(property: property) }
            _ = try read([series.matcher], app: app, fromMicros: firstTime ? nil : readFrom, endMicros: end,
                         firstTime: firstTime, breakdown: spec.breakdown, column: column) { _, events in
                let user = store.userCount
                store.userCount += 1
                for event in events {
                    if firstTime {
                        // The first event of the name over all history, then its filters.
                        guard event.namedSteps.contains(1) else { continue }
                        if event.steps.contains(1) { store.append(user: user, micros: event.micros, day: days.day(ofMicros: event.micros),
                                                                  key: Self.key(event.breakdown, spec), value: .nan) }
                        break
                    }
                    guard event.steps.contains(1) else { continue }
                    var value = Double.nan
                    var text = event.breakdown
                    if column != nil, let carried = event.breakdown {
                        let parts = carried.split(separator: "\u{1F}", maxSplits: 1, omittingEmptySubsequences: false)
                        value = Double(parts[0]) ?? .nan
                        text = parts.count > 1 ? String(parts[1]) : nil
                    }
                    store.append(user: user, micros: event.micros, day: days.day(ofMicros: event.micros),
                                 key: Self.key(text, spec), value: value)
                }
            }
            let final = Self.finalKeys(store, limit: spec.breakdownLimit, breakdown: spec.breakdown != nil)
            var lines: [(key: String?, period: Int, line: InsightLine)] = []
            for key in final.order {
                for (periodIndex, period) in periods.enumerated() {
                    let (values, total) = Self.count(store, series.math, key: key, final: final.map, calendar: calendar,
                                                     days: days, from: period.from, to: period.to, cumulative: spec.cumulative)
                    let indices = Array(calendar.indices(fromDay: period.from, toDay: period.to))
                    lines.append((key, periodIndex, InsightLine(label: series.matcher.label + " (" + series.math.text + ")",
                                                                breakdown: key, compare: period.name,
                                                                points: indices.map(calendar.label(of:)), values: values, total: total)))
                }
            }
            perSeries.append(lines)
        }
        var lines = perSeries.flatMap { $0.map(\.line) }
        if let formula = spec.formula {
            lines = Self.apply(formula, perSeries)
        }
        let title = "trends on app \(app): " + (spec.formula.map { "formula \($0) of " } ?? "")
            + spec.series.enumerated().map { "\(Character(UnicodeScalar(65 + $0.offset)!)) = \($0.element.matcher.label) (\($0.element.math.text))" }
                .joined(separator: ", ")
            + " by \(spec.interval.rawValue)" + (spec.interval == .week ? " (from \(spec.weekStart.rawValue.capitalized))" : "")
            + ", time zone \(spec.timeZone)" + (spec.breakdown.map { ", by \($0.source.rawValue) property \($0.property)" } ?? "")
            + (spec.cumulative ? ", cumulative" : "")
        return InsightResult(app: app, title: title, fromDay: fromDay, toDay: toDay, lines: lines)
    }

    /// An event's breakdown key: nil without a breakdown; missing, null and empty are one value, "".
    static func key(_ text: String?, _ spec: TrendsSpec) -> String? {
        spec.breakdown == nil ? nil : (text ?? "")
    }

    /// The keys shown, in order (values by events, most first, up to the limit; then `other`;
    /// then the empty value), and the key each stored value counts under.
    static func finalKeys(_ store: TrendEvents, limit: Int, breakdown: Bool) -> (order: [String?], map: [String?]) {
        guard breakdown else { return ([nil], store.keys) }
        let ranked = store.keys.indices.filter { store.keys[$0] != "" }
            .sorted { (-store.eventsOfKey[$0], store.keys[$0] ?? "") < (-store.eventsOfKey[$1], store.keys[$1] ?? "") }
        var map = store.keys
        var order = ranked.prefix(limit).map { store.keys[$0] }
        if ranked.count > limit {
            for index in ranked.dropFirst(limit) { map[index] = InsightLine.other }
            order.append(InsightLine.other)
        }
        if store.keyIndex[""] != nil { order.append("") }
        return (order, map)
    }

    /// One line's values per interval of `from`...`to` and over the range.
    static func count(_ store: TrendEvents, _ math: TrendMath, key: String?, final: [String?], calendar: InsightCalendar,
                      days: InsightCalendar, from: Int, to: Int, cumulative: Bool) -> ([Double?], Double?) {
        let indices = calendar.indices(fromDay: from, toDay: to)
        let width = indices.count
        var counts = [Double](repeating: 0, count: width)
        var firstSeen = [Double](repeating: 0, count: width)
        var lists = [[Double]](repeating: [], count: width)
        var rangeList: [Double] = []
        var total: Double = 0
        let window = math == .weeklyActive ? 7 : 30
        store.forEachUser { events in
            var userIntervals = Set<Int>()
            var userCounts: [Int: Double] = [:]
            var userTotal: Double = 0
            var activeDays = Set<Int>()
            for position in events where final[Int(store.keyOfEvent[position])] == key {
                let day = Int(store.days[position])
                if math == .weeklyActive || math == .monthlyActive {
                    if day <= to && day > from - window { activeDays.insert(day) }
                    continue
                }
                guard day >= from && day <= to else { continue }
                let slot = calendar.index(ofMicros: store.micros[position]) - indices.lowerBound
                guard slot >= 0 && slot < width else { continue }
                switch math {
                case .total, .firstTimeForUser:
                    counts[slot] += 1
                    total += 1
                case .uniqueUsers, .perUser:
                    userIntervals.insert(slot)
                    userCounts[slot, default: 0] += 1
                    userTotal += 1
                case .property:
                    let value = store.values[position]
                    if !value.isNaN {
                        lists[slot].append(value)
                        rangeList.append(value)
                    }
                case .weeklyActive, .monthlyActive: break
                }
            }
            switch math {
            case .uniqueUsers:
                for slot in userIntervals { counts[slot] += 1 }
                if let first = userIntervals.min() { firstSeen[first] += 1 }
                if !userIntervals.isEmpty { total += 1 }
            case .perUser:
                for (slot, count) in userCounts { lists[slot].append(count) }
                if userTotal > 0 { rangeList.append(userTotal) }
            case .weeklyActive, .monthlyActive:
                var marked = Set<Int>()
                for day in activeDays {
                    let first = max(day, from), last = min(day + window - 1, to)
                    if first <= last { for target in first...last { marked.insert(target - from) } }
                }
                for slot in marked where slot < width { counts[slot] += 1 }
            default: break
            }
        }
        var values: [Double?]
        var overall: Double?
        switch math {
        case .perUser(let aggregate), .property(let aggregate, _):
            values = lists.map { aggregate.of($0) ?? 0 }
            overall = aggregate.of(rangeList) ?? 0
        case .weeklyActive, .monthlyActive:
            values = counts
            overall = nil
        default:
            values = counts
            overall = total
        }
        if cumulative {
            var running: Double = 0
            let source = math == .uniqueUsers ? firstSeen : values.map { $0 ?? 0 }
            values = source.map { running += $0; return running }
        }
        return (values, overall)
    }

    /// The formula's lines: per breakdown value and period, the formula of the series' values
    /// (a series without that value counts 0).
    static func apply(_ formula: String, _ perSeries: [[(key: String?, period: Int, line: InsightLine)]]) -> [InsightLine] {
        guard let node = try? TrendFormula.parse(formula) else { return [] }
        var order: [String?] = []
        var periods: [Int] = []
        for lines in perSeries {
            for item in lines {
                if !order.contains(item.key) { order.append(item.key) }
                if !periods.contains(item.period) { periods.append(item.period) }
            }
        }
        var result: [InsightLine] = []
        for key in order {
            for period in periods {
                let found = perSeries.map { lines in lines.first { $0.key == key && $0.period == period }?.line }
                guard let shape = found.compactMap({ $0 }).first else { continue }
                let values = shape.values.indices.map { index in
                    Optional(TrendFormula.evaluate(node, found.map { ($0?.values[index] ?? 0) ?? 0 }))
                }
                let total = found.allSatisfy { $0 == nil || $0?.total != nil }
                    ? TrendFormula.evaluate(node, found.map { ($0?.total ?? 0) ?? 0 }) : nil
                result.append(InsightLine(label: formula, breakdown: key, compare: shape.compare, points: shape.points,
                                          values: values, total: total))
            }
        }
        return result
    }
}
