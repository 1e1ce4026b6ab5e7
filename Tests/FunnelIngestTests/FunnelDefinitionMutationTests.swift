import Foundation
import FunnelCore
import FunnelIngest
import FunnelQuery
import PostgresClient
import IngestFixtures
import Testing

/// Funnel definitions up to and past every limit (steps, exclusions, the matchers of first-time
/// step math, number literals), with random filters, orders, step math and windows, run over a
/// small random event set: each either answers, equal to a reference computed here from the
/// events, or is refused with a usage error naming the limit. Seeded (FUNNEL_MUTATION_SEED picks
/// another seed); every failure names the seed and the case.
@Suite("Funnel definitions, mutated")
struct FunnelDefinitionMutationTests {
    /// One loaded event, as the reference sees it.
    struct Event {
        var user: String
        var name: String
        var micros: Int64
        var properties: [String: String]
        /// Properties that are JSON numbers (their text as `->>` gives it).
        var numbers: Set<String>
    }

    static let names = ["a", "b", "c", "d", "x"]
    static let start: Int64 = 1_714_557_600_000_000  // 2024-05-01T10:00:00Z

    /// Events of `users` users, each at its own minute (no ties), every name with both keys at
    /// least once (the query refuses a filter on a key no event of the name has).
    static func events(users: Int, random: inout SplitMix) -> [Event] {
        var events: [Event] = []
        for user in 0..<users {
            var micros = start + Int64(user) * 3_600_000_000
            for _ in 0..<Int.random(in: 4...14, using: &random) {
                micros += Int64.random(in: 1...40, using: &random) * 60_000_000
                var properties: [String: String] = [:]
                var numbers: Set<String> = []
                if Int.random(in: 0..<6, using: &random) > 0 {
                    properties["n"] = String(Int.random(in: 0...9, using: &random))
                    numbers.insert("n")
                }
                if Int.random(in: 0..<6, using: &random) > 0 { properties["k"] = ["p", "q", "Pq"].randomElement(using: &random)! }
                events.append(Event(user: "u\(user)", name: names.randomElement(using: &random)!, micros: micros,
                                    properties: properties, numbers: numbers))
            }
        }
        for (offset, name) in names.enumerated() {
            events.append(Event(user: "w\(offset)", name: name, micros: start, properties: ["n": "5", "k": "p"], numbers: ["n"]))
        }
        return events
    }

    static func ndjson(_ events: [Event]) -> String {
        events.enumerated().map { id, event in
            let properties = event.properties.sorted { $0.key < $1.key }.map { key, value in
                event.numbers.contains(key) ? "\"\(key)\":\(value)" : "\"\(key)\":\"\(value)\""
            }.joined(separator: ",")
            let date = Date(timeIntervalSince1970: Double(event.micros) / 1_000_000)
            return #"{"event_id":"\#(id)","app_id":"a","user_id":"\#(event.user)","event":"\#(event.name)","occurred_at":"\#(date.ISO8601Format())","properties":{\#(properties)}}"#
        }.joined(separator: "\n") + "\n"
    }

    // MARK: Definitions as text

    /// A random condition, as `--step` takes it; `badNumber` writes a literal `>` refuses.
    static func condition(_ random: inout SplitMix, badNumber: Bool) -> String {
        let key = ["n", "k"].randomElement(using: &random)!
        let value = key == "n" ? String(Int.random(in: 0...9, using: &random)) : ["p", "q", "Pq"].randomElement(using: &random)!
        if badNumber { return "n > \(["0x10", "1_000", "inf", "ten", "1e5000", "--1"].randomElement(using: &random)!)" }
        switch Int.random(in: 0..<12, using: &random) {
        case 0: return "\(key) = \(value)"
        case 1: return "\(key) != \(value)"
        case 2: return "\(key) in (\(value), 3, q)"
        case 3: return "\(key) not in (\(value))"
        case 4: return "k contains \(["p", "Q", "pq"].randomElement(using: &random)!)"
        case 5: return "k not contains \(["p", "Q"].randomElement(using: &random)!)"
        case 6: return "\(key) ~ '\(["^p", "q$", "^[0-4]$", "P"].randomElement(using: &random)!)'"
        case 7: return "\(key) !~ '\(["^p", "[5-9]"].randomElement(using: &random)!)'"
        case 8: return "n > \(["3", "4.5", "-1", "1e0", ".5", "+2"].randomElement(using: &random)!)"
        case 9: return "n < \(["3", "7.25", "0", "6E0"].randomElement(using: &random)!)"
        case 10: return "\(key) is set"
        default: return "\(key) is not set"
        }
    }

