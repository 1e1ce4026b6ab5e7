import Foundation
import FunnelCore
import Testing

/// Hand-computed cases, one per rule of retention (docs/retention.md), on the evaluator and the
/// table alone. Each case names the dates and says what the rule expects and why.
@Suite("Retention: PostHog's rules")
struct RetentionEvaluatorTests {
    /// Micros of `YYYY-MM-DD HH:MM` UTC.
    static func at(_ text: String) -> Int64 {
        let parts = text.split(separator: " ")
        let day = RetentionCalendar.day(ofText: String(parts[0]))!
        let clock = parts.count > 1 ? parts[1].split(separator: ":").map { Int64($0)! } : [12, 0]
        return (Int64(day) * 86_400 + clock[0] * 3_600 + clock[1] * 60) * 1_000_000
    }

    static func day(_ text: String) -> Int { RetentionCalendar.day(ofText: text)! }

    static func start(_ text: String, _ value: String? = nil) -> RetentionEventRow {
        RetentionEventRow(micros: at(text), isStart: true, isReturn: false, breakdown: value)
    }

    static func back(_ text: String) -> RetentionEventRow { RetentionEventRow(micros: at(text), isStart: false, isReturn: true) }

    static func evaluate(_ events: [RetentionEventRow], _ spec: RetentionSpec = RetentionSpec(),
                         from: String? = nil, to: String? = nil, asOf: String = "2024-12-31") -> [RetentionUserResult] {
        RetentionEvaluator(spec: spec, fromDay: from.map(day), toDay: to.map(day), asOfDay: day(asOf)).evaluate(events)
    }

    @Test("calendar arithmetic: days, Sunday weeks and months round-trip")
    func calendar() {
        #expect(RetentionCalendar.text(ofDay: 0) == "1970-01-01")
        #expect(RetentionCalendar.text(ofDay: Self.day("2024-02-29")) == "2024-02-29")
        #expect(RetentionCalendar.day(ofText: "2023-02-29") == nil)
        let weeks = RetentionCalendar(period: .week, timeZone: "UTC")
        // 2024-05-01 is a Wednesday: its week runs from Sunday 28 April to Saturday 4 May.
        let week = weeks.period(ofDay: Self.day("2024-05-01"))
        #expect(RetentionCalendar.text(ofDay: weeks.firstDay(ofPeriod: week)) == "2024-04-28")
        #expect(RetentionCalendar.text(ofDay: weeks.lastDay(ofPeriod: week)) == "2024-05-04")
        #expect(weeks.period(ofDay: Self.day("2024-05-05")) == week + 1)
        let months = RetentionCalendar(period: .month, timeZone: "UTC")
        let february = months.period(ofDay: Self.day("2024-02-10"))
        #expect(RetentionCalendar.text(ofDay: months.lastDay(ofPeriod: february)) == "2024-02-29")
        #expect(months.period(ofDay: Self.day("2024-03-01")) == february + 1)
        #expect(months.period(ofDay: Self.day("2025-01-01")) == february + 11)
    }

