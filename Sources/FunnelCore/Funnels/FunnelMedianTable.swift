/// The exact medians of the default funnel's step times, per (app, step) and per breakdown value,
/// computed from every point at once: what `int_funnel_medians` keeps for steps 1-4 after a
/// whole-history rebuild (`ComputeEngine` streams `int_funnel_points` here and computes them
/// beside the cohort rollups, on the processor the server's one statement leaves idle).
///
/// A group's row, as migration 0043 defines it:
/// - `users`: its points;
/// - `anchorSeconds`: the point at rank floor((users - 1) / 2) in ascending order, which is
///   `percentile_disc(0.5)`;
/// - `anchorBelow` and `anchorTies`: its points below that value and equal to it;
/// - `medianSeconds`: `percentile_cont(0.5)`, the anchor when `users` is odd, otherwise
///   `anchor + 0.5 * (next - anchor)` with the point after it, the formula PostgreSQL
///   interpolates by (and `int_funnel_points.fold.sql` walks to), so both give the same bits.
///
/// Breakdown values and apps are kept as small numbers while points are added (`add`), so a
/// million points cost a few hundred kilobytes of names and one array of numbers.
public struct FunnelMedianTable: Sendable {
    /// One group's figures, in `int_funnel_medians`' columns.
    public struct Row: Sendable, Equatable, CustomStringConvertible {
        public var appID: String
        public var stepIndex: Int
        /// `all`, `network`, `campaign`, `country` or `platform`.
        public var dim: String
        /// The breakdown's value, or `all`.
        public var dimValue: String
        public var users: Int
        public var anchorSeconds: Double
        public var anchorBelow: Int
        public var anchorTies: Int
        public var medianSeconds: Double

        public var description: String {
            "\(appID) step \(stepIndex) \(dim)=\(dimValue): \(users) users, anchor \(anchorSeconds) "
                + "(\(anchorBelow) below, \(anchorTies) at it), median \(medianSeconds)"
        }
    }

    /// The breakdowns in `int_funnel_medians`' `dim` names, in the order `add` takes their values.
    public static let breakdowns = ["network", "campaign", "country", "platform"]

    /// One point: indices into `names`, the step and its seconds.
    private struct Point {
        var app: Int32
        var step: Int32
        var values: (Int32, Int32, Int32, Int32)
        var seconds: Double
    }

    private var names: [String] = []
    private var numbers: [String: Int32] = [:]
    private var points: [Point] = []

    public init() {}

    /// Points added so far.
    public var count: Int { points.count }

    /// Adds one user's time to reach `stepIndex` from the step before, with the user's app and
    /// breakdown values (network, campaign, country, platform).
    public mutating func add(appID: String, stepIndex: Int, seconds: Double,
                             network: String, campaign: String, country: String, platform: String) {
        points.append(Point(app: number(appID), step: Int32(stepIndex),
                            values: (number(network), number(campaign), number(country), number(platform)),
                            seconds: seconds))
    }

    private mutating func number(_ name: String) -> Int32 {
        if let known = numbers[name] { return known }
        let new = Int32(names.count)
        names.append(name)
        numbers[name] = new
        return new
    }

    /// Every group's row, ordered by app, step, breakdown (`all` first, then `breakdowns`' order)
    /// and value.
    public func rows() -> [Row] {
        /// A group: app, step, breakdown (0 = all, 1-4 = `breakdowns`) and value (-1 for all).
        struct Group: Hashable {
            var app: Int32
            var step: Int32
            var breakdown: Int32
            var value: Int32
        }
        var groups: [Group: [Double]] = [:]
        for point in points {
            func add(_ breakdown: Int32, _ value: Int32) {
                groups[Group(app: point.app, step: point.step, breakdown: breakdown, value: value), default: []]
                    .append(point.seconds)
            }
            add(0, -1)
            add(1, point.values.0)
            add(2, point.values.1)
            add(3, point.values.2)
            add(4, point.values.3)
        }
        var rows: [(Group, Row)] = []
        rows.reserveCapacity(groups.count)
        for (group, seconds) in groups {
            let dim = group.breakdown == 0 ? "all" : Self.breakdowns[Int(group.breakdown) - 1]
            let value = group.value < 0 ? "all" : names[Int(group.value)]
            rows.append((group, Self.row(app: names[Int(group.app)], step: Int(group.step), dim: dim, value: value,
                                         sorting: seconds)))
        }
        rows.sort { a, b in
            if a.1.appID != b.1.appID { return a.1.appID < b.1.appID }
            if a.0.step != b.0.step { return a.0.step < b.0.step }
            if a.0.breakdown != b.0.breakdown { return a.0.breakdown < b.0.breakdown }
            return a.1.dimValue < b.1.dimValue
        }
        return rows.map(\.1)
    }

    /// One group's row from its seconds, in any order (at least one).
    static func row(app: String, step: Int, dim: String, value: String, sorting seconds: [Double]) -> Row {
        let sorted = seconds.sorted()
        let middle = (sorted.count - 1) / 2
        let anchor = sorted[middle]
        let below = firstIndex(in: sorted) { $0 >= anchor }
        let ties = firstIndex(in: sorted) { $0 > anchor } - below
        let median = sorted.count % 2 == 1 ? anchor : anchor + 0.5 * (sorted[middle + 1] - anchor)
        return Row(appID: app, stepIndex: step, dim: dim, dimValue: value, users: sorted.count,
                   anchorSeconds: anchor, anchorBelow: below, anchorTies: ties, medianSeconds: median)
    }

    /// The first index whose value meets `test`, which holds from some index to the end of the
    /// sorted values (binary search); the count when it holds nowhere.
    private static func firstIndex(in sorted: [Double], where test: (Double) -> Bool) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if test(sorted[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