    static func matcherText(_ random: inout SplitMix, badNumber: Bool) -> String {
        var names = [Self.names.randomElement(using: &random)!]
        if Int.random(in: 0..<4, using: &random) == 0 { names.append(Self.names.randomElement(using: &random)!) }
        var text = names.joined(separator: " | ")
        let count = badNumber ? 1 : Int.random(in: 0...2, using: &random)
        if count > 0 {
            text += " where " + (0..<count).map { index in
                condition(&random, badNumber: badNumber && index == 0)
            }.joined(separator: " and ")
        }
        return text
    }

    /// A funnel definition as text: what `funnel query funnel` and funnel.toml take.
    struct Definition: CustomStringConvertible {
        var steps: [String]
        var exclusions: [String]
        var order: EventFunnelOrder
        var window: String
        var stepMath: StepMath

        var description: String {
            "steps \(steps), exclusions \(exclusions), order \(order.rawValue), window \(window), step math \(stepMath.rawValue)"
        }

        var toml: String {
            func list(_ items: [String]) -> String { "[" + items.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }
            return """
                [[funnels]]
                name = "mutated"
                steps = \(list(steps))
                order = "\(order.rawValue)"
                window = "\(window)"
                exclude = \(list(exclusions))
                step_math = "\(stepMath.rawValue)"

                """
        }
    }

    static func definition(_ random: inout SplitMix) -> Definition {
        let stepCount = [2, 2, 3, 3, 4, 5, 6, 30, 31, 40].randomElement(using: &random)!
        let exclusionCount = [0, 0, 0, 0, 0, 0, 1, 2, 3, 61, 62, 63, 64, 65, 66, 100, 101].randomElement(using: &random)!
        let badNumber = Int.random(in: 0..<12, using: &random) == 0
        let badAt = Int.random(in: 0..<(stepCount + exclusionCount), using: &random)
        let order = EventFunnelOrder.allCases.randomElement(using: &random)!
        let steps = (0..<stepCount).map { matcherText(&random, badNumber: badNumber && badAt == $0) }
        var exclusions: [String] = []
        for index in 0..<exclusionCount {
            var text = matcherText(&random, badNumber: badNumber && badAt == stepCount + index)
            // An exclusion that is also a step is refused by the configuration (not by a query).
            // (`n not in (9)` is `n != 9`: the parsed matchers are compared.)
            let parsedSteps = steps.compactMap { try? FunnelSyntax.matcher($0) }
            while let parsed = try? FunnelSyntax.matcher(text), parsedSteps.contains(parsed) {
                text += text.contains(" where ") ? " and n is set" : " where n is set"
            }
            if order != .unordered && Int.random(in: 0..<2, using: &random) == 0 {
                let from = Int.random(in: 1..<stepCount, using: &random)
                text += " between \(from) and \(Int.random(in: (from + 1)...stepCount, using: &random))"
            }
            exclusions.append(text)
        }
        return Definition(steps: steps, exclusions: exclusions, order: order,
                          window: ["10m", "1h", "3h", "1d"].randomElement(using: &random)!,
                          stepMath: StepMath.allCases.randomElement(using: &random)!)
    }

    /// The definition as `funnel query funnel` reads it, or the usage error it gives.
    static func spec(_ definition: Definition) -> Result<EventFunnelSpec, FunnelSyntax.Failure> {
        Result { () throws(FunnelSyntax.Failure) in
            let steps = try definition.steps.map { text throws(FunnelSyntax.Failure) in try FunnelSyntax.matcher(text) }
            return EventFunnelSpec(steps: steps, order: definition.order, windowMicros: try FunnelSyntax.window(definition.window),
                                   exclusions: try definition.exclusions.map { text throws(FunnelSyntax.Failure) in
                                       try FunnelSyntax.exclusion(text, stepCount: steps.count) },
                                   stepMath: definition.stepMath)
        }
    }

    // MARK: The reference

    /// Whether `event` passes `filter`, as docs/funnels.md defines each operator.
    static func passes(_ event: Event, _ filter: PropertyFilter) -> Bool {
        let text = event.properties[filter.key]
        func number(_ text: String?) -> Double? { text.flatMap { event.numbers.contains(filter.key) ? Double($0) : nil } }
        func matches(_ pattern: String) -> Bool {
            guard let text else { return false }
            return text.range(of: pattern, options: .regularExpression) != nil
        }
        switch filter.op {
        case .equals: return text.map(filter.values.contains) ?? false
        case .notEquals: return text.map { !filter.values.contains($0) } ?? true
        case .contains: return text.map { $0.lowercased().contains(filter.values[0].lowercased()) } ?? false
        case .notContains: return text.map { !$0.lowercased().contains(filter.values[0].lowercased()) } ?? true
        case .regex: return matches(filter.values[0])
        case .notRegex: return text == nil || !matches(filter.values[0])
        case .greaterThan: return number(text).map { $0 > Double(filter.values[0])! } ?? false
        case .lessThan: return number(text).map { $0 < Double(filter.values[0])! } ?? false
        case .isSet: return text != nil
        case .isNotSet: return text == nil
        }
    }

