public import FunnelCore

/// A funnel query's answer: per breakdown value, the users at each step, and the users' results
/// for time to convert and per-user export.
public struct FunnelQueryResult: Sendable {
    /// One step's counts within one breakdown value.
    public struct Step: Sendable, Equatable {
        public var step: Int
        public var label: String
        /// Users whose counted attempt reached this step.
        public var users: Int
        /// Of step 1's users (nil for an empty funnel).
        public var conversionFromFirst: Double?
        /// Of the previous step's users (nil for step 1 or an empty previous step).
        public var conversionFromPrevious: Double?
        /// Users who reached this step and not the next (0 at the last step).
        public var droppedOff: Int
        /// Seconds from the previous step, over the users who reached this one.
        public var medianSecondsFromPrevious: Double?
        public var averageSecondsFromPrevious: Double?
    }

    /// The funnel for one breakdown value (nil value: no breakdown, or users without the property).
    public struct Series: Sendable, Equatable {
        public var value: String?
        public var steps: [Step]
        /// Users left out because an exclusion voided the attempt that got furthest.
        public var excluded: Int
    }

    /// One user's result, for time to convert and the export of who converted or dropped off.
    public struct UserRow: Sendable, Equatable {
        public var user: String
        public var result: FunnelUserResult
    }

    public let app: String
    public let spec: EventFunnelSpec
    public let scope: FunnelQueryScope
    public let series: [Series]
    public let users: [UserRow]
    /// Events read from the database.
    public let eventsRead: Int
    /// Each step's math, when they differ (PostHog's per-step math); nil: `spec.stepMath` for all.
    public var stepMaths: [StepMath]? = nil

    /// Time to convert from step `from` to step `to` (1-based) over the users who reached `to`:
    /// the average, the median and `bins` equal bins from the fastest to the slowest (bin count
    /// by default the cube root of the users, as PostHog sizes them, 1 to 90).
    public func timeToConvert(from: Int, to: Int, bins: Int? = nil) -> TimeToConvert {
        let seconds = users.compactMap { row -> Double? in
            guard row.result.furthestStep >= to, row.result.gaps.count >= to - 1 else { return nil }
            return Double(row.result.gaps[(from - 1)..<(to - 1)].reduce(0, +)) / 1_000_000
        }.sorted()
        return TimeToConvert(fromStep: from, toStep: to, seconds: seconds, bins: bins)
    }
}

/// The distribution of conversion times between two steps.
public struct TimeToConvert: Sendable, Equatable {
    public struct Bin: Sendable, Equatable {
        public var fromSeconds: Double
        public var toSeconds: Double
        public var users: Int
    }

    public var fromStep: Int
    public var toStep: Int
    public var users: Int
    public var averageSeconds: Double?
    public var medianSeconds: Double?
    public var bins: [Bin]

    init(fromStep: Int, toStep: Int, seconds: [Double], bins requested: Int?) {
        self.fromStep = fromStep
        self.toStep = toStep
        users = seconds.count
        averageSeconds = seconds.isEmpty ? nil : seconds.reduce(0, +) / Double(seconds.count)
        medianSeconds = Self.median(seconds)
        guard let low = seconds.first, let high = seconds.last else {
            bins = []
            return
        }
        // PostHog's bins: the count asked for (1 to 90) or the cube root of the users (1 to 60),
        // from the fastest (rounded down) in equal whole-second widths (60 s when all are equal),
        // with one bin more, where the slowest lands when the range divides exactly.
        let binCount = requested.map { max(1, min(90, $0)) }
            ?? max(1, min(60, Int(pow3root(Double(seconds.count)).rounded(.up))))
        let floor = low.rounded(.down)
        var width = ((high.rounded(.up) - floor) / Double(binCount)).rounded(.up)
        if width <= 0 { width = 60 }
        var counts = [Int](repeating: 0, count: binCount + 1)
        for value in seconds { counts[min(binCount, Int(((value - floor) / width).rounded(.down)))] += 1 }
        bins = counts.enumerated().map { Bin(fromSeconds: floor + Double($0.offset) * width,
                                             toSeconds: floor + Double($0.offset + 1) * width, users: $0.element) }
    }

    /// The median of sorted values (the mean of the two middle ones for an even count).
    static func median(_ sorted: [Double]) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

private func pow3root(_ value: Double) -> Double {
    var x = max(1, value)
    for _ in 0..<60 { x = (2 * x + value / (x * x)) / 3 }
    return x
}

/// Counts users per step and breakdown value as they are evaluated.
struct FunnelTally {
    let spec: EventFunnelSpec
    var users: [FunnelQueryResult.UserRow] = []
    var eventsRead = 0

    init(spec: EventFunnelSpec) {
        self.spec = spec
    }

    mutating func add(user: String, _ result: FunnelUserResult) {
        users.append(FunnelQueryResult.UserRow(user: user, result: result))
    }

