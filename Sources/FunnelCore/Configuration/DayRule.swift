/// How day N after install is counted (docs/metrics.md, "Days").
public enum DayRule: String, Sendable, Equatable, CaseIterable {
    /// Day N is N calendar days after the install date in the reporting time zone (AppsFlyer).
    case calendar
    /// Day N is the N-th 24-hour period after the install moment: day 1 = 24-48 h (Adjust, Singular).
    case hours24 = "24h"

    /// The spelling the SQL settings use.
    public var sqlName: String { self == .calendar ? "calendar" : "hours24" }

    /// How reports name the rule in force.
    public var label: String {
        switch self {
        case .calendar: "calendar days (day N = N dates after the install date)"
        case .hours24: "24-hour periods (day 1 = 24-48 h after install)"
        }
    }
}

/// How a user-defined funnel matches its steps (PostHog's funnel order types).
public enum FunnelOrder: String, Sendable, Equatable, CaseIterable {
    /// Steps in order; other events may happen in between.
    case ordered
    /// Steps in order with no other tracked event in between.
    case strict
    /// Every step within the window, in any order.
    case any
}