    static func passes(_ event: Event, _ matcher: EventMatcher) -> Bool {
        matcher.events.contains(event.name) && matcher.filters.allSatisfy { passes(event, $0) }
    }

    /// One user's events (time order) tagged with the steps they fill, step math applied, and
    /// the exclusions they are (as negative steps): what the evaluator is handed.
    static func rows(_ events: [Event], spec: EventFunnelSpec) -> [FunnelEventRow] {
        var firstOfName = Set<Int>()
        var firstPassing = Set<Int>()
        return events.enumerated().map { serial, event in
            var steps: [Int8] = []
            for (index, step) in spec.steps.enumerated() {
                let fills = passes(event, step)
                switch spec.stepMath {
                case .total:
                    if fills { steps.append(Int8(index + 1)) }
                case .firstTime:
                    if step.events.contains(event.name) && firstOfName.insert(index).inserted && fills {
                        steps.append(Int8(index + 1))
                    }
                case .firstTimeWithFilters:
                    if fills && firstPassing.insert(index).inserted { steps.append(Int8(index + 1)) }
                }
            }
            for exclusion in spec.exclusions where passes(event, exclusion.matcher) {
                steps += (exclusion.fromStep..<exclusion.toStep).map { -Int8($0 + 1) }
            }
            return FunnelEventRow(micros: event.micros, steps: steps.sorted(), serial: serial)
        }
    }

    /// The furthest step of one user by brute force, for an ordered or strict funnel without
    /// exclusions (no two events of a user at one instant), trying every step-1 event as the
    /// start of an attempt. Ordered: each next step on the earliest later event that fills it,
    /// within the window of the start. Strict (PostHog's rule): the attempt is at a set of steps;
    /// each next event of the user moves it from step k to k + 1 when it fills k + 1 within the
    /// window, keeps it at k when it fills k again, and ends it at k otherwise.
    static func bruteForceFurthest(_ rows: [FunnelEventRow], spec: EventFunnelSpec) -> Int {
        var best = 0
        for (first, row) in rows.enumerated() where row.steps.contains(1) {
            var reached: Set<Int> = [1]
            var furthest = 1
            var position = first
            while position + 1 < rows.count, !reached.isEmpty, furthest < spec.steps.count {
                position += 1
                let next = rows[position]
                let inWindow = next.micros - row.micros <= spec.windowMicros
                var moved: Set<Int> = []
                for step in reached {
                    if step < spec.steps.count && inWindow && next.steps.contains(Int8(step + 1)) { moved.insert(step + 1) }
                    if next.steps.contains(Int8(step)) || spec.order == .ordered { moved.insert(step) }
                }
                reached = moved
                furthest = max(furthest, reached.max() ?? 0)
            }
            best = max(best, furthest)
        }
        return best
    }

    /// Users per step the reference gives: by brute force where it applies, else the evaluator
    /// over the events tagged here (so the query's tagging in SQL, its bits and columns, are what
    /// is checked).
    static func reference(_ events: [Event], spec: EventFunnelSpec) -> (counts: [Int], bruteForce: Bool) {
        let strict = spec.order == .strict
        let read = strict ? events : events.filter { event in spec.matchers.contains { $0.events.contains(event.name) } }
        let byUser = Dictionary(grouping: read, by: \.user)
        let bruteForce = spec.exclusions.isEmpty && spec.order != .unordered
        let evaluator = EventFunnelEvaluator(stepCount: spec.steps.count, windowMicros: spec.windowMicros, order: spec.order)
        var counts = [Int](repeating: 0, count: spec.steps.count)
        for (_, userEvents) in byUser {
            let rows = rows(userEvents.sorted { $0.micros < $1.micros }, spec: spec)
            let furthest: Int
            if bruteForce {
                furthest = bruteForceFurthest(rows, spec: spec)
            } else {
                guard rows.contains(where: { $0.steps.contains(1) }) || spec.order == .unordered else { continue }
                furthest = evaluator.evaluate(rows, value: nil)?.furthestStep ?? 0
            }
            for step in 0..<furthest { counts[step] += 1 }
        }
        return (counts, bruteForce)
    }

    // MARK: The test

    static let seed: UInt64 = ProcessInfo.processInfo.environment["FUNNEL_MUTATION_SEED"].flatMap { UInt64($0) } ?? 53_2026

