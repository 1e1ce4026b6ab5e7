/// One event of a user, as user-defined funnels see it: its name (`install`, `open`, `purchase`,
/// `invite`, or a `steps` name) and its time in seconds since the epoch.
public struct TrackedEvent: Sendable, Equatable {
    public var name: String
    public var time: Double

    public init(name: String, time: Double) {
        self.name = name
        self.time = time
    }
}

/// What a user did in one funnel.
public enum FunnelOutcome: Sendable, Equatable {
    /// The user never did the first step (not in the funnel).
    case notEntered
    /// Every attempt contained an exclusion event: the user is left out of the funnel.
    case excluded
    /// The times at which the user reached steps 0, 1, ... (as many as they reached).
    case reached([Double])
}

/// Matches a user's events against a user-defined funnel, following PostHog's semantics:
/// - every occurrence of the first step starts an attempt; the conversion window counts from it;
/// - ordered: each next step is the earliest later event with that name inside the window;
///   strict: each next step must be the very next tracked event (any other event breaks it);
///   any order: the steps (as a multiset) may happen in any order inside the window, and step k
///   is reached when k + 1 of them have happened;
/// - an attempt with an exclusion event after its first step and before its last reached step is
///   void; the user's result is their best valid attempt (most steps, then the earliest); when
///   there are attempts but all are void, the user is excluded.
///
/// `events` must hold every tracked event of the user (for strict funnels, all of them).
public struct FunnelEvaluator: Sendable {
    public let definition: FunnelDefinition

    public init(_ definition: FunnelDefinition) {
        self.definition = definition
    }

    public func evaluate(_ events: [TrackedEvent]) -> FunnelOutcome {
        let sorted = events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        let exclusions = Set(definition.exclusions)
        var best: [Double]?
        var sawAttempt = false
        let starts: [Int] = switch definition.order {
        case .ordered, .strict: sorted.indices.filter { sorted[$0].name == definition.steps[0] }
        case .any: sorted.indices.filter { definition.steps.contains(sorted[$0].name) }
        }
        for start in starts {
            sawAttempt = true
            let (times, lastIndex) = attempt(from: start, in: sorted)
            let void = (start + 1..<max(start + 1, lastIndex)).contains { exclusions.contains(sorted[$0].name) }
            if void { continue }
            if best == nil || times.count > best!.count { best = times }
            if best!.count == definition.steps.count { break }
        }
        if let best { return .reached(best) }
        return sawAttempt ? .excluded : .notEntered
    }

    /// The steps one attempt reaches and the index of its last reached event.
    private func attempt(from start: Int, in events: [TrackedEvent]) -> ([Double], Int) {
        let origin = events[start].time
        let window = definition.windowSeconds
        switch definition.order {
        case .ordered, .strict:
            var times = [origin]
            var position = start
            for step in definition.steps.dropFirst() {
                var found: Int?
                if definition.order == .strict {
                    let next = position + 1
                    if next < events.count, events[next].name == step, events[next].time - origin <= window { found = next }
                } else {
                    var candidate = position + 1
                    while candidate < events.count, events[candidate].time - origin <= window {
                        if events[candidate].name == step { found = candidate; break }
                        candidate += 1
                    }
                }
                guard let found else { break }
                times.append(events[found].time)
                position = found
            }
            return (times, position)
        case .any:
            var remaining: [String: Int] = [:]
            for step in definition.steps { remaining[step, default: 0] += 1 }
            var times: [Double] = []
            var last = start
            var index = start
            while index < events.count, events[index].time - origin <= window, times.count < definition.steps.count {
                if let count = remaining[events[index].name], count > 0 {
                    remaining[events[index].name] = count - 1
                    times.append(events[index].time)
                    last = index
                }
                index += 1
            }
            return (times, last)
        }
    }
}
