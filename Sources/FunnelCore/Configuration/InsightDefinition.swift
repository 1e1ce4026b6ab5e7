/// A trends insight named in the configuration (`[[trends]]`): the definition `funnel query
/// trends` takes, computed by every compute over the last `days` days through each app's last
/// date with data, in the configuration's time zone, into `fct_insights` (`dash_trends`).
/// Not part of the configuration's fingerprint: it is counted whole each run, so changing it
/// never needs a rebuild of the rest.
public struct TrendsDefinition: Sendable, Equatable {
    public var name: String
    public var series: [TrendSeries]
    public var interval: InsightInterval = .day
    public var weekStart: WeekStart = .sunday
    /// Each event's own value (event), or the user's current properties (person).
    public var breakdown: FunnelBreakdown?
    public var breakdownLimit = 25
    /// Across series, by letter: `A/B`; checked against the series when compute builds the spec.
    public var formula: String?
    /// The range: this many days through the app's last date with data.
    public var days = 30

    public init(name: String, series: [TrendSeries]) {
        self.name = name
        self.series = series
    }

}

/// A lifecycle insight named in the configuration (`[[lifecycle]]`): the definition `funnel query
/// lifecycle` takes, computed like ``TrendsDefinition`` into `fct_insights` (`dash_lifecycle`).
public struct LifecycleDefinition: Sendable, Equatable {
    public var name: String
    public var event: EventMatcher
    public var interval: InsightInterval = .day
    public var weekStart: WeekStart = .sunday
    /// The range: this many days through the app's last date with data.
    public var days = 30

    public init(name: String, event: EventMatcher) {
        self.name = name
        self.event = event
    }

}
