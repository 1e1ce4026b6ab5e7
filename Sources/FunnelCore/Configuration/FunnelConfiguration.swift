/// Everything compute needs to know about how the team counts: the reporting time zone, the day
/// rule, the default funnel's windows, the regular-user threshold, revenue share, retention
/// brackets, LTV horizons, the k-factor window, the verdict thresholds and user-defined funnels.
///
/// Read from a TOML file (see `FunnelConfiguration+TOML.swift` for the format); every key is
/// optional and the defaults below apply.
public struct FunnelConfiguration: Sendable, Equatable {
    /// IANA time zone in which dates (cohort days, spend days) are counted.
    public var timeZone = "UTC"
    /// Calendar days (default) or 24-hour periods.
    public var dayRule = DayRule.calendar
    /// The `steps` event that marks onboarding as complete.
    public var onboardingStep = "onboarding_complete"
    /// Window from install for the default funnel's first open and onboarding steps.
    public var windowDays = 7
    /// Window from install for the default funnel's first purchase.
    public var purchaseWindowDays = 30
    /// A regular user has at least `regularOpens` opens on days 1...`regularDays`.
    public var regularOpens = 3
    public var regularDays = 7
    /// Share of gross revenue the app keeps (0.7 after a 30% store cut).
    public var revenueShare = 1.0
    /// Invites count for the k-factor when sent on days 0..<`kFactorWindowDays` after install.
    public var kFactorWindowDays = 30
    /// Day ranges for bracket retention (inclusive).
    public var retentionBrackets: [ClosedRange<Int>] = [1...3, 4...7, 8...14]
    /// The last day N the triangles and curves go to.
    public var maxDay = 365
    /// Days to which LTV is projected.
    public var ltvHorizons = [90, 180, 365]
    /// Verdict thresholds on projected LTV_D180 / CPI.
    public var doubleDownRatio = 1.5
    public var cutRatio = 0.7
    /// The fewest installs a network needs for a double down or a cut ("not enough data" below).
    public var minInstalls = 100
    /// The fewest payers (users with a purchase) a network needs for a double down or a cut.
    public var minPayers = 10
    /// User-defined funnels, in file order.
    public var funnels: [FunnelDefinition] = []
    /// User-defined retentions (`[[retention]]`), in file order.
    public var retentions: [RetentionDefinition] = []
    /// Trends and lifecycle insights computed each run (`[[trends]]`, `[[lifecycle]]`), in file order.
    public var trends: [TrendsDefinition] = []
    public var lifecycles: [LifecycleDefinition] = []
    /// How files are read and refused (`[ingest]`, `[[ingest.apps]]`, `[[ingest.files]]`); not
    /// part of ``fingerprint``: it changes what loads, never how loaded rows are counted.
    public var ingest = IngestSettings()

    /// The defaults of every key.
    public init() {}

    /// The default funnel's step labels (install -> first open -> onboarding -> regular -> purchase).
    public var defaultFunnelSteps: [String] {
        ["install", "first_open", onboardingStep, "regular_user", "first_purchase"]
    }

    /// A stable text of every setting that changes computed numbers; when it differs from the
    /// one the database was computed with, compute rebuilds everything.
    public var fingerprint: String {
        var parts = [
            "tz=\(timeZone)", "rule=\(dayRule.rawValue)", "onboarding=\(onboardingStep)", "window=\(windowDays)",
            "purchase_window=\(purchaseWindowDays)", "regular=\(regularOpens)/\(regularDays)",
            "share=\(revenueShare)", "k=\(kFactorWindowDays)", "max_day=\(maxDay)",
            "brackets=\(retentionBrackets.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ","))",
        ]
        for funnel in funnels { parts.append(funnel.fingerprint) }
        for retention in retentions { parts.append("retention=\(retention.name):" + retention.spec(timeZone: timeZone, dayRule: dayRule).fingerprint) }
        return parts.joined(separator: ";")
    }
}
