/// A funnel over any event, as product-analytics tools define one (PostHog's funnel insight):
/// steps that each name one or more events with property filters, an order, a conversion window
/// in absolute time, exclusions between steps, step math, a breakdown and a date range on the
/// first step. docs/funnels.md gives each rule with an example.
public struct EventFunnelSpec: Sendable, Equatable {
    public var steps: [EventMatcher]
    public var order: EventFunnelOrder
    /// The conversion window in microseconds, counted from the attempt's first step.
    public var windowMicros: Int64
    public var exclusions: [FunnelExclusion]
    public var stepMath: StepMath
    public var breakdown: FunnelBreakdown?

    public init(steps: [EventMatcher], order: EventFunnelOrder = .ordered, windowMicros: Int64 = 14 * 86_400_000_000,
                exclusions: [FunnelExclusion] = [], stepMath: StepMath = .total, breakdown: FunnelBreakdown? = nil) {
        self.steps = steps
        self.order = order
        self.windowMicros = windowMicros
        self.exclusions = exclusions
        self.stepMath = stepMath
        self.breakdown = breakdown
    }

    /// Every matcher the query reads, steps first then exclusions: event rows are tagged with the
    /// indexes of the matchers they satisfy.
    public var matchers: [EventMatcher] { steps + exclusions.map(\.matcher) }

    /// The most steps a funnel may have.
    public static let maxSteps = 30
    /// The most exclusions a funnel may have.
    public static let maxExclusions = 100

    /// Why the definition cannot run, naming the offending part, or nil.
    public func problem() -> String? {
        if steps.count < 2 { return "a funnel needs at least 2 steps (--step), got \(steps.count)" }
        if steps.count > Self.maxSteps { return "a funnel has at most \(Self.maxSteps) steps, got \(steps.count)" }
        if exclusions.count > Self.maxExclusions {
            return "a funnel has at most \(Self.maxExclusions) exclusions, got \(exclusions.count)"
        }
        if windowMicros <= 0 { return "--window must be longer than 0" }
        for (index, exclusion) in exclusions.enumerated() {
            if exclusion.fromStep < 1 || exclusion.toStep > steps.count || exclusion.fromStep >= exclusion.toStep {
                return "exclusion \(index + 1) (\(exclusion.matcher.label)): between steps \(exclusion.fromStep) and "
                    + "\(exclusion.toStep) is not a range of this funnel's steps (1 to \(steps.count), first < last)"
            }
        }
        if case .step(let step) = breakdown?.attribution, step < 1 || step > steps.count {
            return "--attribution step \(step): the funnel has steps 1 to \(steps.count)"
        }
        if order == .unordered {
            if let partial = exclusions.firstIndex(where: { $0.fromStep != 1 || $0.toStep != steps.count }) {
                return "exclusion \(partial + 1) (\(exclusions[partial].matcher.label)): an unordered funnel has no step "
                    + "order to exclude between, so its exclusions cover the whole funnel (drop 'between')"
            }
            if case .step(let step) = breakdown?.attribution, step != 1 {
                return "--attribution step:\(step): an unordered funnel has no step \(step) to attribute to; "
                    + "use step:1 (any step), first_touch, last_touch or all_events"
            }
        }
        return nil
    }
}

/// How steps must follow each other.
public enum EventFunnelOrder: String, Sendable, Equatable, CaseIterable {
    /// Each step after the previous one; other events may happen in between.
    case ordered
    /// Each step right after the previous one: any other event of the user in between breaks it.
    case strict
    /// The steps in any order; a user's step count is how many distinct steps they did.
    case unordered
}

/// Which occurrences of a step's event count.
public enum StepMath: String, Sendable, Equatable, CaseIterable {
    /// Every occurrence.
    case total
    /// Only the user's first ever occurrence of the step's event counts, and only if it passes
    /// the step's filters (PostHog's "first time for user").
    case firstTime = "first_time"
    /// Only the user's first ever occurrence that passes the step's filters counts.
    case firstTimeWithFilters = "first_time_with_filters"
}

