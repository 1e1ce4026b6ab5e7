import FunnelCore
import FunnelQuery
import FunnelSQL
import PostgresClient

extension ComputeEngine {
    /// Evaluates the configured funnels for the scope users, with the evaluator `funnel query
    /// funnel` uses (so a computed funnel and the same ad hoc query agree), and stores the steps
    /// each user's counted attempt reached, with their times. Users an exclusion leaves out store
    /// nothing.
    ///
    /// A funnel with a breakdown is evaluated twice: without it (each user once, in
    /// int_user_funnel_steps, for the funnel and its network/campaign/country/platform splits) and
    /// with it (per breakdown value, in int_user_funnel_breakdown_steps).
    func evaluateCustomFunnels(_ connection: PostgresConnection) throws {
        for table in ["int_user_funnel_steps", "int_user_funnel_breakdown_steps"] {
            try connection.execute("""
                delete from \(table) s using scope_installs si
                where s.app_id = si.app_id and s.user_id = si.user_id
                """)
        }
        guard !configuration.funnels.isEmpty else { return }
        let runner = FunnelQueryRunner(connection: connection)
        for funnel in configuration.funnels {
            var plain = funnel.spec
            plain.breakdown = nil
            try store(runner, plain, stepMaths: funnel.stepMaths, funnel: funnel.name, into: FunnelStepBatch(byBreakdown: false),
                      connection)
            if funnel.spec.breakdown != nil {
                try store(runner, funnel.spec, stepMaths: funnel.stepMaths, funnel: funnel.name,
                          into: FunnelStepBatch(byBreakdown: true), connection)
            }
        }
    }

    /// Evaluates one spec for the scope users and stores the steps each counted attempt reached.
    private func store(_ runner: FunnelQueryRunner, _ spec: EventFunnelSpec, stepMaths: [StepMath]?, funnel: String,
                       into batch: FunnelStepBatch, _ connection: PostgresConnection) throws {
        var batch = batch
        try runner.evaluateComputeScope(spec, stepMaths: stepMaths) { app, user, result in
            guard result.furthestStep > 0 else { return }
            var micros = result.startMicros
            for step in 0..<result.furthestStep {
                if step > 0 { micros += result.gaps[step - 1] }
                batch.append(app: app, user: user, funnel: funnel, breakdown: result.breakdown, step: step,
                             time: Double(micros) / 1_000_000)
            }
            if batch.count >= 5_000 { try batch.insert(connection) }
        }
        try batch.insert(connection)
    }
}

/// Reached funnel steps collected for one multi-row insert, into int_user_funnel_steps or (per
/// breakdown value) int_user_funnel_breakdown_steps.
private struct FunnelStepBatch {
    let byBreakdown: Bool
    var apps: [String] = []
    var users: [String] = []
    var funnels: [String] = []
    /// Breakdown values, "" where `hasBreakdown` is false (the user lacks the property).
    var breakdowns: [String] = []
    var hasBreakdown: [Bool] = []
    var steps: [Int] = []
    var times: [Double] = []

    init(byBreakdown: Bool) {
        self.byBreakdown = byBreakdown
    }

    var count: Int { apps.count }

    mutating func append(app: String, user: String, funnel: String, breakdown: String?, step: Int, time: Double) {
        apps.append(app)
        users.append(user)
        funnels.append(funnel)
        breakdowns.append(breakdown ?? "")
        hasBreakdown.append(breakdown != nil)
        steps.append(step)
        times.append(time)
    }

    mutating func insert(_ connection: PostgresConnection) throws {
        guard count > 0 else { return }
        if byBreakdown {
            try connection.query("""
                insert into int_user_funnel_breakdown_steps (app_id, user_id, funnel, breakdown, step_index, reached_at)
                select a, u, f, case when h then b end, s, to_timestamp(t)
                from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::integer[],
                            $7::double precision[]) as x (a, u, f, b, h, s, t)
                """, [apps, users, funnels, breakdowns, hasBreakdown, steps, times])
        } else {
            try connection.query("""
                insert into int_user_funnel_steps (app_id, user_id, funnel, step_index, reached_at)
                select a, u, f, s, to_timestamp(t)
                from unnest($1::text[], $2::text[], $3::text[], $4::integer[], $5::double precision[]) as x (a, u, f, s, t)
                """, [apps, users, funnels, steps, times])
        }
        self = FunnelStepBatch(byBreakdown: byBreakdown)
    }
}
