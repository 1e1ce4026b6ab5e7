/// A funnel named in the configuration (`[[funnels]]`): a funnel over any event
/// (``EventFunnelSpec``, the same definition `funnel query funnel` takes), computed into the marts
/// for the install cohorts and broken down by network, campaign, country and platform, and by
/// the spec's breakdown property when it has one.
public struct FunnelDefinition: Sendable, Equatable {
    public var name: String
    public var spec: EventFunnelSpec
    /// Each step's own math (PostHog sets it per step: `step_math = ["first_time", "total"]`);
    /// nil when one math, `spec.stepMath`, applies to every step.
    public var stepMaths: [StepMath]?

    public init(name: String, spec: EventFunnelSpec) {
        self.name = name
        self.spec = spec
    }

    /// A funnel of plain event names over `windowDays`, with exclusions over the whole funnel.
    /// `open` and `invite`, the names earlier configurations used, mean `app_open` and
    /// `invite_sent`.
    public init(name: String, steps: [String], order: FunnelOrder = .ordered, windowDays: Int = 7,
                exclusions: [String] = []) {
        let matchers = steps.map { EventMatcher(events: [Self.eventName($0)]) }
        self.init(name: name, spec: EventFunnelSpec(
            steps: matchers, order: order.eventOrder, windowMicros: Int64(windowDays) * 86_400_000_000,
            exclusions: exclusions.map {
                FunnelExclusion(matcher: EventMatcher(events: [Self.eventName($0)]), fromStep: 1, toStep: steps.count)
            }))
    }

    /// The event name a configured step name stands for.
    public static func eventName(_ name: String) -> String {
        switch name {
        case "open": "app_open"
        case "invite": "invite_sent"
        default: name
        }
    }

    /// The label of each step as reports show it. Unordered funnels count steps completed, so
    /// their labels say how many ("2 of 3 (any order)").
    public var stepLabels: [String] {
        switch spec.order {
        case .ordered, .strict: spec.steps.map(\.label)
        case .unordered: spec.steps.indices.map { "\($0 + 1) of \(spec.steps.count) (any order)" }
        }
    }

    /// A stable text of everything that changes the funnel's numbers.
    public var fingerprint: String {
        "funnel=\(name):\(spec.order.rawValue):\(spec.windowMicros):"
            + (stepMaths ?? [spec.stepMath]).map(\.rawValue).joined(separator: ",") + ":"
            + spec.steps.map(\.label).joined(separator: ">") + "!"
            + spec.exclusions.map { "\($0.matcher.label)@\($0.fromStep)-\($0.toStep)" }.joined(separator: ",")
            + (spec.breakdown.map { "|by=\($0.text)" } ?? "")
    }
}

extension FunnelOrder {
    /// The event-funnel order it names (`any` is unordered).
    public var eventOrder: EventFunnelOrder {
        switch self {
        case .ordered: .ordered
        case .strict: .strict
        case .any: .unordered
        }
    }
}
