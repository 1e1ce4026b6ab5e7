/// Calendar arithmetic on the proleptic Gregorian calendar in UTC, without Foundation's calendars:
/// day numbers since 1970-01-01 and back (Howard Hinnant's `days_from_civil` /
/// `civil_from_days`), exact for every date, fast enough to run once per value read or written.
/// The one copy the ingest parser, the generator and PostgreSQL's binary date encoding share.
public enum CivilTime {
    public static let msPerDay: Int64 = 86_400_000

    /// Whether `year` has a 29 February.
    public static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    /// The days of `month` (1-12) in `year`.
    public static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The day number (days since 1970-01-01) of a valid calendar date.
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The (year, month, day) of a day number.
    public static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Day of the week of a day number, 0 = Monday ... 6 = Sunday.
    public static func weekday(days: Int) -> Int {
        ((days % 7) + 7 + 3) % 7
    }

    /// The day number of a `YYYY-MM-DD` text, if it is a valid date.
    public static func days(parsing text: String) -> Int? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              (1...12).contains(m), d >= 1, d <= daysInMonth(y, m) else { return nil }
        return days(year: y, month: m, day: d)
    }

    /// `YYYY-MM-DD` of a day number.
    public static func dateString(days: Int) -> String {
        let (y, m, d) = civil(fromDays: days)
        return "\(y)-\(m < 10 ? "0" : "")\(m)-\(d < 10 ? "0" : "")\(d)"
    }

    /// The UTC day number of an instant in milliseconds since 1970 (floor division).
    public static func day(ofMs ms: Int64) -> Int {
        Int(floorDiv(ms, msPerDay))
    }

    /// `floor(a / b)` for b > 0.
    @inline(__always)
    public static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && a < 0) ? q - 1 : q
    }
}
