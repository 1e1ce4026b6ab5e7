import FunnelCore
import Testing

@Suite("User-defined funnel matching (PostHog semantics)")
struct FunnelEvaluatorTests {
    private let hour = 3600.0
    private func events(_ list: [(String, Double)]) -> [TrackedEvent] {
        list.map { TrackedEvent(name: $0.0, time: $0.1 * 3600) }
    }
    private func funnel(_ order: FunnelOrder, window: Int = 1, exclude: [String] = []) -> FunnelEvaluator {
        FunnelEvaluator(FunnelDefinition(name: "f", steps: ["install", "open", "purchase"], order: order,
                                         windowDays: window, exclusions: exclude))
    }

    @Test("ordered: other events in between are allowed")
    func orderedAllowsOtherEvents() {
        let outcome = funnel(.ordered).evaluate(events([("install", 0), ("invite", 1), ("open", 2), ("purchase", 3)]))
        #expect(outcome == .reached([0, 2 * hour, 3 * hour]))
    }

    @Test("strict: another event in between ends the sequence")
    func strictBreaksOnOtherEvents() {
        let outcome = funnel(.strict).evaluate(events([("install", 0), ("open", 1), ("invite", 2), ("purchase", 3)]))
        #expect(outcome == .reached([0, hour]))
    }

    @Test("ordered: steps out of order do not count")
    func orderedNeedsOrder() {
        let outcome = funnel(.ordered).evaluate(events([("install", 0), ("purchase", 1), ("open", 2)]))
        #expect(outcome == .reached([0, 2 * hour]))
    }

    @Test("any order: every step within the window in any order")
    func anyOrder() {
        let outcome = funnel(.any).evaluate(events([("purchase", 0), ("install", 1), ("open", 2)]))
        #expect(outcome == .reached([0, hour, 2 * hour]))
    }

    @Test("the window counts from the first step")
    func windowFromFirstStep() {
        let outcome = funnel(.ordered, window: 1).evaluate(events([("install", 0), ("open", 23), ("purchase", 25)]))
        #expect(outcome == .reached([0, 23 * hour]))
    }

    @Test("a later attempt can reach further than the first")
    func bestAttemptWins() {
        let outcome = funnel(.ordered, window: 1).evaluate(events([("install", 0), ("install", 48), ("open", 49), ("purchase", 50)]))
        #expect(outcome == .reached([48 * hour, 49 * hour, 50 * hour]))
    }

    @Test("an exclusion event inside the attempt excludes the user; one outside does not")
    func exclusions() {
        let excluded = funnel(.ordered, exclude: ["invite"])
            .evaluate(events([("install", 0), ("invite", 1), ("open", 2)]))
        #expect(excluded == .excluded)
        let after = funnel(.ordered, exclude: ["invite"])
            .evaluate(events([("install", 0), ("open", 1), ("purchase", 2), ("invite", 3)]))
        #expect(after == .reached([0, hour, 2 * hour]))
    }

    @Test("no first step: not in the funnel")
    func notEntered() {
        #expect(funnel(.ordered).evaluate(events([("open", 1)])) == .notEntered)
    }
}
