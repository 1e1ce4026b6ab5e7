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
/// Breakdown values and apps are kept as small numbers while points are added (`add`), so the
/// table holds one array of 32 bytes a point and each distinct name once; computing the rows
/// sorts that array in place and needs little more.
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
    /// and value. Consumes the table: its points are sorted in place by app, step and seconds
    /// (one sort, no copy per group), then each (app, step)'s points are walked once per
    /// breakdown, each group's middle found from its count, so memory stays that of the points.
    public consuming func rows() -> [Row] {
        points.sort { a, b in
            if a.app != b.app { return a.app < b.app }
            if a.step != b.step { return a.step < b.step }
            return a.seconds < b.seconds
        }
        var rows: [Row] = []
        var start = 0
        while start < points.count {
            var end = start + 1
            while end < points.count && points[end].app == points[start].app && points[end].step == points[start].step {
                end += 1
            }
            rows += blockRows(points[start..<end])
            start = end
        }
        return rows.sorted { a, b in
            if a.appID != b.appID { return a.appID < b.appID }
            if a.stepIndex != b.stepIndex { return a.stepIndex < b.stepIndex }
            let dimA = a.dim == "all" ? 0 : 1 + (Self.breakdowns.firstIndex(of: a.dim) ?? 0)
            let dimB = b.dim == "all" ? 0 : 1 + (Self.breakdowns.firstIndex(of: b.dim) ?? 0)
            if dimA != dimB { return dimA < dimB }
            return a.dimValue < b.dimValue
        }
    }

    /// The rows of one app's step: its points, sorted by seconds, walked for `all` and for each
    /// breakdown, every value of which is a group.
    private func blockRows(_ block: ArraySlice<Point>) -> [Row] {
        let first = block[block.startIndex]
        let app = names[Int(first.app)]
        let step = Int(first.step)
        var rows: [Row] = []
        for breakdown in 0...Self.breakdowns.count {
            func value(_ point: Point) -> Int {
                switch breakdown {
                case 0: 0
                case 1: Int(point.values.0)
                case 2: Int(point.values.1)
                case 3: Int(point.values.2)
                default: Int(point.values.3)
                }
            }
            var walks = [MiddleWalk](repeating: MiddleWalk(), count: breakdown == 0 ? 1 : names.count)
            for point in block { walks[value(point)].users += 1 }
            for point in block { walks[value(point)].step(point.seconds) }
            for (index, walk) in walks.enumerated() where walk.users > 0 {
                rows.append(Row(appID: app, stepIndex: step,
                                dim: breakdown == 0 ? "all" : Self.breakdowns[breakdown - 1],
                                dimValue: breakdown == 0 ? "all" : names[index], users: walk.users,
                                anchorSeconds: walk.anchor, anchorBelow: walk.below, anchorTies: walk.ties,
                                medianSeconds: walk.median))
            }
        }
        return rows
    }

    /// One group's walk through its times in ascending order, once its count (`users`) is known:
    /// the anchor at rank floor((users - 1) / 2), the times below it (where its run of equal times
    /// began), the times equal to it, and the time after it for an even count.
    private struct MiddleWalk {
        var users = 0
        var seen = 0
        var last = 0.0
        var runStart = 0
        var anchor = 0.0
        var below = 0
        var ties = 0
        var next = 0.0

        mutating func step(_ seconds: Double) {
            let middle = (users - 1) / 2
            if seen == 0 || seconds != last {
                runStart = seen
                last = seconds
            }
            if seen == middle {
                anchor = seconds
                below = runStart
                ties = seen - runStart + 1
            } else if seen > middle && seconds == anchor {
                ties += 1
            }
            if seen == middle + 1 { next = seconds }
            seen += 1
        }

        /// `percentile_cont(0.5)`: the anchor for an odd count, else halfway to the next time as
        /// PostgreSQL interpolates.
        var median: Double { users % 2 == 1 ? anchor : anchor + 0.5 * (next - anchor) }
    }
}
