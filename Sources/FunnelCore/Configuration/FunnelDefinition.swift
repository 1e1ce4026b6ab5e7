/// A user-defined funnel from the configuration: a sequence of event names matched per user.
///
/// Event names are `install`, `open`, `purchase`, `invite`, or the name of an onboarding step
/// (`steps` rows' `step`). The conversion window counts from the first step.
public struct FunnelDefinition: Sendable, Equatable {
    public var name: String
    public var steps: [String]
    public var order: FunnelOrder
    public var windowDays: Int
    /// Events that disqualify an attempt when they happen between its first and last step.
    public var exclusions: [String]

    public init(name: String, steps: [String], order: FunnelOrder = .ordered, windowDays: Int = 7,
                exclusions: [String] = []) {
        self.name = name
        self.steps = steps
        self.order = order
        self.windowDays = windowDays
        self.exclusions = exclusions
    }

    /// The conversion window in seconds.
    public var windowSeconds: Double { Double(windowDays) * 86_400 }

    /// The label of each step as reports show it. Any-order funnels count steps completed, so
    /// their labels say how many ("2 of 3 (any order)").
    public var stepLabels: [String] {
        switch order {
        case .ordered, .strict: steps
        case .any: steps.indices.map { "\($0 + 1) of \(steps.count) (any order)" }
        }
    }

    /// The event names this funnel reads (its steps and exclusions).
    public var eventNames: Set<String> { Set(steps).union(exclusions) }
}
