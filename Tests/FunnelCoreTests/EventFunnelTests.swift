import FunnelCore
import Testing

/// Hand-computed cases, one per rule of PostHog's funnel semantics (docs/funnels.md), on the
/// evaluator alone. Times are in minutes; each case says what the rule expects and why.
@Suite("Event funnels: PostHog's rules")
struct EventFunnelTests {
    static let minute: Int64 = 60_000_000

    /// An event at `minutes` filling `steps` (negative: an exclusion before that step).
    static func at(_ minutes: Int64, _ steps: Int8..., value: String? = nil, serial: Int? = nil) -> FunnelEventRow {
        FunnelEventRow(micros: minutes * minute, steps: steps, breakdown: value, serial: serial ?? Int(minutes * 100 + Int64(steps.first ?? 0)))
    }

    static func run(_ events: [FunnelEventRow], steps: Int = 3, window: Int64 = 30, order: EventFunnelOrder = .ordered,
                    value: String? = nil, breakdownStep: Int? = nil, byValue: Bool = false) -> FunnelUserResult? {
        EventFunnelEvaluator(stepCount: steps, windowMicros: window * minute, order: order, breakdownStep: breakdownStep,
                             filterByBreakdown: byValue).evaluate(events, value: value)
    }

    static func furthest(_ events: [FunnelEventRow], steps: Int = 3, window: Int64 = 30,
                         order: EventFunnelOrder = .ordered) -> Int? {
        run(events, steps: steps, window: window, order: order)?.furthestStep
    }

    // Ordered funnels.

    @Test("ordered: all three steps in order convert, with the gaps between them")
    func orderedConverts() {
        let result = Self.run([Self.at(0, 1), Self.at(5, 2), Self.at(12, 3)])
        #expect(result?.furthestStep == 3)
        #expect(result?.gaps == [5 * Self.minute, 7 * Self.minute])
        #expect(result?.startMicros == 0)
    }

    @Test("ordered: a user who never did step 1 is not in the funnel, whatever else they did")
    func noStepOne() {
        #expect(Self.run([Self.at(0, 2), Self.at(5, 3)]) == nil)
        #expect(Self.run([]) == nil)
    }

    @Test("ordered: a step done before the previous one does not count")
    func outOfOrder() {
        #expect(Self.furthest([Self.at(0, 2), Self.at(5, 1), Self.at(6, 3)]) == 1)
    }