    @Test("mutated definitions answer as the reference does, or are refused naming the limit; never a crash")
    func mutatedDefinitions() throws {
        let seed = Self.seed
        var random = SplitMix(seed: seed)
        let events = Self.events(users: 12, random: &random)
        let db = try LoaderFixture()
        let reports = try db.ingest([try db.file("events.ndjson", Self.ndjson(events))])
        try #require(reports.allSatisfy { $0.status == .loaded }, "seed \(seed)")
        let runner = FunnelQueryRunner(connection: db.connection)
        var answered = 0, bruteForced = 0, refused = 0, wide = 0
        for number in 0..<90 {
            let definition = Self.definition(&random)
            let context = "seed \(seed), case \(number): \(definition)"
            let configuration = Result { () throws(ConfigurationError) in try FunnelConfiguration(toml: definition.toml) }
            let spec: EventFunnelSpec
            switch Self.spec(definition) {
            case .failure(let failure):
                #expect(failure.message.contains("expected a decimal number"), "\(context): \(failure)")
                guard case .failure(let error) = configuration else {
                    Issue.record("\(context): the configuration accepted what the command line refuses (\(failure))")
                    continue
                }
                // The configuration may name a limit first: it counts the steps before it reads the exclusions.
                let named = ["expected a decimal number", "at most 30 steps", "at most 100 exclusions"]
                #expect(named.contains { error.message.contains($0) } && error.line != nil
                        && (error.key == "funnels[0].steps" || error.key == "funnels[0].exclude"), "\(context): \(error)")
                refused += 1
                continue
            case .success(let parsed):
                spec = parsed
            }
            if let problem = spec.problem() {
                let steps = spec.steps.count > EventFunnelSpec.maxSteps
                #expect(problem.contains(steps ? "at most 30 steps" : "at most 100 exclusions"), "\(context): \(problem)")
                #expect(throws: FunnelQueryError.self, "\(context)") { try runner.run(spec, scope: FunnelQueryScope(app: "a")) }
                guard case .failure(let error) = configuration else {
                    Issue.record("\(context): the configuration accepted what the command line refuses (\(problem))")
                    continue
                }
                #expect(error.message.contains(steps ? "at most 30 steps" : "at most 100 exclusions"), "\(context): \(error)")
                #expect(error.key == (steps ? "funnels[0].steps" : "funnels[0].exclude") && error.line != nil, "\(context): \(error)")
                refused += 1
                continue
            }
            #expect(spec.steps.count <= EventFunnelSpec.maxSteps && spec.exclusions.count <= EventFunnelSpec.maxExclusions)
            switch configuration {
            case .success(let parsed): #expect(parsed.funnels.first?.spec == spec, "\(context)")
            case .failure(let error): Issue.record("\(context): the configuration refused it: \(error)")
            }
            let counts = try runner.run(spec, scope: FunnelQueryScope(app: "a")).series.first?.steps.map(\.users)
                ?? [Int](repeating: 0, count: spec.steps.count)
            let expected = Self.reference(events, spec: spec)
            #expect(counts == expected.counts, "\(context)")
            answered += 1
            if expected.bruteForce { bruteForced += 1 }
            let bits = spec.matchers.count + (spec.stepMath == .firstTime ? spec.steps.count : 0)
            if bits > 63 { wide += 1 }
        }
        // The cases cover each outcome (with this seed and any other, over 90 cases, by far).
        #expect(answered > 20 && bruteForced > 5 && refused > 5 && wide > 3,
                "seed \(seed): \(answered) answered (\(bruteForced) by brute force), \(refused) refused, \(wide) over 63 matchers")
    }

    @Test("the brute-force reference agrees with the evaluator on ordered and strict funnels without exclusions")
    func referenceAgreesWithEvaluator() throws {
        var random = SplitMix(seed: Self.seed &+ 1)
        for number in 0..<300 {
            var definition = Self.definition(&random)
            definition.exclusions = []
            definition.steps = Array(definition.steps.prefix(5))
            guard definition.order != .unordered, case .success(let spec) = Self.spec(definition), spec.problem() == nil else { continue }
            let events = Self.events(users: 6, random: &random)
            let evaluator = EventFunnelEvaluator(stepCount: spec.steps.count, windowMicros: spec.windowMicros, order: spec.order)
            for user in Set(events.map(\.user)) {
                let userEvents = events.filter { event in
                    event.user == user && (spec.order == .strict || spec.steps.contains { $0.events.contains(event.name) })
                }
                let rows = Self.rows(userEvents, spec: spec)
                #expect(Self.bruteForceFurthest(rows, spec: spec) == (evaluator.evaluate(rows, value: nil)?.furthestStep ?? 0),
                        "seed \(Self.seed &+ 1), case \(number), \(user): \(definition)")
            }
        }
    }
}

/// SplitMix64: a small seeded generator, the same sequence on every platform.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
