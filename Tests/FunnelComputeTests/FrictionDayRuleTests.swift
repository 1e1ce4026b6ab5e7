import FunnelCompute
import FunnelBench
import FunnelCore
import FunnelPipeline
import Logging
import PostgresClient
import Testing
import TestSupport

private let logger = Logger(label: "test.friction.dayrule")

/// Friction's day-1 return is counted as the metrics count day 1: in the reporting time zone, by
/// calendar days or 24-hour periods (docs/metrics.md, "Days").
@Suite("Friction: day 1 in the reporting time zone and day rule")
struct FrictionDayRuleTests {
    /// Puts a configuration with `timeZone` and `dayRule` in force, as a compute job does before
    /// its lanes start: friction reads its day rule from there.
    private static func putInForce(_ connection: PostgresConnection, timeZone: String, dayRule: DayRule) throws {
        var configuration = FunnelConfiguration()
        configuration.timeZone = timeZone
        configuration.dayRule = dayRule
        try ComputeSettings(configuration: configuration).write(connection)
    }

    /// Five users who all reach `profile`; u1 hits a network error there. By hand, in May (Los
    /// Angeles is UTC-7):
    /// - u1 installs 05-01 23:30Z, opens 05-02 03:00Z: UTC day 1; Los Angeles day 0 (05-01 20:00);
    ///   24 h: 3.5 h after install, day 0.
    /// - u2 installs 05-01 23:30Z, opens 05-03 03:00Z: UTC day 2; Los Angeles day 1 (05-02 20:00);
    ///   24 h: 27.5 h, day 1.
    /// - u3 installs 05-01 10:00Z, opens 05-02 12:00Z: day 1 under every rule.
    /// - u4 installs 05-01 10:00Z, opens 05-04 12:00Z (the app's last open): day 3 everywhere.
    /// - u5 installs 05-04 01:00Z, never opens. The last open's day ends 05-05 00:00Z in UTC and
    ///   05-05 07:00Z in Los Angeles; u5's day 1 ends 05-06 00:00Z (UTC), 05-05 07:00Z (Los
    ///   Angeles: local 05-03 18:00 install, day 1 = 05-04) and 05-06 01:00Z (24 h): known, and
    ///   not returned, in Los Angeles only.
    private static func loadFirstDay(_ connection: PostgresConnection) throws {
        try FrictionFixtures.prepare(connection)
        for (user, installed) in [("u1", "2024-05-01T23:30:00Z"), ("u2", "2024-05-01T23:30:00Z"),
                                  ("u3", "2024-05-01T10:00:00Z"), ("u4", "2024-05-01T10:00:00Z")] {
            try FrictionFixtures.install(connection, user: user, at: installed)
            try FrictionFixtures.ux(connection, user: user, seconds: 36_000, screen: "profile", type: "screen_view")
        }
        try FrictionFixtures.ux(connection, user: "u1", seconds: 36_002, screen: "profile", type: "network_error",
                                feedback: false)
    }

    /// The opens and u5 (in `file`, 0 for no file).
    private static func loadLaterDays(_ connection: PostgresConnection, file: Int = 0) throws {
        for (user, opened) in [("u1", "2024-05-02T03:00:00Z"), ("u2", "2024-05-03T03:00:00Z"),
                               ("u3", "2024-05-02T12:00:00Z"), ("u4", "2024-05-04T12:00:00Z")] {
            try FrictionFixtures.open(connection, user: user, at: opened, fileID: file)
        }
        try FrictionFixtures.install(connection, user: "u5", at: "2024-05-04T01:00:00Z", fileID: file)
        try FrictionFixtures.ux(connection, user: "u5", seconds: 3 * 86_400 + 3_700, screen: "profile",
                                type: "screen_view", fileID: file)
    }

