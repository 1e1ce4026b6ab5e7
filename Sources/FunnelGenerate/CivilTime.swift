/// Calendar arithmetic on days since 1970-01-01 (UTC), without Foundation's calendars.
///
/// Howard Hinnant's `civil_from_days` / `days_from_civil`, exact for the proleptic Gregorian
/// calendar; fast enough to run once per timestamp written.
enum CivilTime {
    static let msPerDay: Int64 = 86_400_000

    /// The (year, month, day) of a day number.
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }

    /// The day number of a calendar date.
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Day of the week, 0 = Monday ... 6 = Sunday.
    static func weekday(days: Int) -> Int {
        ((days % 7) + 7 + 3) % 7
    }

    /// The day number of a `YYYY-MM-DD` string, if it is a valid date.
    static func days(parsing text: String) -> Int? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              (1...12).contains(m), d >= 1 else { return nil }
        let value = days(year: y, month: m, day: d)
        guard civil(fromDays: value) == (y, m, d) else { return nil }
        return value
    }

    /// `YYYY-MM-DD` of a day number.
    static func dateString(days: Int) -> String {
        let (y, m, d) = civil(fromDays: days)
        return "\(y)-\(m < 10 ? "0" : "")\(m)-\(d < 10 ? "0" : "")\(d)"
    }

    /// Floor division of a millisecond instant into its UTC day number.
    static func day(ofMs ms: Int64) -> Int {
        Int(ms >= 0 ? ms / msPerDay : (ms - msPerDay + 1) / msPerDay)
    }
}