    @Test("first time: only the first start event makes a cohort; recurring: every period with one does")
    func firstTimeAndRecurring() {
        let events = [Self.start("2024-05-01"), Self.back("2024-05-02"), Self.start("2024-05-03"), Self.back("2024-05-04")]
        // First time: cohort 1 May; back on 2 May (day 1) and 4 May (day 3).
        #expect(Self.evaluate(events) == [RetentionUserResult(cohort: Self.day("2024-05-01"), breakdown: nil, returned: [1, 3])])
        // Recurring: also the cohort of 3 May, back on 4 May (day 1); 2 May is before it.
        var recurring = RetentionSpec()
        recurring.cohortType = .recurring
        #expect(Self.evaluate(events, recurring) == [
            RetentionUserResult(cohort: Self.day("2024-05-01"), breakdown: nil, returned: [1, 3]),
            RetentionUserResult(cohort: Self.day("2024-05-03"), breakdown: nil, returned: [1]),
        ])
    }

    @Test("first time: a first start event before the cohort range leaves the user out, even with later ones in it")
    func firstTimeBeforeRange() {
        let events = [Self.start("2024-04-20"), Self.start("2024-05-02"), Self.back("2024-05-03")]
        #expect(Self.evaluate(events, from: "2024-05-01").isEmpty)
        var recurring = RetentionSpec()
        recurring.cohortType = .recurring
        #expect(Self.evaluate(events, recurring, from: "2024-05-01").map(\.cohort) == [Self.day("2024-05-02")])
    }

    @Test("period 0 is the cohort: a return event the same day is not needed and adds nothing")
    func periodZero() {
        #expect(Self.evaluate([Self.start("2024-05-01 09:00"), Self.back("2024-05-01 10:00")]).first?.returned == [])
        #expect(Self.evaluate([Self.start("2024-05-01 09:00")]).count == 1)
        // A return event alone makes no cohort.
        #expect(Self.evaluate([Self.back("2024-05-01 10:00")]).isEmpty)
    }

    @Test("weeks start on Sunday: Saturday is still week 0, the next day week 1")
    func weeks() {
        var spec = RetentionSpec()
        spec.period = .week
        let events = [Self.start("2024-05-01"), Self.back("2024-05-04"), Self.back("2024-05-05"), Self.back("2024-05-20")]
        let result = Self.evaluate(events, spec)
        #expect(result.first?.returned == [1, 3])
        #expect(RetentionCalendar(period: .week, timeZone: "UTC").firstDay(ofPeriod: result.first!.cohort) == Self.day("2024-04-28"))
    }

    @Test("months are calendar months: 31 January to 1 February is month 1")
    func months() {
        var spec = RetentionSpec()
        spec.period = .month
        let events = [Self.start("2024-01-31"), Self.back("2024-02-01"), Self.back("2024-03-31")]
        #expect(Self.evaluate(events, spec).first?.returned == [1, 2])
    }

    @Test("24-hour periods count from the start event's moment; calendar days from its date")
    func hours24() {
        let events = [Self.start("2024-05-01 23:30"), Self.back("2024-05-02 00:10"), Self.back("2024-05-03 23:40")]
        #expect(Self.evaluate(events).first?.returned == [1, 2])
        var spec = RetentionSpec()
        spec.dayRule = .hours24
        // 40 minutes after: day 0; 48 h 10 min after: day 2.
        #expect(Self.evaluate(events, spec).first?.returned == [2])
    }

    @Test("the time zone moves dates: 23:30 UTC is the next morning in Tokyo")
    func timeZone() {
        var spec = RetentionSpec()
        spec.timeZone = "Asia/Tokyo"
        let events = [Self.start("2024-05-01 23:30"), Self.back("2024-05-02 10:00")]
        let result = Self.evaluate(events, spec)
        #expect(result.first?.cohort == Self.day("2024-05-02"))
        #expect(result.first?.returned == [])
        #expect(Self.evaluate(events).first?.returned == [1])
    }

    @Test("minimum occurrences: a period counts with at least K return events in it")
    func minimumOccurrences() {
        var spec = RetentionSpec()
        spec.minOccurrences = 2
        let events = [Self.start("2024-05-01"), Self.back("2024-05-02 08:00"), Self.back("2024-05-02 09:00"),
                      Self.back("2024-05-03"), Self.back("2024-05-05 01:00"), Self.back("2024-05-05 02:00"), Self.back("2024-05-05 03:00")]
        #expect(Self.evaluate(events, spec).first?.returned == [1, 4])
        #expect(Self.evaluate(events).first?.returned == [1, 2, 4])
    }

    @Test("events after the as-of date are not read")
    func asOfCutsEvents() {
        let events = [Self.start("2024-05-01"), Self.back("2024-05-02"), Self.back("2024-05-05"), Self.start("2024-05-06")]
        #expect(Self.evaluate(events, asOf: "2024-05-04").first?.returned == [1])
        var recurring = RetentionSpec()
        recurring.cohortType = .recurring
        #expect(Self.evaluate(events, recurring, asOf: "2024-05-04").count == 1)
    }

    @Test("an event breakdown takes the value on the first start event of the cohort's period")
    func breakdownValue() {
        var spec = RetentionSpec()
        spec.cohortType = .recurring
        let events = [Self.start("2024-05-01 08:00", "email"), Self.start("2024-05-01 09:00", "apple"), Self.start("2024-05-02", "apple")]
        #expect(Self.evaluate(events, spec).map(\.breakdown) == ["email", "apple"])
    }

    /// docs/metrics.md's retention example: cohort of 4 on 1 May, data through 10 May.
    static func exampleTable(asOf: String = "2024-05-10", periods: Int = 7) -> RetentionTable {
        var spec = RetentionSpec()
        spec.periods = periods
        spec.brackets = [1...3, 4...7]
        var builder = RetentionTable.Builder(spec: spec, asOfDay: day(asOf))
        let cohort = day("2024-05-01")
        for returned in [[1, 3], [1], [4], []] { builder.add(RetentionUserResult(cohort: cohort, breakdown: nil, returned: returned)) }
        return builder.table()
    }

    @Test("classic, rolling and bracket retention of the metrics example")
    func classicRollingBracket() {
        let table = Self.exampleTable()
        let cohort = table.series[0].cohorts[0]
        #expect(cohort.size == 4)
        #expect(cohort.classic == [4, 2, 0, 1, 1, 0, 0, 0])
        #expect(cohort.rolling == [4, 3, 2, 2, 1, 0, 0, 0])
        #expect(cohort.brackets == [2, 1])
        #expect(table.series[0].classic[1].rate == 0.5)
        #expect(table.series[0].rolling[3].rate == 0.5)
        #expect(table.series[0].brackets.map(\.rate) == [0.5, 0.25])
    }

    @Test("maturity: a period after the as-of date is missing; one after the data but by the as-of date is 0")
    func maturity() {
        // Data through 5 May: days 0 to 4 mature, day 5 on missing.
        let inside = Self.exampleTable(asOf: "2024-05-05").series[0]
        #expect(inside.cohorts[0].classic == [4, 2, 0, 1, 1, nil, nil, nil])
        #expect(inside.cohorts[0].brackets == [2, nil])
        #expect(inside.classic[5].cohorts == 0 && inside.classic[5].rate == nil)
        // As of 20 May (no events after 5 May): every day through 7 is mature, and 0 after day 4.
        let beyond = Self.exampleTable(asOf: "2024-05-20").series[0]
        #expect(beyond.cohorts[0].classic == [4, 2, 0, 1, 1, 0, 0, 0])
    }

    @Test("the pooled summary counts only the cohorts mature for each period")
    func pooled() {
        var spec = RetentionSpec()
        spec.periods = 2
        var builder = RetentionTable.Builder(spec: spec, asOfDay: Self.day("2024-05-03"))
        // Cohort 1 May: 2 users, 1 back on day 2. Cohort 2 May: 1 user, back on day 1.
        builder.add(RetentionUserResult(cohort: Self.day("2024-05-01"), breakdown: nil, returned: [2]))
        builder.add(RetentionUserResult(cohort: Self.day("2024-05-01"), breakdown: nil, returned: []))
        builder.add(RetentionUserResult(cohort: Self.day("2024-05-02"), breakdown: nil, returned: [1]))
        let series = builder.table().series[0]
        #expect(series.classic[1] == RetentionTable.Pooled(cohorts: 2, size: 3, retained: 1))
        #expect(series.classic[2] == RetentionTable.Pooled(cohorts: 1, size: 2, retained: 1))
        #expect(series.rolling[1] == RetentionTable.Pooled(cohorts: 2, size: 3, retained: 2))
    }

    @Test("under the 24-hour rule day N needs one more date to be mature")
    func hours24Maturity() {
        var spec = RetentionSpec()
        spec.dayRule = .hours24
        spec.periods = 3
        var builder = RetentionTable.Builder(spec: spec, asOfDay: Self.day("2024-05-03"))
        builder.add(RetentionUserResult(cohort: Self.day("2024-05-01"), breakdown: nil, returned: [1]))
        #expect(builder.table().series[0].cohorts[0].classic == [1, 1, nil, nil])
    }

    @Test("bad definitions are refused with the flag named")
    func problems() {
        var spec = RetentionSpec()
        spec.periods = 0
        #expect(spec.problem()?.contains("--periods") == true)
        spec = RetentionSpec()
        spec.minOccurrences = 0
        #expect(spec.problem()?.contains("--min-occurrences") == true)
        spec = RetentionSpec()
        spec.period = .week
        spec.dayRule = .hours24
        #expect(spec.problem()?.contains("--day-rule") == true)
        spec = RetentionSpec()
        spec.timeZone = "Mars/Olympus"
        #expect(spec.problem()?.contains("--time-zone") == true)
        #expect(RetentionSpec().problem() == nil)
    }
}
