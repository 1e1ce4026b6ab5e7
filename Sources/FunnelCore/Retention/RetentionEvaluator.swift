/// One event of a user as retention sees it: its time, whether it is a start and/or a return
/// event (with their filters), and its breakdown value.
public struct RetentionEventRow: Sendable, Equatable {
    public var micros: Int64
    public var isStart: Bool
    public var isReturn: Bool
    public var breakdown: String?

    public init(micros: Int64, isStart: Bool, isReturn: Bool, breakdown: String? = nil) {
        self.micros = micros
        self.isStart = isStart
        self.isReturn = isReturn
        self.breakdown = breakdown
    }
}

/// One cohort a user belongs to: its period, the breakdown value, and the later periods (1, 2,
/// ... after the cohort's) in which the user came back.
public struct RetentionUserResult: Sendable, Equatable {
    /// The cohort's period (``RetentionCalendar``); under the 24-hour rule, the start event's date.
    public var cohort: Int
    public var breakdown: String?
    /// Periods after the cohort's with enough return events, ascending, each at least 1.
    public var returned: [Int]

    public init(cohort: Int, breakdown: String?, returned: [Int]) {
        self.cohort = cohort
        self.breakdown = breakdown
        self.returned = returned
    }
}

/// Evaluates one user's events against a retention definition with PostHog's semantics:
///
/// - First time: the user's first ever start event (with the start's filters) puts them in the
///   cohort of its period, if its date is in the cohort range; later start events do nothing.
/// - Recurring: every period in which the user has a start event dated in the range puts them in
///   that period's cohort.
/// - Period 0 is the cohort itself: every member counts there (return events in it are not
///   needed). Period k >= 1 counts a member who has at least `minOccurrences` return events in
///   the k-th period after the cohort's (calendar days, Sunday weeks or months in the time zone;
///   under the 24-hour rule, the k-th 24 hours after the first start event of the cohort's date).
/// - Events dated after the as-of date are not read: the data is complete through it.
/// - The breakdown value is the one on the first start event of the cohort's period.
public struct RetentionEvaluator: Sendable {
    public let spec: RetentionSpec
    public let calendar: RetentionCalendar
    /// The calendar of the cohorts (the periods' unless `spec.cohortPeriod` is longer).
    public let cohorts: RetentionCalendar
    /// Local dates (days since 1970) of the cohort range, inclusive; nil is open.
    public let fromDay: Int?
    public let toDay: Int?
    /// The date the data is complete through.
    public let asOfDay: Int

    public init(spec: RetentionSpec, fromDay: Int?, toDay: Int?, asOfDay: Int) {
        self.spec = spec
        calendar = RetentionCalendar(period: spec.hours24 ? .day : spec.period, timeZone: spec.timeZone)
        cohorts = RetentionCalendar(period: spec.cohortCalendarPeriod, timeZone: spec.timeZone)
        self.fromDay = fromDay
        self.toDay = toDay
        self.asOfDay = asOfDay
    }

    static let dayMicros: Int64 = 86_400_000_000

    /// The user's cohorts, in period order. `events` must be in time order.
    public func evaluate(_ events: [RetentionEventRow]) -> [RetentionUserResult] {
        var days: [Int] = []
        days.reserveCapacity(events.count)
        for event in events { days.append(calendar.day(ofMicros: event.micros)) }
        func inRange(_ day: Int) -> Bool {
            day <= asOfDay && (fromDay.map { day >= $0 } ?? true) && (toDay.map { day <= $0 } ?? true)
        }
        // The start events that open a cohort: the first ever, or the first of each period.
        var anchors: [Int] = []
        switch spec.cohortType {
        case .firstTime:
            if let first = events.indices.first(where: { events[$0].isStart }), inRange(days[first]) { anchors = [first] }
        case .recurring:
            var lastPeriod: Int?
            for index in events.indices where events[index].isStart && inRange(days[index]) {
                let period = cohorts.period(ofDay: days[index])
                if period != lastPeriod { anchors.append(index) }
                lastPeriod = period
            }
        }
        return anchors.map { anchor in
            let cohort = cohorts.period(ofDay: days[anchor])
            let anchorPeriod = calendar.period(ofDay: days[anchor])
            var counts: [Int: Int] = [:]
            for index in events.indices where events[index].isReturn && days[index] <= asOfDay {
                let offset: Int
                if spec.hours24 {
                    let elapsed = events[index].micros - events[anchor].micros
                    guard elapsed >= Self.dayMicros else { continue }
                    offset = Int(elapsed / Self.dayMicros)
                } else {
                    offset = calendar.period(ofDay: days[index]) - anchorPeriod
                    guard offset >= 1 else { continue }
                }
                counts[offset, default: 0] += 1
            }
            let returned = counts.filter { $0.value >= spec.minOccurrences }.keys.sorted()
            return RetentionUserResult(cohort: cohort, breakdown: events[anchor].breakdown, returned: returned)
        }
    }
}