    /// Each user's outcome as "user:returned/known".
    private static func outcomes(_ connection: PostgresConnection) throws -> [String] {
        try connection.query("""
            select user_id || ':' || case when not returned_d1 then 'no' else 'yes' end
                   || '/' || case when counted_class % 3 = 0 then 'unknown' else 'known' end
            from int_friction_outcomes order by user_id
            """).map { try $0.decode(String.self, at: 0) }
    }

    /// (d1 users hit, d1 users not hit, d1 drop-off hit, d1 drop-off not hit) of the one pair.
    private static func dayOneImpact(_ connection: PostgresConnection) throws -> [Double] {
        let rows = try connection.query("""
            select d1_users_hit, d1_users_not_hit, d1_dropoff_hit, d1_dropoff_not_hit from fct_friction_impact
            where screen = 'profile' and friction_type = 'network_error_no_feedback'
            """)
        #expect(rows.count == 1)
        return try (0..<4).map { try rows[0].decode(Double.self, at: $0) }
    }

    @Test("calendar days in UTC, in Los Angeles and 24-hour periods each count their own day 1, and a change rebuilds")
    func dayOneFollowsTheRule() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        try Self.loadFirstDay(connection)
        try Self.loadLaterDays(connection)

        _ = try FrictionComputation().run(on: connection, logger: logger)
        #expect(try Self.outcomes(connection)
            == ["u1:yes/known", "u2:no/known", "u3:yes/known", "u4:no/known", "u5:no/unknown"])
        // Hit: u1 returned. Not hit, known: u2, u3, u4; u2 and u4 dropped.
        #expect(try Self.dayOneImpact(connection) == [1, 3, 0, 2.0 / 3])

        // Only the time zone changes: no new file, yet the outcomes and impact are rebuilt.
        try Self.putInForce(connection, timeZone: "America/Los_Angeles", dayRule: .calendar)
        let summary = try FrictionComputation().run(on: connection, scope: .impactOnly, logger: logger)
        #expect(summary.sessionsScanned == 0)
        #expect(try Self.outcomes(connection)
            == ["u1:no/known", "u2:yes/known", "u3:yes/known", "u4:no/known", "u5:no/known"])
        // Hit: u1 dropped. Not hit, known: u2, u3, u4, u5; u4 and u5 dropped.
        #expect(try Self.dayOneImpact(connection) == [1, 4, 1, 0.5])

        try Self.putInForce(connection, timeZone: "UTC", dayRule: .hours24)
        _ = try FrictionComputation().run(on: connection, scope: .impactOnly, logger: logger)
        #expect(try Self.outcomes(connection)
            == ["u1:no/known", "u2:yes/known", "u3:yes/known", "u4:no/known", "u5:no/unknown"])
        // Hit: u1 dropped. Not hit, known: u2, u3, u4; u4 dropped.
        #expect(try Self.dayOneImpact(connection) == [1, 3, 1, 1.0 / 3])
        let recorded = try #require(try ComputeLedger(connection).computedUnder(lane: .friction))
        #expect(recorded.timeZone == "UTC" && recorded.dayRule == "hours24")
    }

    @Test("a later file's opens and installs fold in under the Los Angeles day rule as a rebuild counts them")
    func incrementalFoldInTimeZone() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        try Self.loadFirstDay(connection)
        try Self.putInForce(connection, timeZone: "America/Los_Angeles", dayRule: .calendar)
        let friction = FrictionComputation()
        _ = try friction.run(on: connection, logger: logger)
        #expect(try Self.outcomes(connection)
            == ["u1:no/unknown", "u2:no/unknown", "u3:no/unknown", "u4:no/unknown"])

        try Self.loadLaterDays(connection, file: try SyntheticData.registerFile(connection, name: "day-4.csv"))
        let dayFour = FrictionScope(apps: ["a"], from: PostgresDate(year: 2024, month: 5, day: 3))
        let summary = try friction.run(on: connection, scope: dayFour, logger: logger)
        #expect(summary.filesFolded == 1)
        let expected = ["u1:no/known", "u2:yes/known", "u3:yes/known", "u4:no/known", "u5:no/known"]
        #expect(try Self.outcomes(connection) == expected)
        #expect(try Self.dayOneImpact(connection) == [1, 4, 1, 0.5])

        _ = try friction.run(on: connection, logger: logger)
        #expect(try Self.outcomes(connection) == expected, "a rebuild agrees")
        #expect(try Self.dayOneImpact(connection) == [1, 4, 1, 0.5])
    }

    @Test("a compute job counts day 1 in the configuration's time zone, and a changed one rebuilds it with no new file")
    func computeJobUsesTheConfiguration() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        try Self.loadFirstDay(connection)
        try Self.loadLaterDays(connection)
        var configuration = FunnelConfiguration()
        configuration.timeZone = "America/Los_Angeles"
        let first = try #require(try ComputeJob(configuration: configuration).run(connection,
                                                                                  options: ComputeOptions(full: true)))
        #expect(first.friction != nil)
        #expect(try Self.outcomes(connection)
            == ["u1:no/known", "u2:yes/known", "u3:yes/known", "u4:no/known", "u5:no/known"])

        configuration.timeZone = "UTC"
        let second = try #require(try ComputeJob(configuration: configuration).run(connection, options: ComputeOptions()))
        #expect(second.friction?.sessionsScanned == 0, "the impact only: no telemetry changed")
        #expect(try Self.outcomes(connection)
            == ["u1:yes/known", "u2:no/known", "u3:yes/known", "u4:no/known", "u5:no/unknown"])
        #expect(try Self.dayOneImpact(connection) == [1, 3, 0, 2.0 / 3])

        let third = try #require(try ComputeJob(configuration: configuration).run(connection, options: ComputeOptions()))
        #expect(third.friction == nil, "nothing new and the same rule: friction does not run")
    }

    @Test("friction failing beside the metrics leaves its record under the old configuration, and the next job rebuilds its outcomes")
    func failedFrictionLaneKeepsItsRecord() throws {
        let database = try TestCluster.freshDatabase(migrated: true)
        let connection = try database.connect()
        try Self.loadFirstDay(connection)
        try Self.loadLaterDays(connection)
        var configuration = FunnelConfiguration()
        configuration.timeZone = "America/Los_Angeles"
        _ = try #require(try ComputeJob(configuration: configuration).run(connection, options: ComputeOptions(full: true)))
        let losAngeles = ["u1:no/known", "u2:yes/known", "u3:yes/known", "u4:no/known", "u5:no/known"]
        #expect(try Self.outcomes(connection) == losAngeles)

        struct LaneFailed: Error {}
        configuration.timeZone = "UTC"
        #expect(throws: LaneFailed.self) {
            try ComputeLanes(job: ComputeJob(configuration: configuration))
                .run(connection, options: ComputeOptions(), alongside: database, beforeFriction: { throw LaneFailed() })
        }
        let ledger = ComputeLedger(connection)
        let metrics = try #require(try ledger.computedUnder(lane: .metrics))
        #expect(metrics.fingerprint == configuration.fingerprint && metrics.timeZone == "UTC", "the metrics committed")
        let friction = try #require(try ledger.computedUnder(lane: .friction))
        #expect(friction.timeZone == "America/Los_Angeles", "friction did not run: it claims the old configuration")
        #expect(try Self.outcomes(connection) == losAngeles)

        let next = try #require(try ComputeJob(configuration: configuration).run(connection, options: ComputeOptions()))
        #expect(next.compute.mode == "incremental", "the metrics are under the new configuration already")
        #expect(next.friction?.sessionsScanned == 0, "the impact only: no telemetry changed")
        #expect(try Self.outcomes(connection)
            == ["u1:yes/known", "u2:no/known", "u3:yes/known", "u4:no/known", "u5:no/unknown"])
        #expect(try ledger.computedUnder(lane: .friction)?.timeZone == "UTC")
    }
}
