/// A retention named in the configuration (`[[retention]]`): the definition `funnel query
/// retention` takes (``RetentionSpec``), computed into the marts per network for the app's users
/// with an install, in the configuration's time zone and (for day periods) day rule.
public struct RetentionDefinition: Sendable, Equatable {
    public var name: String
    public var start: EventMatcher
    public var returning: EventMatcher
    public var cohortType: RetentionCohortType = .firstTime
    public var period: RetentionPeriod = .day
    public var periods = 30
    public var minOccurrences = 1
    public var brackets: [ClosedRange<Int>] = []

    public init(name: String, start: EventMatcher = EventMatcher(events: ["install"]),
                returning: EventMatcher = EventMatcher(events: ["app_open"])) {
        self.name = name
        self.start = start
        self.returning = returning
    }

    /// The definition as a query spec in `timeZone`; the day rule applies to day periods only.
    public func spec(timeZone: String, dayRule: DayRule, breakdown: FunnelBreakdown? = nil) -> RetentionSpec {
        RetentionSpec(start: start, returning: returning, cohortType: cohortType, period: period,
                      dayRule: period == .day ? dayRule : .calendar, periods: periods, minOccurrences: minOccurrences,
                      brackets: brackets, breakdown: breakdown, timeZone: timeZone)
    }
}
