/// One event of a user as a funnel sees it: its time, the steps it satisfies (1-based; an
/// exclusion between steps k - 1 and k as -k), its breakdown value and its position in the
/// user's events (so one event never fills two steps of an attempt).
public struct FunnelEventRow: Sendable, Equatable {
    public var micros: Int64
    public var steps: [Int8]
    public var breakdown: String?
    public var serial: Int
    /// First-time step math: the steps whose event name (filters aside) this event has.
    public var namedSteps: [Int8]

    public init(micros: Int64, steps: [Int8], breakdown: String? = nil, serial: Int = 0, namedSteps: [Int8] = []) {
        self.micros = micros
        self.steps = steps
        self.breakdown = breakdown
        self.serial = serial
        self.namedSteps = namedSteps
    }
}

/// Where one user ended in a funnel, for one breakdown value.
public struct FunnelUserResult: Sendable, Equatable {
    /// The furthest step reached, 1-based; 0 means excluded (an exclusion voided the attempt
    /// that got furthest, and no clean attempt got as far): the user counts nowhere.
    public var furthestStep: Int
    public var breakdown: String?
    /// Microseconds between consecutive steps of the counted attempt (step 1 to 2, 2 to 3, ...).
    public var gaps: [Int64]
    /// When the counted attempt's first step happened.
    public var startMicros: Int64

    public init(furthestStep: Int, breakdown: String?, gaps: [Int64], startMicros: Int64) {
        self.furthestStep = furthestStep
        self.breakdown = breakdown
        self.gaps = gaps
        self.startMicros = startMicros
    }
}

/// Evaluates one user's events against a funnel with PostHog's semantics (its funnel UDF):
///
/// - Every event of step 1 starts an attempt at its own time; an event fills step k of an attempt
///   that has reached step k - 1, when it happens within the window of that attempt's start
///   (inclusive) and that attempt has not reached step k yet. An attempt keeps its start as it
///   advances, and each step remembers the latest attempt that reached it.
/// - The user counts at the furthest step any attempt reached; a later attempt replaces an
///   earlier one only by getting further (or as far, when the earlier one was excluded).
/// - An exclusion event (between steps k - 1 and k) inside the window of an attempt that has
///   reached step k - 1 but not k marks that attempt excluded; so is everything it reaches
///   after. If the counted attempt is excluded, the user is left out of the funnel entirely.
/// - Strict: an event that is not the next step of an attempt ends it (every event of the user
///   counts, not only step events).
/// - Events at the same timestamp: the same event several times is processed in turn; different
///   events are taken in step order, each usable once per attempt, exclusions and strictness set
///   aside (no order can be told between them).
/// - Unordered: the user's step count is the most distinct steps done within one window; an
///   exclusion wipes the progress not yet counted (the user keeps what they reached before it).
///
/// Breakdowns: with `all_events` only the events carrying the value are used; with a step
/// attribution, that step only counts on an event carrying the value.
public struct EventFunnelEvaluator: Sendable {
    public let stepCount: Int
    public let windowMicros: Int64
    public let order: EventFunnelOrder
    /// Step whose breakdown value must match (step attribution), 1-based.
    public let breakdownStep: Int?
    /// Only events with the evaluated breakdown value count (all-events attribution).
    public let filterByBreakdown: Bool

    public init(stepCount: Int, windowMicros: Int64, order: EventFunnelOrder, breakdownStep: Int? = nil,
                filterByBreakdown: Bool = false) {
        self.stepCount = stepCount
        self.windowMicros = windowMicros
        self.order = order
        self.breakdownStep = breakdownStep
        self.filterByBreakdown = filterByBreakdown
    }

    /// The user's result for `value`, or nil when they never did step 1.
    /// `events` must be in time order (ties in any stable order).
    public func evaluate(_ events: [FunnelEventRow], value: String?) -> FunnelUserResult? {
        let used = filterByBreakdown ? events.filter { $0.breakdown == value } : events
        switch order {
        case .ordered, .strict: return ordered(used, value: value)
        case .unordered: return unordered(used, value: value)
        }
    }

    /// An attempt as it stands at one step: its start, whether an exclusion voided it, the times
    /// of its steps and the events that filled them.
    struct Entered {
        var start: Int64 = 0
        var isSet = false
        var excluded = false
        var times: [Int64] = []
        var serials: [Int] = []
    }