/// One step (or exclusion): any of `events`, each occurrence satisfying every filter.
public struct EventMatcher: Sendable, Equatable {
    public var events: [String]
    public var filters: [PropertyFilter]

    public init(events: [String], filters: [PropertyFilter] = []) {
        self.events = events
        self.filters = filters
    }

    /// How reports name the step: `signup_completed where method = email`.
    public var label: String {
        let names = events.joined(separator: " | ")
        return filters.isEmpty ? names : names + " where " + filters.map(\.label).joined(separator: " and ")
    }
}

/// A condition on one event property (a key of the event's JSON properties).
public struct PropertyFilter: Sendable, Equatable {
    public enum Operator: String, Sendable, Equatable {
        /// Equal to one of the values (as text).
        case equals = "="
        /// Equal to none of the values; a missing property counts as not equal.
        case notEquals = "!="
        /// The text contains the value, case-insensitively.
        case contains
        case notContains = "not contains"
        /// The text matches the regular expression (PostgreSQL's POSIX syntax).
        case regex = "~"
        case notRegex = "!~"
        /// A number above / below the value.
        case greaterThan = ">"
        case lessThan = "<"
        case isSet = "is set"
        case isNotSet = "is not set"
    }

    public var key: String
    public var op: Operator
    public var values: [String]

    public init(key: String, op: Operator, values: [String] = []) {
        self.key = key
        self.op = op
        self.values = values
    }

    public var label: String {
        switch op {
        case .isSet, .isNotSet: return "\(key) \(op.rawValue)"
        case .equals where values.count > 1: return "\(key) in (\(values.joined(separator: ", ")))"
        case .notEquals where values.count > 1: return "\(key) not in (\(values.joined(separator: ", ")))"
        default: return "\(key) \(op.rawValue) \(values.first ?? "")"
        }
    }
}

/// An event that voids an attempt when it happens after step `fromStep` and before step
/// `toStep` (1-based) inside the attempt's window.
public struct FunnelExclusion: Sendable, Equatable {
    public var matcher: EventMatcher
    public var fromStep: Int
    public var toStep: Int

    public init(matcher: EventMatcher, fromStep: Int, toStep: Int) {
        self.matcher = matcher
        self.fromStep = fromStep
        self.toStep = toStep
    }
}

/// Split the funnel by a property: of the events (which event's value is chosen by the
/// attribution) or of the user (their first install's network, campaign, country, platform).
public struct FunnelBreakdown: Sendable, Equatable {
    public enum Source: String, Sendable, Equatable {
        case event
        case person
    }

    public enum Attribution: Sendable, Equatable {
        /// The value on the event of the attempt's first step.
        case firstTouch
        /// The value on the event of the furthest step the attempt reached.
        case lastTouch
        /// Each value the user's step events carry: a user may count under several values.
        case allEvents
        /// The value on the event of step N (1-based): the step only counts when the value matches.
        case step(Int)

        /// The attribution a text names: `first_touch`, `last_touch`, `all_events` or `step:N`.
        public init?(text: String) {
            switch text {
            case "first_touch": self = .firstTouch
            case "last_touch": self = .lastTouch
            case "all_events": self = .allEvents
            default:
                guard text.hasPrefix("step:"), let step = Int(text.dropFirst(5)), step >= 1 else { return nil }
                self = .step(step)
            }
        }

        /// The text that names it, as `init(text:)` reads it.
        public var text: String {
            switch self {
            case .firstTouch: "first_touch"
            case .lastTouch: "last_touch"
            case .allEvents: "all_events"
            case .step(let step): "step:\(step)"
            }
        }
    }

    public var property: String
    public var source: Source
    public var attribution: Attribution

    /// A stable text of the breakdown (`event:plan:first_touch`), for fingerprints.
    public var text: String { "\(source.rawValue):\(property):\(attribution.text)" }

    public init(property: String, source: Source = .event, attribution: Attribution = .firstTouch) {
        self.property = property
        self.source = source
        self.attribution = attribution
    }
}