    @Test("ordered: other events in between do not break the funnel")
    func otherEventsBetween() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(1), Self.at(2), Self.at(3, 2), Self.at(4), Self.at(5, 3)]) == 3)
    }

    @Test("the window is inclusive: a step exactly one window after step 1 counts")
    func windowInclusive() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(30, 2)]) == 2)
    }

    @Test("a step one microsecond past the window does not count")
    func windowExclusiveBeyond() {
        let late = FunnelEventRow(micros: 30 * Self.minute + 1, steps: [2], serial: 9)
        #expect(Self.furthest([Self.at(0, 1), late]) == 1)
    }

    @Test("the window counts from step 1, not from the previous step")
    func windowFromFirstStep() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(20, 2), Self.at(40, 3)]) == 2)
    }

    @Test("a later step 1 starts a new attempt with its own window")
    func laterStepOneRestarts() {
        let result = Self.run([Self.at(0, 1), Self.at(40, 1), Self.at(50, 2), Self.at(60, 3)])
        #expect(result?.furthestStep == 3)
        #expect(result?.startMicros == 40 * Self.minute)
        #expect(result?.gaps == [10 * Self.minute, 10 * Self.minute])
    }

    @Test("the attempt that gets furthest counts, even when an earlier one started first")
    func furthestAttemptCounts() {
        // Attempt at 0 reaches step 2; attempt at 100 reaches step 3.
        let result = Self.run([Self.at(0, 1), Self.at(10, 2), Self.at(100, 1), Self.at(105, 2), Self.at(110, 3)])
        #expect(result?.furthestStep == 3)
        #expect(result?.startMicros == 100 * Self.minute)
    }

    @Test("an earlier attempt that got further is kept over a later shorter one")
    func earlierLongerAttemptKept() {
        let result = Self.run([Self.at(0, 1), Self.at(10, 2), Self.at(100, 1)])
        #expect(result?.furthestStep == 2)
        #expect(result?.startMicros == 0)
        #expect(result?.gaps == [10 * Self.minute])
    }

    @Test("one event cannot fill two steps: a funnel of the same event twice needs two occurrences")
    func sameEventTwoSteps() {
        #expect(Self.furthest([Self.at(0, 1, 2)], steps: 2) == 1)
        #expect(Self.furthest([Self.at(0, 1, 2), Self.at(3, 1, 2)], steps: 2) == 2)
    }

    @Test("repeating an event fills the next step each time: page, page, page reaches step 3 of page x3")
    func repeatedEventFillsSteps() {
        #expect(Self.furthest([Self.at(0, 1, 2, 3), Self.at(1, 1, 2, 3), Self.at(2, 1, 2, 3)]) == 3)
    }

    @Test("ties: step 1 and step 2 at the same instant count in step order")
    func tiedDifferentSteps() {
        #expect(Self.furthest([Self.at(0, 2), Self.at(0, 1)], steps: 2) == 2)
    }

    @Test("ties: the same event twice at one instant fills steps 1 and 2 of a same-event funnel")
    func tiedSameEvent() {
        let first = FunnelEventRow(micros: 0, steps: [1, 2], serial: 1)
        let second = FunnelEventRow(micros: 0, steps: [1, 2], serial: 2)
        #expect(Self.furthest([first, second], steps: 2) == 2)
    }

    @Test("ties: step 3 at the same instant as step 2 counts; before step 2 it does not")
    func tiesWithLaterSteps() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(5, 3), Self.at(5, 2)]) == 3)
        #expect(Self.furthest([Self.at(0, 1), Self.at(4, 3), Self.at(5, 2)]) == 2)
    }

    @Test("conversion stops being looked for once the last step is reached")
    func stopsAtGoal() {
        let result = Self.run([Self.at(0, 1), Self.at(1, 2), Self.at(2, 3), Self.at(3, 1), Self.at(4, 2), Self.at(5, 3)])
        #expect(result?.startMicros == 0)
        #expect(result?.gaps == [Self.minute, Self.minute])
    }

    // Strict funnels.

    @Test("strict: any other event between two steps breaks the attempt")
    func strictBroken() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(1), Self.at(2, 2)], order: .strict) == 1)
    }

    @Test("strict: steps one right after another convert")
    func strictConverts() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(1, 2), Self.at(2, 3)], order: .strict) == 3)
    }

    @Test("strict: a break after step 2 keeps step 2 reached; a fresh step 1 can still convert")
    func strictKeepsBestAndRestarts() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(1, 2), Self.at(2), Self.at(3, 3)], order: .strict) == 2)
        #expect(Self.furthest([Self.at(0, 1), Self.at(1), Self.at(2, 1), Self.at(3, 2), Self.at(4, 3)], order: .strict) == 3)
    }

    @Test("strict: step 1 repeated, then step 2 right after, converts")
    func strictRepeatedStepOne() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(1, 1), Self.at(2, 2)], steps: 2, order: .strict) == 2)
    }

    @Test("strict still honours the window")
    func strictWindow() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(31, 2)], steps: 2, order: .strict) == 1)
    }

    // Unordered funnels.

    @Test("unordered: the steps in reverse order inside the window all count")
    func unorderedReverse() {
        #expect(Self.furthest([Self.at(0, 3), Self.at(5, 2), Self.at(10, 1)], order: .unordered) == 3)
    }

    @Test("unordered: the count is the distinct steps done; repeating one step does not add")
    func unorderedDistinct() {
        #expect(Self.furthest([Self.at(0, 2), Self.at(1, 2), Self.at(2, 2), Self.at(3, 3)], order: .unordered) == 2)
    }

    @Test("unordered: steps further apart than the window do not add up")
    func unorderedWindow() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(20, 2), Self.at(45, 3)], order: .unordered) == 2)
        #expect(Self.furthest([Self.at(0, 1), Self.at(31, 2), Self.at(62, 3)], order: .unordered) == 1)
    }

    @Test("unordered: a user enters with any step, not only the first one named")
    func unorderedAnyEntry() {
        #expect(Self.furthest([Self.at(0, 3)], order: .unordered) == 1)
    }

    @Test("unordered: an exclusion wipes the progress not yet counted; what was counted stays")
    func unorderedExclusion() {
        // PostHog's test_funnel_exclusions_full_window: signup, x, paid counts at 1 step.
        #expect(Self.furthest([Self.at(0, 1), Self.at(1, -2), Self.at(5, 2)], steps: 2, order: .unordered) == 1)
        #expect(Self.furthest([Self.at(0, 2), Self.at(5, 1), Self.at(9, -2)], steps: 2, order: .unordered) == 2)
    }

    @Test("unordered funnels take exclusions over the whole funnel only, and step attribution to step 1 (any step)")
    func unorderedRestrictions() {
        let steps = [EventMatcher(events: ["a"]), EventMatcher(events: ["b"]), EventMatcher(events: ["c"])]
        let partial = FunnelExclusion(matcher: EventMatcher(events: ["x"]), fromStep: 1, toStep: 2)
        #expect(EventFunnelSpec(steps: steps, order: .unordered, exclusions: [partial]).problem()
            == "exclusion 1 (x): an unordered funnel has no step order to exclude between, so its exclusions cover the whole funnel (drop 'between')")
        let whole = FunnelExclusion(matcher: EventMatcher(events: ["x"]), fromStep: 1, toStep: 3)
        #expect(EventFunnelSpec(steps: steps, order: .unordered, exclusions: [whole]).problem() == nil)
        let attribution = FunnelBreakdown(property: "p", attribution: .step(2))
        #expect(EventFunnelSpec(steps: steps, order: .unordered, breakdown: attribution).problem()?.hasPrefix("--attribution step:2") == true)
    }

    // Exclusions.

    @Test("an exclusion after step 1 and before step 2 excludes the user from the whole funnel")
    func exclusionBetweenSteps() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(1, -2), Self.at(2, 2)], steps: 2) == 0)
    }

    @Test("an attempt stuck at step 1 is voided too when the exclusion falls in its window")
    func exclusionVoidsStuckAttempt() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(10, -2)], steps: 2) == 0)
    }

    @Test("an exclusion before step 1 or after the window changes nothing")
    func exclusionOutside() {
        #expect(Self.furthest([Self.at(0, -2), Self.at(1, 1), Self.at(2, 2)], steps: 2) == 2)
        #expect(Self.furthest([Self.at(0, 1), Self.at(40, -2)], steps: 2) == 1)
    }

    @Test("an exclusion after the step it guards is reached changes nothing")
    func exclusionAfterStep() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(2, 2), Self.at(3, -2)], steps: 2) == 2)
    }

    @Test("an exclusion limited to steps 2-3 does not void an attempt between steps 1 and 2")
    func exclusionRange() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(1, -3), Self.at(2, 2), Self.at(3, 3)]) == 3)
        #expect(Self.furthest([Self.at(0, 1), Self.at(2, 2), Self.at(3, -3), Self.at(4, 3)]) == 0)
    }

    @Test("a clean later attempt that gets as far replaces an excluded one")
    func cleanAttemptRescues() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(1, -2), Self.at(100, 1), Self.at(101, 2)], steps: 2) == 2)
    }

    @Test("an excluded attempt that got further than any clean one excludes the user")
    func excludedFurthestWins() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(1, -2, -3), Self.at(2, 2), Self.at(100, 1)]) == 0)
    }

    @Test("an exclusion at the same instant as a step is set aside (no order can be told)")
    func exclusionTie() {
        #expect(Self.furthest([Self.at(0, 1), Self.at(5, 2), Self.at(5, -2)], steps: 2) == 2)
    }

    // Breakdowns.

    @Test("all-events attribution: only the events with the value count for that value")
    func allEventsAttribution() {
        let events = [Self.at(0, 1, value: "ios"), Self.at(1, 2, value: "android"), Self.at(2, 1, value: "android"),
                      Self.at(3, 2, value: "android")]
        #expect(Self.run(events, steps: 2, value: "ios", byValue: true)?.furthestStep == 1)
        #expect(Self.run(events, steps: 2, value: "android", byValue: true)?.furthestStep == 2)
    }

    @Test("step attribution: the attributed step counts only on an event with the value")
    func stepAttribution() {
        let events = [Self.at(0, 1, value: "a"), Self.at(1, 2, value: "b"), Self.at(2, 3, value: "a")]
        #expect(Self.run(events, value: "a", breakdownStep: 2)?.furthestStep == 1)
        #expect(Self.run(events, value: "b", breakdownStep: 2)?.furthestStep == 3)
    }

    // The text form.

    @Test("steps read with their filters; any of several events; quoted values")
    func syntaxSteps() throws {
        let step = try FunnelSyntax.matcher("signup_completed where method = email and plan in (pro, 'team plan') and price > 4.5")
        #expect(step.events == ["signup_completed"])
        #expect(step.filters == [
            PropertyFilter(key: "method", op: .equals, values: ["email"]),
            PropertyFilter(key: "plan", op: .equals, values: ["pro", "team plan"]),
            PropertyFilter(key: "price", op: .greaterThan, values: ["4.5"]),
        ])
        #expect(try FunnelSyntax.matcher("app_open | push_opened").events == ["app_open", "push_opened"])
        #expect(try FunnelSyntax.matcher("x where coupon is not set and ref is set and url ~ '^/a' and name not contains bot").filters.map(\.op)
            == [.isNotSet, .isSet, .regex, .notContains])
        #expect(try FunnelSyntax.matcher("'Sign up' where source != ads").label == "Sign up where source != ads")
    }

    @Test("exclusions read their step range; windows their unit; bad text names what was expected")
    func syntaxExclusionsAndWindows() throws {
        #expect(try FunnelSyntax.exclusion("app_uninstalled", stepCount: 4) == FunnelExclusion(
            matcher: EventMatcher(events: ["app_uninstalled"]), fromStep: 1, toStep: 4))
        #expect(try FunnelSyntax.exclusion("refund where amount > 0 between 2 and 3", stepCount: 4).fromStep == 2)
        #expect(try FunnelSyntax.window("30m") == 30 * Self.minute)
        #expect(try FunnelSyntax.window("2 weeks") == 14 * 24 * 60 * Self.minute)
        #expect(try FunnelSyntax.window("45s") == 45_000_000)
        #expect(try FunnelSyntax.window("1mo") == 31 * 24 * 60 * Self.minute)
        #expect(throws: FunnelSyntax.Failure(text: "0m", message: "the window must be longer than 0")) { try FunnelSyntax.window("0m") }
        #expect(throws: FunnelSyntax.Failure.self) { try FunnelSyntax.window("soon") }
        #expect(throws: FunnelSyntax.Failure(text: "a where b", message:
            "expected an operator after b: =, !=, in (...), not in (...), contains, not contains, ~, !~, >, <, is set, is not set")) {
            try FunnelSyntax.matcher("a where b")
        }
        #expect(throws: FunnelSyntax.Failure(text: "a where b = 'c", message: "a quoted value is not closed")) {
            try FunnelSyntax.matcher("a where b = 'c")
        }
    }

    @Test("definitions that cannot run name the part: too few steps, a step range past the last step, a bad attribution")
    func definitionProblems() {
        let two = [EventMatcher(events: ["a"]), EventMatcher(events: ["b"])]
        #expect(EventFunnelSpec(steps: [two[0]]).problem() == "a funnel needs at least 2 steps (--step), got 1")
        #expect(EventFunnelSpec(steps: two, windowMicros: 0).problem() == "--window must be longer than 0")
        let exclusion = FunnelExclusion(matcher: EventMatcher(events: ["x"]), fromStep: 1, toStep: 3)
        #expect(EventFunnelSpec(steps: two, exclusions: [exclusion]).problem()
            == "exclusion 1 (x): between steps 1 and 3 is not a range of this funnel's steps (1 to 2, first < last)")
        let breakdown = FunnelBreakdown(property: "p", attribution: .step(5))
        #expect(EventFunnelSpec(steps: two, breakdown: breakdown).problem() == "--attribution step 5: the funnel has steps 1 to 2")
        #expect(EventFunnelSpec(steps: two).problem() == nil)
    }
}
