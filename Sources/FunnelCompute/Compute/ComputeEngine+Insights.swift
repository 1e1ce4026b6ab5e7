import FunnelCore
import FunnelQuery
import Logging
import PostgresClient

extension ComputeEngine {
    /// Counts the configured trends and lifecycles (`[[trends]]`, `[[lifecycle]]`) into
    /// fct_insights with the runner `funnel query trends` and `funnel query lifecycle` use, over
    /// the last `days` days through each computed app's last date with data (the default end of
    /// `funnel query`), in the configuration's time zone: the computed insight equals the ad hoc
    /// one for the same range. Counted whole by every run, whatever else it rebuilt, since new
    /// events and a changed definition both change it.
    func buildInsights(_ connection: PostgresConnection) throws {
        try connection.execute("delete from fct_insights")
        guard !configuration.trends.isEmpty || !configuration.lifecycles.isEmpty else { return }
        let apps = try connection.query("select app_id from compute_state order by app_id").map { try $0.decode(String.self, at: 0) }
        let logger = self.logger
        let runner = InsightQueryRunner(connection: connection) { warning in logger.warning("\(warning)") }
        var rows = InsightRows()
        for app in apps {
            guard let lastDay = try runner.lastDay(app: app, timeZone: configuration.timeZone) else { continue }
            for trend in configuration.trends {
                let spec = TrendsSpec(series: trend.series, interval: trend.interval, weekStart: trend.weekStart,
                                      timeZone: configuration.timeZone, breakdown: trend.breakdown,
                                      breakdownLimit: trend.breakdownLimit, formula: trend.formula)
                if let problem = spec.problem() {
                    throw InsightDefinitionError(message: "[[trends]] \(trend.name): \(problem)")
                }
                let result = try runner.trends(spec, range: InsightRange(app: app, fromDay: lastDay - trend.days + 1, toDay: lastDay))
                rows.add(result, app: app, insight: "trends", name: trend.name)
            }
            for lifecycle in configuration.lifecycles {
                let spec = LifecycleSpec(event: lifecycle.event, interval: lifecycle.interval, weekStart: lifecycle.weekStart,
                                         timeZone: configuration.timeZone)
                let result = try runner.lifecycle(spec, range: InsightRange(app: app, fromDay: lastDay - lifecycle.days + 1, toDay: lastDay))
                rows.add(result, app: app, insight: "lifecycle", name: lifecycle.name)
            }
            try rows.insert(connection)
        }
    }
}

/// A configured insight that cannot be counted (a formula naming a series it does not have).
public struct InsightDefinitionError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Lines of insights collected for one multi-row insert into fct_insights.
private struct InsightRows {
    var apps: [String] = []
    var insights: [String] = []
    var names: [String] = []
    var lineIndices: [Int] = []
    var lines: [String] = []
    var breakdowns: [String] = []
    var pointIndices: [Int] = []
    var points: [String] = []
    var values: [Double] = []
    /// Points without a value (the formula's, where a series has none): NULL.
    var missing: [Bool] = []

    mutating func add(_ result: InsightResult, app: String, insight: String, name: String) {
        for (lineIndex, line) in result.lines.enumerated() {
            for (pointIndex, point) in line.points.enumerated() {
                apps.append(app)
                insights.append(insight)
                names.append(name)
                lineIndices.append(lineIndex)
                lines.append(line.label)
                breakdowns.append(line.breakdown ?? "")
                pointIndices.append(pointIndex)
                points.append(point)
                let value = pointIndex < line.values.count ? line.values[pointIndex] : nil
                values.append(value ?? 0)
                missing.append(value == nil)
            }
        }
    }

    mutating func insert(_ connection: PostgresConnection) throws {
        guard !apps.isEmpty else { return }
        try connection.query("""
            insert into fct_insights (app_id, insight, name, line_index, line, breakdown, point_index, point, interval_start, value)
            select a, i, n, li, l, b, pi, p, p::timestamp, case when m then null else v end
            from unnest($1::text[], $2::text[], $3::text[], $4::integer[], $5::text[], $6::text[], $7::integer[], $8::text[],
                        $9::double precision[], $10::boolean[]) as x (a, i, n, li, l, b, pi, p, v, m)
            """, [apps, insights, names, lineIndices, lines, breakdowns, pointIndices, points, values, missing])
        self = InsightRows()
    }
}
