import FunnelCore
import FunnelSQL
import PostgresClient

extension ComputeEngine {
    /// Evaluates the user-defined funnels for the scope users (in Swift: the PostHog matching
    /// rules would be contorted in SQL) and stores the steps each user reached.
    func evaluateCustomFunnels(_ connection: PostgresConnection) throws {
        try connection.execute("""
            delete from int_user_funnel_steps s using scope_installs si
            where s.app_id = si.app_id and s.user_id = si.user_id
            """)
        guard !configuration.funnels.isEmpty else { return }
        let evaluators = configuration.funnels.map(FunnelEvaluator.init)
        let names = Array(configuration.funnels.reduce(into: Set<String>()) { $0.formUnion($1.eventNames) }).sorted()
        let needsAll = configuration.funnels.contains { $0.order == .strict }
        let rows = try connection.query(SQLCatalog.text("compute/int_funnel_events.sql"), [names, needsAll])

        var batch = FunnelStepBatch()
        var currentKey: (String, String)?
        var events: [TrackedEvent] = []
        func flush() throws {
            guard let (app, user) = currentKey else { return }
            for evaluator in evaluators {
                let relevant = evaluator.definition.order == .strict
                    ? events : events.filter { evaluator.definition.eventNames.contains($0.name) }
                if case .reached(let times) = evaluator.evaluate(relevant) {
                    for (index, time) in times.enumerated() {
                        batch.append(app: app, user: user, funnel: evaluator.definition.name, step: index, time: time)
                    }
                }
            }
            if batch.count >= 5_000 { try batch.insert(connection) }
        }
        for row in rows {
            let app = try row.decode(String.self, at: 0)
            let user = try row.decode(String.self, at: 1)
            if currentKey.map({ $0 != (app, user) }) ?? true {
                try flush()
                currentKey = (app, user)
                events.removeAll(keepingCapacity: true)
            }
            events.append(TrackedEvent(name: try row.decode(String.self, at: 2), time: try row.decode(Double.self, at: 3)))
        }
        try flush()
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
