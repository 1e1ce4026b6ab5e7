import FunnelCalendar
import Foundation

/// Retention from any start event to any return event, as PostHog's retention insight defines
/// it: a cohort per period of the start event (the user's first one, or every one), and per later
/// period the cohort users who did the return event there (at least `minOccurrences` times).
/// docs/retention.md gives each rule with an example.
public struct RetentionSpec: Sendable, Equatable {
    /// The event that puts a user in a cohort (default: install).
    public var start: EventMatcher
    /// The event that counts as coming back (default: app_open).
    public var returning: EventMatcher
    public var cohortType: RetentionCohortType
    public var period: RetentionPeriod
    /// Day periods only: calendar days in the time zone, or 24-hour periods from the start event.
    public var dayRule: DayRule
    /// The last period reported (periods 0 to `periods`).
    public var periods: Int
    /// Return events a user needs in a period for it to count.
    public var minOccurrences: Int
    /// Bracket retention: a return in any period of the range.
    public var brackets: [ClosedRange<Int>]
    /// The value on the cohort's start event (event source), or the first install's (person).
    public var breakdown: FunnelBreakdown?
    /// The IANA time zone that dates, weeks and months are counted in.
    public var timeZone: String
    /// Day periods only: cohorts by this longer period (week or month) instead of by day; each
    /// member's periods still count days from their own start date. Nil: cohorts by `period`.
    public var cohortPeriod: RetentionPeriod?

    public init(start: EventMatcher = EventMatcher(events: ["install"]),
                returning: EventMatcher = EventMatcher(events: ["app_open"]),
                cohortType: RetentionCohortType = .firstTime, period: RetentionPeriod = .day,
                dayRule: DayRule = .calendar, periods: Int = 30, minOccurrences: Int = 1,
                brackets: [ClosedRange<Int>] = [1...3, 4...7, 8...14], breakdown: FunnelBreakdown? = nil,
                timeZone: String = "UTC") {
        self.start = start
        self.returning = returning
        self.cohortType = cohortType
        self.period = period
        self.dayRule = dayRule
        self.periods = periods
        self.minOccurrences = minOccurrences
        self.brackets = brackets
        self.breakdown = breakdown
        self.timeZone = timeZone
    }

    /// The period cohorts are counted by.
    public var cohortCalendarPeriod: RetentionPeriod { cohortPeriod ?? (hours24 ? .day : period) }

    /// The 24-hour rule applies (day periods only).
    public var hours24: Bool { period == .day && dayRule == .hours24 }

    /// Why the definition cannot run, naming the offending part (by its `--flag`), or nil.
    public func problem() -> String? {
        if periods < 1 || periods > 3_650 { return "--periods must be from 1 to 3650, got \(periods)" }
        if minOccurrences < 1 || minOccurrences > 1_000_000 {
            return "--min-occurrences must be from 1 to 1000000, got \(minOccurrences)"
        }
        if TimeZone(identifier: timeZone) == nil {
            return "--time-zone \(timeZone): not an IANA time zone name (UTC, Europe/Berlin, Asia/Tokyo)"
        }
        if period != .day && dayRule == .hours24 {
            return "--day-rule 24h applies to day periods only (this retention is by \(period.rawValue))"
        }
        for bracket in brackets where bracket.lowerBound < 0 {
            return "--brackets \(bracket.lowerBound)-\(bracket.upperBound): periods start at 0"
        }
        if let cohortPeriod, cohortPeriod != period {
            if period != .day || cohortPeriod == .day {
                return "--cohort-period \(cohortPeriod.rawValue): weekly or monthly cohorts take day periods (--period day)"
            }
        }
        if let breakdown, breakdown.attribution != .firstTouch {
            return "--attribution: a retention breakdown takes the value on the cohort's start event (first_touch) "
                + "or the user's first install (--breakdown-type person)"
        }
        return nil
    }

    /// A stable text of everything that changes the numbers (a computed retention is rebuilt when
    /// it changes).
    public var fingerprint: String {
        [start.label, returning.label, cohortType.rawValue, period.rawValue, dayRule.rawValue, String(periods),
         String(minOccurrences), brackets.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ","),
         breakdown.map { "\($0.source.rawValue).\($0.property)" } ?? "", timeZone].joined(separator: "|")
            + (cohortPeriod.map { $0 == period ? "" : "|cohorts by \($0.rawValue)" } ?? "")
    }
}

/// Which start events make cohorts (PostHog's retention types).
public enum RetentionCohortType: String, Sendable, Equatable, CaseIterable {
    /// The user's first ever start event (with its filters) puts them in one cohort, its period's.
    case firstTime = "first_time"
    /// Every period in which the user does the start event puts them in that period's cohort.
    case recurring
}

/// The length of a retention period. Weeks start on Sunday (PostHog's default); months are
/// calendar months; all counted in the retention's time zone.
public enum RetentionPeriod: String, Sendable, Equatable, CaseIterable {
    case day
    case week
    case month
}

/// Periods and dates as whole numbers in one time zone: a day is the count of days since
/// 1970-01-01 (local), a week the count of Sunday-started weeks, a month `year * 12 + month - 1`.
public struct RetentionCalendar: Sendable {
    public let period: RetentionPeriod
    let zone: TimeZone
    let utc: Bool

    public init(period: RetentionPeriod, timeZone: String) {
        self.period = period
        zone = TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")!
        utc = zone.identifier == "UTC" || zone.identifier == "GMT"
    }

    /// The local date of an instant, as days since 1970-01-01.
    public func day(ofMicros micros: Int64) -> Int {
        var seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        if !utc { seconds += Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))) }
        return Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
    }

    /// The period a local date falls in.
    public func period(ofDay day: Int) -> Int {
        switch period {
        case .day: return day
        case .week: return Self.floorDivide(day + 4, 7)  // 1970-01-01 was a Thursday; weeks from Sunday
        case .month:
            let (year, month, _) = Self.civil(day)
            return year * 12 + month - 1
        }
    }

    /// The first local date of a period.
    public func firstDay(ofPeriod index: Int) -> Int {
        switch period {
        case .day: return index
        case .week: return index * 7 - 4
        case .month: return Self.days(year: Self.floorDivide(index, 12), month: index - Self.floorDivide(index, 12) * 12 + 1, day: 1)
        }
    }

    /// The last local date of a period.
    public func lastDay(ofPeriod index: Int) -> Int { firstDay(ofPeriod: index + 1) - 1 }

    static func floorDivide(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    public static func days(year: Int, month: Int, day: Int) -> Int {
        CivilTime.days(year: year, month: month, day: day)
    }

    /// The date of a day number.
    public static func civil(_ days: Int) -> (year: Int, month: Int, day: Int) {
        CivilTime.civil(fromDays: days)
    }

    /// `YYYY-MM-DD` of a day number.
    public static func text(ofDay days: Int) -> String {
        let (year, month, day) = civil(days)
        return String(format: "%04d-%02d-%02d", year, month, day)
    }

    /// The day number of `YYYY-MM-DD`, or nil.
    public static func day(ofText text: String) -> Int? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let year = parts[0], let month = parts[1], let day = parts[2],
              (1...12).contains(month), (1...31).contains(day), (1...9_999).contains(year) else { return nil }
        let number = days(year: year, month: month, day: day)
        return civil(number) == (year, month, day) ? number : nil
    }
}
