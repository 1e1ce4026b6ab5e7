import Foundation
public import FunnelCore

/// Intervals as whole numbers in one time zone: an hour is local hours since 1970-01-01 00:00,
/// a day local days since 1970-01-01, a week the count of Sunday- (or Monday-) started weeks, a
/// month `year * 12 + month - 1`. An insight's range is whole local days, `fromDay` to `toDay`.
public struct InsightCalendar: Sendable {
    public let interval: InsightInterval
    public let weekStart: WeekStart
    let zone: TimeZone

    public init(interval: InsightInterval, weekStart: WeekStart = .sunday, timeZone: String) {
        self.interval = interval
        self.weekStart = weekStart
        zone = TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")!
    }

    /// Local seconds since 1970-01-01 00:00 of an instant.
    func localSeconds(ofMicros micros: Int64) -> Int64 {
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        return seconds + Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
    }

    /// The local date of an instant, as days since 1970-01-01.
    public func day(ofMicros micros: Int64) -> Int {
        Int(Self.floorDivide(localSeconds(ofMicros: micros), 86_400))
    }

    /// The interval of an instant.
    public func index(ofMicros micros: Int64) -> Int {
        interval == .hour ? Int(Self.floorDivide(localSeconds(ofMicros: micros), 3_600)) : index(ofDay: day(ofMicros: micros))
    }

    /// The interval a local date falls in (its first hour, for hours).
    public func index(ofDay day: Int) -> Int {
        switch interval {
        case .hour: return day * 24
        case .day: return day
        case .week: return Int(Self.floorDivide(Int64(day + (weekStart == .sunday ? 4 : 3)), 7))
        case .month:
            let (year, month, _) = RetentionCalendar.civil(day)
            return year * 12 + month - 1
        }
    }

    /// The intervals of the range `fromDay`...`toDay` (local dates): every interval that holds
    /// one of its days, the first and last ones possibly partial.
    public func indices(fromDay: Int, toDay: Int) -> ClosedRange<Int> {
        interval == .hour ? fromDay * 24...(toDay * 24 + 23) : index(ofDay: fromDay)...index(ofDay: toDay)
    }

    /// The first local date of an interval.
    public func firstDay(of index: Int) -> Int {
        switch interval {
        case .hour: return Int(Self.floorDivide(Int64(index), 24))
        case .day: return index
        case .week: return index * 7 - (weekStart == .sunday ? 4 : 3)
        case .month: return RetentionCalendar.days(year: Int(Self.floorDivide(Int64(index), 12)), month: index - Int(Self.floorDivide(Int64(index), 12)) * 12 + 1, day: 1)
        }
    }

    /// How an interval is shown: `2024-05-01` (its first date) or `2024-05-01 13:00`.
    public func label(of index: Int) -> String {
        let date = RetentionCalendar.text(ofDay: firstDay(of: index))
        guard interval == .hour else { return date }
        return date + String(format: " %02d:00", index - firstDay(of: index) * 24)
    }

    /// The UTC instant (microseconds) a local date starts at.
    public func startMicros(ofDay day: Int) -> Int64 {
        let local = Int64(day) * 86_400
        let guess = local - Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local))))
        return (local - Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(guess))))) * 1_000_000
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
}
