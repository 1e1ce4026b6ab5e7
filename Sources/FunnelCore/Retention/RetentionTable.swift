/// A retention answer: per breakdown value, the cohort x period triangle (classic and rolling),
/// the brackets and the summary pooled over cohorts, with maturity applied. Built from users'
/// ``RetentionUserResult``s, so the ad hoc query and the computed marts count alike.
///
/// - Classic, period k: members who came back in period k / cohort size (period 0: every member).
/// - Rolling, period k: members who came back in period k or any later one through the as-of date.
/// - Bracket first-last: members who came back in any period first to last / cohort size, over
///   the cohorts whose period `last` is mature.
/// - A cell is mature when its period has ended on or before the as-of date (under the 24-hour
///   rule one more date is needed, as day N can end on the next date). Immature cells are nil
///   (missing), never 0; a mature cell nobody came back in is 0.
/// - The summary per period pools the cohorts mature for it: sum of members back / sum of sizes.
public struct RetentionTable: Sendable, Equatable {
    /// One cohort's row of the triangle.
    public struct Cohort: Sendable, Equatable {
        /// The cohort's period (``RetentionCalendar``) and its first date (days since 1970).
        public var period: Int
        public var firstDay: Int
        public var size: Int
        /// Periods 0 to `spec.periods`; nil when not mature.
        public var classic: [Int?]
        public var rolling: [Int?]
        /// Per bracket of the spec: members back in it, nil when the bracket is not mature.
        public var brackets: [Int?]
    }

    /// A pooled value: members back over the sizes of the cohorts that count, and the rate.
    public struct Pooled: Sendable, Equatable {
        public var cohorts: Int
        public var size: Int
        public var retained: Int
        public var rate: Double? { size > 0 ? Double(retained) / Double(size) : nil }

        public init(cohorts: Int, size: Int, retained: Int) {
            self.cohorts = cohorts
            self.size = size
            self.retained = retained
        }
    }

    /// One breakdown value's triangle and summaries (value nil: no breakdown, or no value).
    public struct Series: Sendable, Equatable {
        public var value: String?
        public var cohorts: [Cohort]
        /// Per period 0 to `spec.periods`: classic and rolling pooled over the cohorts mature for it.
        public var classic: [Pooled]
        public var rolling: [Pooled]
        /// Per bracket of the spec, over the cohorts for which the whole bracket is mature.
        public var brackets: [Pooled]
        public var users: Int { cohorts.reduce(0) { $0 + $1.size } }
    }

    public let spec: RetentionSpec
    public let asOfDay: Int
    public let series: [Series]

    /// Counts users' cohorts as they are evaluated, then builds the table.
    public struct Builder: Sendable {
        struct Counts: Sendable {
            var size = 0
            var classic: [Int]
            var rolling: [Int]
            var brackets: [Int]
        }

        public let spec: RetentionSpec
        public let asOfDay: Int
        /// The cohort range's first and last local dates: every cohort in it is listed, empty
        /// ones with size 0 (nil ends: the first and last cohort found).
        public let fromDay: Int?
        public let toDay: Int?
        /// The cohorts' calendar (``RetentionSpec/cohortCalendarPeriod``).
        let calendar: RetentionCalendar
        var counts: [String?: [Int: Counts]] = [:]

        public init(spec: RetentionSpec, asOfDay: Int, fromDay: Int? = nil, toDay: Int? = nil) {
            self.spec = spec
            self.asOfDay = asOfDay
            self.fromDay = fromDay
            self.toDay = toDay
            calendar = RetentionCalendar(period: spec.cohortCalendarPeriod, timeZone: spec.timeZone)
        }

        /// The counts with every cohort of the range in each series (a series without a
        /// breakdown even when nobody started), empty ones at size 0.
        func filled() -> [String?: [Int: Counts]] {
            var counts = counts
            if counts.isEmpty && spec.breakdown == nil && fromDay != nil { counts[nil] = [:] }
            let periods = spec.periods
            let empty = Counts(classic: [Int](repeating: 0, count: periods + 1), rolling: [Int](repeating: 0, count: periods + 1),
                               brackets: [Int](repeating: 0, count: spec.brackets.count))
            for (value, cells) in counts {
                guard let first = fromDay.map(calendar.period(ofDay:)) ?? cells.keys.min(),
                      let last = toDay.map({ calendar.period(ofDay: min($0, asOfDay)) }) ?? cells.keys.max(),
                      first <= last else { continue }
                for period in first...last where cells[period] == nil { counts[value]![period] = empty }
            }
            return counts
        }

        public mutating func add(_ result: RetentionUserResult) {
            let periods = spec.periods
            var cell = counts[result.breakdown, default: [:]][result.cohort]
                ?? Counts(classic: [Int](repeating: 0, count: periods + 1), rolling: [Int](repeating: 0, count: periods + 1),
                          brackets: [Int](repeating: 0, count: spec.brackets.count))
            cell.size += 1
            cell.classic[0] += 1
            cell.rolling[0] += 1
            for offset in result.returned where offset <= periods { cell.classic[offset] += 1 }
            if let last = result.returned.last {
                for offset in 1...min(last, periods) { cell.rolling[offset] += 1 }
            }
            for (index, bracket) in spec.brackets.enumerated()
            where bracket.lowerBound == 0 || result.returned.contains(where: bracket.contains) {
                cell.brackets[index] += 1
            }
            counts[result.breakdown, default: [:]][result.cohort] = cell
        }

        /// Whether period `offset` of cohort `period` has ended by the as-of date.
        func mature(_ period: Int, _ offset: Int) -> Bool {
            // Longer cohorts with day periods: day `offset` of the cohort's last member.
            if calendar.period != (spec.hours24 ? .day : spec.period) {
                return calendar.lastDay(ofPeriod: period) + offset + (spec.hours24 ? 1 : 0) <= asOfDay
            }
            return calendar.lastDay(ofPeriod: period + offset) + (spec.hours24 ? 1 : 0) <= asOfDay
        }

        public func table() -> RetentionTable {
            let counts = filled()
            let series = counts.keys.sorted { ($0 ?? "\u{10FFFF}") < ($1 ?? "\u{10FFFF}") }.map { value -> Series in
                let rows = counts[value]!.sorted { $0.key < $1.key }
                let cohorts = rows.map { period, cell -> Cohort in
                    Cohort(period: period, firstDay: calendar.firstDay(ofPeriod: period), size: cell.size,
                           classic: cell.classic.indices.map { mature(period, $0) ? cell.classic[$0] : nil },
                           rolling: cell.rolling.indices.map { mature(period, $0) ? cell.rolling[$0] : nil },
                           brackets: spec.brackets.indices.map { mature(period, spec.brackets[$0].upperBound) ? cell.brackets[$0] : nil })
                }
                func pooled(_ values: (Cohort) -> Int?) -> Pooled {
                    var result = Pooled(cohorts: 0, size: 0, retained: 0)
                    for cohort in cohorts {
                        guard let value = values(cohort) else { continue }
                        result.cohorts += 1
                        result.size += cohort.size
                        result.retained += value
                    }
                    return result
                }
                return Series(value: value, cohorts: cohorts,
                              classic: (0...spec.periods).map { k in pooled { $0.classic[k] } },
                              rolling: (0...spec.periods).map { k in pooled { $0.rolling[k] } },
                              brackets: spec.brackets.indices.map { b in pooled { $0.brackets[b] } })
            }
            return RetentionTable(spec: spec, asOfDay: asOfDay, series: series)
        }
    }
}