    func result(app: String, scope: FunnelQueryScope) -> FunnelQueryResult {
        // Per breakdown value, in one pass over the users (a breakdown may have many values): the
        // users whose counted attempt reached each step, the seconds from the previous step of
        // those who reached it, and the excluded users.
        struct Tallied {
            var reached: [Int]
            var gaps: [[Double]]
            var excluded = 0
        }
        let stepCount = spec.steps.count
        var values: [String?] = []
        var slotOfValue: [String?: Int] = [:]
        var tallies: [Tallied] = []
        for row in users {
            let value = row.result.breakdown
            let slot: Int
            if let known = slotOfValue[value] {
                slot = known
            } else {
                slot = tallies.count
                slotOfValue[value] = slot
                values.append(value)
                tallies.append(Tallied(reached: [Int](repeating: 0, count: stepCount),
                                       gaps: [[Double]](repeating: [], count: stepCount)))
            }
            let furthest = row.result.furthestStep
            guard furthest > 0 else {
                tallies[slot].excluded += 1
                continue
            }
            for step in 1...min(furthest, stepCount) {
                tallies[slot].reached[step - 1] += 1
                // As PostHog does, a conversion in zero seconds is left out of the step's times.
                if step > 1 {
                    let seconds = Double(row.result.gaps[step - 2]) / 1_000_000
                    if seconds > 0 { tallies[slot].gaps[step - 1].append(seconds) }
                }
            }
        }
        var series: [FunnelQueryResult.Series] = values.indices.map { slot in
            let reached = tallies[slot].reached
            let steps = (1...stepCount).map { step -> FunnelQueryResult.Step in
                let users = reached[step - 1]
                let gaps = tallies[slot].gaps[step - 1].sorted()
                let label = spec.order == .unordered
                    ? "\(step) of \(stepCount) steps (any order)" : spec.steps[step - 1].label
                return FunnelQueryResult.Step(
                    step: step, label: label, users: users,
                    conversionFromFirst: reached[0] > 0 ? Double(users) / Double(reached[0]) : nil,
                    conversionFromPrevious: step > 1 && reached[step - 2] > 0 ? Double(users) / Double(reached[step - 2]) : nil,
                    droppedOff: step < stepCount ? users - reached[step] : 0,
                    medianSecondsFromPrevious: TimeToConvert.median(gaps),
                    averageSecondsFromPrevious: gaps.isEmpty ? nil : gaps.reduce(0, +) / Double(gaps.count))
            }
            return FunnelQueryResult.Series(value: values[slot], steps: steps, excluded: tallies[slot].excluded)
        }
        // Largest first, as product-analytics tools list breakdown values; ties by value, users
        // without the property last.
        series.sort { left, right in
            if left.steps[0].users != right.steps[0].users { return left.steps[0].users > right.steps[0].users }
            switch (left.value, right.value) {
            case (nil, nil): return false
            case (nil, _): return false
            case (_, nil): return true
            case (let a?, let b?): return a < b
            }
        }
        return FunnelQueryResult(app: app, spec: spec, scope: scope, series: series, users: users, eventsRead: eventsRead)
    }
}

/// The interval of funnel trends.
public enum FunnelTrendInterval: String, Sendable, Equatable, CaseIterable {
    case day
    case week
    case month
}

/// One interval of funnel trends: the users whose step 1 fell in it and those who converted.
public struct FunnelTrendPoint: Sendable, Equatable {
    /// The interval's start, microseconds since 1970 (UTC).
    public var startMicros: Int64
    public var entered: Int
    public var converted: Int

    /// converted / entered, or nil for an interval nobody entered.
    public var conversion: Double? { entered > 0 ? Double(converted) / Double(entered) : nil }

    /// The points in time order, with every interval of the range nobody entered in listed at 0:
    /// from the interval holding the range's first day (else the first entry) to the one holding
    /// its last day (else the last entry).
    static func filled(_ points: [Int64: (entered: Int, converted: Int)], interval: FunnelTrendInterval,
                       scope: FunnelQueryScope) -> [FunnelTrendPoint] {
        let day: Int64 = 86_400_000_000
        let period: RetentionPeriod = switch interval {
        case .day: .day
        case .week: .week
        case .month: .month
        }
        let calendar = RetentionCalendar(period: period, timeZone: "UTC")
        func index(_ micros: Int64) -> Int { calendar.period(ofDay: calendar.day(ofMicros: micros)) }
        var indices = Set(points.keys.map(index))
        let first = scope.fromMicros.map(index) ?? indices.min()
        let last = scope.toMicros.map { index($0 - 1) } ?? indices.max()
        if let first, let last, first <= last { indices.formUnion(first...last) }
        return indices.sorted().map { period in
            let start = Int64(calendar.firstDay(ofPeriod: period)) * day
            return FunnelTrendPoint(startMicros: start, entered: points[start]?.entered ?? 0, converted: points[start]?.converted ?? 0)
        }
    }
}
