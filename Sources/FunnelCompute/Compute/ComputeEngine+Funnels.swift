import FunnelCore
import FunnelQuery
import FunnelSQL
import PostgresClient

extension ComputeEngine {
    /// Evaluates the configured funnels for the scope users, with the evaluator `funnel query
    /// funnel` uses (so a computed funnel and the same ad hoc query agree), and stores the steps
    /// each user's counted attempt reached, with their times. Users an exclusion leaves out store
    /// nothing.
    func evaluateCustomFunnels(_ connection: PostgresConnection) throws {
        try connection.execute("""
            delete from int_user_funnel_steps s using scope_installs si
            where s.app_id = si.app_id and s.user_id = si.user_id
            """)
        guard !configuration.funnels.isEmpty else { return }
        let runner = FunnelQueryRunner(connection: connection)
        var batch = FunnelStepBatch()
        for funnel in configuration.funnels {
            try runner.evaluateComputeScope(funnel.spec) { app, user, result in
                guard result.furthestStep > 0 else { return }
                var micros = result.startMicros
                for step in 0..<result.furthestStep {
                    if step > 0 { micros += result.gaps[step - 1] }
                    batch.append(app: app, user: user, funnel: funnel.name, step: step, time: Double(micros) / 1_000_000)
                }
                if batch.count >= 5_000 { try batch.insert(connection) }
            }
        }
        try batch.insert(connection)
    }
}

/// Reached funnel steps collected for one multi-row insert.
private struct FunnelStepBatch {
    var apps: [String] = []
    var users: [String] = []
    var funnels: [String] = []
    var steps: [Int] = []
    var times: [Double] = []

    var count: Int { apps.count }

    mutating func append(app: String, user: String, funnel: String, step: Int, time: Double) {
        apps.append(app)
        users.append(user)
        funnels.append(funnel)
        steps.append(step)
        times.append(time)
    }

    mutating func insert(_ connection: PostgresConnection) throws {
        guard count > 0 else { return }
        try connection.query("""
            insert into int_user_funnel_steps (app_id, user_id, funnel, step_index, reached_at)
            select a, u, f, s, to_timestamp(t)
            from unnest($1::text[], $2::text[], $3::text[], $4::integer[], $5::double precision[]) as x (a, u, f, s, t)
            """, [apps, users, funnels, steps, times])
        self = FunnelStepBatch()
    }
}