    private func ordered(_ events: [FunnelEventRow], value: String?) -> FunnelUserResult? {
        var entered = [Entered](repeating: Entered(), count: stepCount + 1)
        var maxStep = (step: 0, state: Entered())
        var index = 0
        while index < events.count {
            let time = events[index].micros
            var end = index
            while end < events.count && events[end].micros == time { end += 1 }
            entered[0] = Entered(start: time, isSet: true)
            let group = events[index..<end]
            if group.count == 1 || group.dropFirst().allSatisfy({ $0.steps == group.first!.steps }) {
                for event in group { process(event, &entered, &maxStep, value: value, tied: false) }
            } else {
                let split = group.flatMap { event in
                    event.steps.filter { $0 > 0 }.map { step in
                        FunnelEventRow(micros: event.micros, steps: [step], breakdown: event.breakdown, serial: event.serial)
                    }
                }.enumerated().sorted { ($0.element.steps[0], $0.offset) < ($1.element.steps[0], $1.offset) }.map(\.element)
                for event in split { process(event, &entered, &maxStep, value: value, tied: true) }
            }
            if entered[stepCount].isSet { break }
            index = end
        }
        guard maxStep.step > 0 else { return nil }
        if maxStep.state.excluded {
            return FunnelUserResult(furthestStep: 0, breakdown: value, gaps: [], startMicros: maxStep.state.start)
        }
        let times = maxStep.state.times
        let gaps = times.count > 1 ? (1..<times.count).map { times[$0] - times[$0 - 1] } : []
        return FunnelUserResult(furthestStep: maxStep.step, breakdown: value, gaps: gaps, startMicros: maxStep.state.start)
    }

    private func process(_ event: FunnelEventRow, _ entered: inout [Entered], _ maxStep: inout (step: Int, state: Entered),
                         value: String?, tied: Bool) {
        for raw in event.steps.reversed() {
            let isExclusion = raw < 0
            let step = Int(isExclusion ? -raw : raw)
            guard step >= 1 && step <= stepCount else { continue }
            let previous = entered[step - 1]
            let inWindow = previous.isSet && event.micros - previous.start <= windowMicros
            let alreadyReached = entered[step].isSet && entered[step].start == previous.start
            guard inWindow && !alreadyReached else { continue }
            if isExclusion {
                if tied { continue }
                if !previous.excluded {
                    entered[step - 1].excluded = true
                    if maxStep.step == step - 1 && event.micros - maxStep.state.start <= windowMicros {
                        maxStep.state.excluded = true
                    }
                }
                continue
            }
            let unmatchedAttribution = breakdownStep.map { $0 == step } ?? false && event.breakdown != value
            let alreadyUsed = tied && previous.serials.contains(event.serial)
            guard !unmatchedAttribution && !alreadyUsed else { continue }
            let next = Entered(start: previous.start, isSet: true, excluded: previous.excluded,
                               times: previous.times + [event.micros], serials: previous.serials + [event.serial])
            if !previous.excluded { entered[step] = next }
            if step > maxStep.step || (step == maxStep.step && maxStep.state.excluded) {
                maxStep = (step, next)
            }
        }
        if !tied && order == .strict {
            for step in 1...stepCount where !event.steps.contains(Int8(step)) {
                entered[step] = Entered()
            }
        }
    }

    /// Unordered: each step keeps the times of its events within the window of the newest event;
    /// the count of steps with one is how far the user got. An exclusion empties every step (what
    /// was counted stays counted).
    private func unordered(_ events: [FunnelEventRow], value: String?) -> FunnelUserResult? {
        var byStep = [[Int64]](repeating: [], count: stepCount)
        var heads = [Int](repeating: 0, count: stepCount)
        var best: (count: Int, times: [Int64])?
        for event in events {
            let positive = event.steps.filter { $0 > 0 }.map { Int($0) - 1 }.filter { $0 < stepCount }
            if positive.isEmpty {
                if event.steps.contains(where: { $0 < 0 }) {
                    for step in 0..<stepCount { heads[step] = byStep[step].count }
                }
                continue
            }
            // An event that fits several steps fills the one whose latest event is oldest.
            let target = positive.min { left, right in
                (byStep[left].last.map { $0 } ?? Int64.min, left) < (byStep[right].last.map { $0 } ?? Int64.min, right)
            } ?? positive[0]
            byStep[target].append(event.micros)
            for step in 0..<stepCount {
                while heads[step] < byStep[step].count && event.micros - byStep[step][heads[step]] > windowMicros {
                    heads[step] += 1
                }
            }
            let firsts = (0..<stepCount).compactMap { heads[$0] < byStep[$0].count ? byStep[$0][heads[$0]] : nil }.sorted()
            if firsts.count > (best?.count ?? 0) { best = (firsts.count, firsts) }
            if firsts.count == stepCount { break }
        }
        guard let best else { return nil }
        let start = best.times.first ?? 0
        let gaps = best.times.count > 1 ? (1..<best.times.count).map { best.times[$0] - best.times[$0 - 1] } : []
        return FunnelUserResult(furthestStep: best.count, breakdown: value, gaps: gaps, startMicros: start)
    }
}
