import Foundation
import FunnelSQL
import PostgresClient

extension ComputeEngine {
    /// The whole history's users' days summed in the client (`UserDaysTable`) instead of by
    /// `scope_user_days.sql` and `scope_user_activity.sql`: streams the scope's installs, each
    /// user's revenue per day and every event, writes the users' activity
    /// (`scope_user_activity`) and each app's latest event (`scope_last_events`), and returns the
    /// day rollup's rows for `writeDayRollup` once the cohort rollup is rebuilt.
    /// `scope_user_days` stays empty.
    /// - Parameter expectedEvents: the raw tables' estimated events (`expectedUserEvents`).
    func sumUserDaysInClient(_ connection: PostgresConnection, expectedEvents: Int) throws -> UserDaysTable.Sums {
        let row = try connection.query("""
            select regular_days, kfactor_window_days, max_day, day_rule = 'hours24'
            from compute_settings where app_id = ''
            """)
        guard let settings = row.rows.first else {
            throw PostgresError(code: .client, message: "compute_settings has no row for the run's configuration")
        }
        var table = UserDaysTable(settings: UserDaysTable.Settings(
            regularDays: try settings.decode(Int32.self, at: 0), kfactorWindowDays: try settings.decode(Int32.self, at: 1),
            maxDay: try settings.decode(Int32.self, at: 2), hours24: try settings.decode(Bool.self, at: 3)),
            expectedEvents: expectedEvents)
        try timed("user_days_read") {
            try connection.stream(SQLCatalog.text("intermediate/metrics/scope_installs.stream.sql")) { batch in
                for row in 0..<batch.count {
                    table.addInstall(app: batch.string(row, 0) ?? "", user: batch.string(row, 1) ?? "",
                                     installedAtMicros: batch.timestampMicros(row, 2), cohortDay: Int32(batch.int64(row, 3)),
                                     network: batch.string(row, 4) ?? "", campaign: batch.string(row, 5) ?? "",
                                     country: batch.string(row, 6) ?? "", platform: batch.string(row, 7) ?? "")
                }
            }
            try connection.stream(SQLCatalog.text("intermediate/metrics/scope_user_revenue.stream.sql")) { batch in
                for row in 0..<batch.count {
                    try table.addRevenue(app: batch.string(row, 0) ?? "", user: batch.string(row, 1) ?? "",
                                         day: Int32(batch.int64(row, 2)), usd: batch.string(row, 3) ?? "")
                }
            }
            try connection.stream(SQLCatalog.text("intermediate/metrics/scope_user_events.stream.sql")) { batch in
                for row in 0..<batch.count {
                    guard let kind = UserDaysTable.Kind(rawValue: UInt8(truncatingIfNeeded: batch.int64(row, 2))) else { continue }
                    table.addEvent(app: batch.string(row, 0) ?? "", user: batch.string(row, 1) ?? "", kind: kind,
                                   atMicros: batch.timestampMicros(row, 3), day: Int32(batch.int64(row, 4)))
                }
            }
        }
        let sums = timed("user_days_sum") { table.sum() }
        try timed("user_activity_write") {
            try connection.copyIn("copy scope_user_activity from stdin") { writer in
                try sums.activity.withUnsafeBytes { try writer.write($0) }
            }
            try connection.execute("analyze scope_user_activity (app_id, user_id)")
            try connection.copyIn("copy scope_last_events (app_id, last_event_at) from stdin") { writer in
                var text: [UInt8] = []
                for (app, micros) in sums.lastEventAt {
                    CopyText.appendField(app, to: &text)
                    text.append(UInt8(ascii: "\t"))
                    CopyText.appendTimestamp(micros: micros, to: &text)
                    text.append(UInt8(ascii: "\n"))
                }
                try writer.write(text)
            }
        }
        return sums
    }

    /// The planner's estimate of the events the users' days are made of
    /// (`scope_user_events.estimate.sql`).
    func expectedUserEvents(_ connection: PostgresConnection) throws -> Int {
        try connection.query(SQLCatalog.text("intermediate/metrics/scope_user_events.estimate.sql")).scalar(Int.self)
    }

    /// Writes the day rollup's rows the client summed (`sumUserDaysInClient`).
    func writeDayRollup(_ connection: PostgresConnection, _ sums: UserDaysTable.Sums) throws {
        try connection.copyIn("copy int_cohort_day_rollup (\(UserDaysTable.dayRollupColumns)) from stdin") { writer in
            try sums.dayRollup.withUnsafeBytes { try writer.write($0) }
        }
    }
}
