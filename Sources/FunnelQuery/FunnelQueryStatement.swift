import Foundation
import FunnelCore
import FunnelSQL
import PostgresClient

/// What the breakdown column of an insight's statement carries instead of the breakdown value.
enum InsightColumn {
    /// The event's name (paths).
    case eventName
    /// A property's text, the unit separator (U+001F), then the breakdown value ('' for none):
    /// trends' property math.
    case value(property: String)
}

/// The statement a funnel query runs (sql/query/funnel_events.sql filled in) and its parameters:
/// every event name, property key and value is a parameter; the fragments added to the template
/// are fixed text with placeholders.
struct FunnelQueryStatement {
    /// The statement, unsorted (the tied placeholder left out).
    var sql: String { template.replacingOccurrences(of: "{{tied}}", with: "") }
    /// The statement with the tied placeholder still in.
    private var template = ""
    private(set) var parameters: [(any PostgresEncodable)?] = []
    /// Per matcher bit: the steps an event with that bit fills (exclusions as negative steps).
    private var stepsOfBit: [[Int8]] = []
    /// First-time step math: the bit of each step's event names, filters aside (after the
    /// matchers' bits), or none.
    private var firstNameBit = -1
    /// The bits are spread over this many bigint columns (`matches`, then `matches_2`, ...), 63 to
    /// a column (the sign bit unused): one column up to 63 matchers and first-time names.
    private(set) var wordCount = 1

    /// Bits per matches column.
    static let bitsPerWord = 63

    /// The statement for `spec`; `app` nil reads every app, `computeScope` keeps the users of the
    /// cohorts a compute is working on (its scope_installs table).
    /// `insight` changes what the breakdown column carries (``InsightColumn``); `stepMaths`, when
    /// given, is each step's math in place of `spec.stepMath`.
    init(spec: EventFunnelSpec, app: String?, scope: FunnelQueryScope, computeScope: Bool = false,
         trend: FunnelTrendInterval? = nil, insight: InsightColumn? = nil, stepMaths: [StepMath]? = nil) {
        let maths = stepMaths ?? [spec.stepMath]
        // First-time steps look at the whole history: a user's first occurrence may precede the range.
        let earliest: Int64? = maths.allSatisfy { $0 == .total } ? scope.fromMicros : nil
        let end = (scope.toMicros ?? 32_503_680_000_000_000) + spec.windowMicros
        parameters = [app, earliest, end]
        var conditions: [String] = []
        for matcher in spec.matchers {
            var parts = ["e.event = any(\(add(matcher.events))::text[])"]
            for filter in matcher.filters { parts.append(condition(filter)) }
            conditions.append(parts.joined(separator: " and "))
        }
        if maths.contains(.firstTime) {
            firstNameBit = conditions.count
            for step in spec.steps { conditions.append("e.event = any(\(add(step.events))::text[])") }
        }
        wordCount = max(1, (conditions.count + Self.bitsPerWord - 1) / Self.bitsPerWord)
        var words = [[String]](repeating: [], count: wordCount)
        for (bit, condition) in conditions.enumerated() {
            let value = Int64(1) << Int64(bit % Self.bitsPerWord)
            words[bit / Self.bitsPerWord].append("(case when \(condition) then \(value) else 0 end)")
        }
        let matches = words.map { "(" + ($0.isEmpty ? ["0"] : $0).joined(separator: "\n       + ") + ")::bigint" }
        stepsOfBit = spec.steps.indices.map { [Int8($0 + 1)] }
        for exclusion in spec.exclusions {
            // Between step k and k + 1 (1-based) is exclusion step -(k + 1), for each k in range.
            stepsOfBit.append((exclusion.fromStep..<exclusion.toStep).map { -Int8($0 + 1) })
        }
        var breakdown: String
        var people = ""
        switch spec.breakdown?.source {
        case .event?: breakdown = "e.properties ->> \(add(spec.breakdown!.property))"
        case .person?:
            breakdown = "p.props ->> \(add(spec.breakdown!.property))"
            people = SQLCatalog.text("query/funnel_people_join.sql")
        case nil: breakdown = "null::text"
        }
        switch insight {
        case .eventName?: breakdown = "e.event"
        case .value(let property)?:
            breakdown = "coalesce(e.properties ->> \(add(property)), '') || chr(31) || coalesce(\(breakdown), '')"
        case nil: break
        }
        let names = spec.order == .strict ? ""
            : "and e.event = any(\(add(Array(Set(spec.matchers.flatMap(\.events))).sorted()))::text[])"
        template = SQLCatalog.text("query/funnel_events.sql")
            .replacingOccurrences(of: "{{matches}}", with: matches[0])
            .replacingOccurrences(of: "{{more_matches}}", with: matches.dropFirst().enumerated().map { offset, word in
                ",\n       \(word) as matches_\(offset + 2)"
            }.joined())
            .replacingOccurrences(of: "{{breakdown}}", with: breakdown)
            .replacingOccurrences(of: "{{interval}}", with: trend.map(Self.intervalStart) ?? "null::bigint")
            .replacingOccurrences(of: "{{people}}", with: people)
            .replacingOccurrences(of: "{{scope}}", with: computeScope ? SQLCatalog.text("query/funnel_scope_join.sql") : "")
            .replacingOccurrences(of: "{{names}}", with: names)
    }

