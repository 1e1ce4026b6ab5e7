import Foundation
import FunnelCompute
import FunnelCore
import FunnelSQL
import PostgresClient
import Testing
import TestSupport

/// The default funnel's exact medians: computed from every point by a whole-history rebuild
/// (`FunnelMedianTable`), and kept by `intermediate/metrics/int_funnel_points.fold.sql`, where
/// each run moves a group's anchor by the changes below it and walks to the new middle. Both are
/// checked against PostgreSQL's percentile_disc and percentile_cont over the stored points.
@Suite("Funnel medians kept by their changes")
struct FunnelMediansTests {
    /// One user's funnel side as `funnel_fact_changes` carries it.
    private struct Point: Equatable {
        var network: String
        var campaign: String
        var seconds: [Double?]
    }

    /// A deterministic generator (SplitMix64), so a failing round can be replayed.
    private struct Random {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    @Test("medians and counts equal percentile_cont over the points after every round of inserts, moves and deletes")
    func walkedMediansEqualSortedOnes() throws {
        let fixture = try ComputeFixture()
        let connection = fixture.connection
        var random = Random(state: 42)
        var users: [String: Point] = [:]
        // The working tables live until the transaction ends, as in a compute run.
        try connection.execute("begin")
        do {
            try connection.execute(SQLCatalog.text("intermediate/metrics/scope_tables.sql"))
            for round in 0..<14 {
                try connection.execute("truncate funnel_fact_changes")
                var changes: [(Int, String, Point)] = []
                // Early rounds mostly add users; later ones move and remove many, so anchors are
                // deleted, groups empty out and medians walk both ways, over heavily tied seconds.
                let operations = round < 4 ? 120 : 60
                for _ in 0..<operations {
                    let user = "u\(random.next(round < 4 ? 400 : 150))"
                    let action = random.next(10)
                    if let old = users[user], action < (round < 4 ? 2 : 5) {
                        changes.append((-1, user, old))
                        users[user] = nil
                        continue
                    }
                    let networks = round % 5 == 4 ? ["rare"] : ["adnova", "pixelreach", "organic"]
                    let new = Point(
                        network: networks[random.next(networks.count)],
                        campaign: ["", "c1", "c2"][random.next(3)],
                        seconds: (0..<4).map { step in
                            random.next(4) <= step ? nil : Double(random.next(round < 7 ? 6 : 400))
                        })
                    if let old = users[user] { changes.append((-1, user, old)) }
                    changes.append((1, user, new))
                    users[user] = new
                }
                for (sign, user, point) in changes {
                    try connection.query("""
                        insert into funnel_fact_changes values ($1, 'app', $2, $3, $4, 'XX', 'ios', $5, $6, $7, $8)
                        """, [sign, user, point.network, point.campaign, point.seconds[0], point.seconds[1],
                              point.seconds[2], point.seconds[3]])
                }
                try connection.execute(SQLCatalog.text("intermediate/metrics/int_funnel_points.fold.sql"))
                let kept = try connection.query("""
                    select (step_index, dim, dim_value, users, median_seconds)::text
                    from int_funnel_medians where step_index > 0 order by 1
                    """).map { try $0.decode(String.self, at: 0) }
                let sorted = try connection.query("""
                    select (p.step_index, d.dim, d.dim_value, count(*),
                            percentile_cont(0.5) within group (order by p.seconds))::text
                    from int_funnel_points p
                    cross join lateral (values ('all', 'all'), ('network', p.network), ('campaign', p.campaign),
                                               ('country', p.country), ('platform', p.platform)) as d (dim, dim_value)
                    group by p.step_index, d.dim, d.dim_value order by 1
                    """).map { try $0.decode(String.self, at: 0) }
                #expect(kept == sorted, "round \(round): kept medians differ from percentile_cont")
                #expect(kept.count > 3)
                let starts = try connection.query("""
                    select users from int_funnel_medians where step_index = 0 and dim = 'all'
                    """).map { try $0.decode(Int.self, at: 0) }
                #expect(starts == (users.isEmpty ? [] : [users.count]), "round \(round): step 0 counts every user")
                let points = try connection.query("select count(*) from int_funnel_points").scalar(Int.self)
                let expected = users.values.reduce(0) { $0 + $1.seconds.compactMap { $0 }.count }
                #expect(points == expected, "round \(round): one point per user and step reached")
            }
        }
        try connection.execute("rollback")
    }

    @Test("a whole-history rebuild's medians, anchors and counts equal PostgreSQL's percentiles over the points")
    func rebuiltMediansEqualPercentiles() throws {
        let generated = try FrictionFixtures.generate(users: 1500, seed: 9)
        defer { try? FileManager.default.removeItem(at: generated.directory) }
        let settings = try TestCluster.freshDatabase(migrated: true)
        let connection = try settings.connect()
        try GeneratedDataLoader.load(directory: generated.directory.path, settings: settings)
        let summary = try #require(try ComputeEngine(configuration: FunnelConfiguration()).run(connection, options: ComputeOptions(full: true)))
        #expect(summary.failedChecks.isEmpty)
        let stored = try connection.query("""
            select (app_id, step_index, dim, dim_value, users, anchor_seconds, anchor_below, anchor_ties,
                    median_seconds)::text
            from int_funnel_medians where funnel = 'default' and step_index > 0 order by 1
            """).map { try $0.decode(String.self, at: 0) }
        let percentiles = try connection.query("""
            with points as (
                select p.app_id, p.step_index, p.seconds, d.dim, d.dim_value
                from int_funnel_points p
                cross join lateral (values ('all', 'all'), ('network', p.network), ('campaign', p.campaign),
                                           ('country', p.country), ('platform', p.platform)) as d (dim, dim_value)
                where p.funnel = 'default'
            ), groups as (
                select app_id, step_index, dim, dim_value, count(*) as users,
                       percentile_disc(0.5) within group (order by seconds) as anchor,
                       percentile_cont(0.5) within group (order by seconds) as median
                from points group by app_id, step_index, dim, dim_value
            )
            select (g.app_id, g.step_index, g.dim, g.dim_value, g.users, g.anchor,
                    count(*) filter (where p.seconds < g.anchor), count(*) filter (where p.seconds = g.anchor),
                    g.median)::text
            from groups g
            join points p using (app_id, step_index, dim, dim_value)
            group by g.app_id, g.step_index, g.dim, g.dim_value, g.users, g.anchor, g.median
            order by 1
            """).map { try $0.decode(String.self, at: 0) }
        #expect(stored == percentiles)
        // Every step of the funnel has points, with several breakdown values each.
        let steps = try connection.query("select count(distinct step_index) from int_funnel_medians where step_index > 0")
            .scalar(Int.self)
        #expect(steps == 4)
        #expect(stored.count > 40, "\(stored.count) groups")
        // Step 0 counts every cohort member once, per breakdown as for the steps.
        let starts = try connection.query("""
            select users from int_funnel_medians where step_index = 0 and dim = 'all'
            """).map { try $0.decode(Int.self, at: 0) }
        let members = try connection.query("select count(*) from int_user_facts").scalar(Int.self)
        #expect(starts == [members])
    }
}