    /// The statement and its parameters for only `users` (app and user), their events in the order
    /// that settles ties (funnel_tied_users.sql).
    func ordered(for users: [(app: String, user: String)]) -> (sql: String, parameters: [(any PostgresEncodable)?]) {
        let count = parameters.count
        let tied = SQLCatalog.text("query/funnel_tied_users.sql")
            .replacingOccurrences(of: "{{apps}}", with: "$\(count + 1)")
            .replacingOccurrences(of: "{{users}}", with: "$\(count + 2)")
        return (template.replacingOccurrences(of: "{{tied}}", with: tied), parameters + [users.map(\.app), users.map(\.user)])
    }

    /// The start of an event's interval in microseconds (UTC): weeks start on Sunday, as PostHog's
    /// do by default. The unit is fixed text from the enum, never input.
    static func intervalStart(_ trend: FunnelTrendInterval) -> String {
        let start = switch trend {
        case .day: "date_trunc('day', e.occurred_at, 'UTC')"
        case .week: "(date_trunc('week', e.occurred_at + interval '1 day', 'UTC') - interval '1 day')"
        case .month: "date_trunc('month', e.occurred_at, 'UTC')"
        }
        return "(extract(epoch from \(start)) * 1000000)::bigint"
    }

    /// The steps whose event names (filters aside) an event with bits `mask` (one word per
    /// matches column) has: first-time math.
    func namedSteps(of mask: ArraySlice<Int64>) -> [Int8] {
        guard firstNameBit >= 0 else { return [] }
        var steps: [Int8] = []
        forEachBit(of: mask) { bit in
            if bit >= firstNameBit { steps.append(Int8(bit - firstNameBit + 1)) }
        }
        return steps
    }

    /// The steps an event with matcher bits `mask` (one word per matches column) fills.
    func steps(of mask: ArraySlice<Int64>) -> [Int8] {
        var steps: [Int8] = []
        forEachBit(of: mask) { bit in
            if firstNameBit < 0 || bit < firstNameBit { steps += stepsOfBit[bit] }
        }
        return steps.sorted()
    }

    /// Calls `body` with the index of each bit set in `mask`, lowest first.
    private func forEachBit(of mask: ArraySlice<Int64>, _ body: (Int) -> Void) {
        for (word, bits) in mask.enumerated() {
            var rest = bits
            while rest != 0 {
                body(word * Self.bitsPerWord + rest.trailingZeroBitCount)
                rest &= rest &- 1
            }
        }
    }

    /// Adds a parameter; returns its placeholder.
    private mutating func add(_ value: any PostgresEncodable) -> String {
        parameters.append(value)
        return "$\(parameters.count)"
    }

    /// A property filter as SQL over `e.properties` (a missing property fails `=`, `contains`,
    /// `~`, `>`, `<` and `is set`, and passes their negations).
    private mutating func condition(_ filter: PropertyFilter) -> String {
        let key = add(filter.key)
        let text = "(e.properties ->> \(key))"
        switch filter.op {
        case .equals: return "\(text) = any(\(add(filter.values))::text[])"
        case .notEquals: return "coalesce(not \(text) = any(\(add(filter.values))::text[]), true)"
        case .contains: return "coalesce(strpos(lower(\(text)), lower(\(add(filter.values[0]))) ) > 0, false)"
        case .notContains: return "coalesce(strpos(lower(\(text)), lower(\(add(filter.values[0]))) ) = 0, true)"
        case .regex: return "coalesce(\(text) ~ \(add(filter.values[0])), false)"
        case .notRegex: return "coalesce(not \(text) ~ \(add(filter.values[0])), true)"
        case .greaterThan: return "coalesce(try_numeric(\(text)) > \(add(filter.values[0]))::numeric, false)"
        case .lessThan: return "coalesce(try_numeric(\(text)) < \(add(filter.values[0]))::numeric, false)"
        case .isSet: return "coalesce(jsonb_typeof(e.properties -> \(key)) <> 'null', false)"
        case .isNotSet: return "coalesce(jsonb_typeof(e.properties -> \(key)) = 'null', true)"
        }
    }
}
