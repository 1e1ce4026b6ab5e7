import Foundation
import FunnelBench
@testable import FunnelCompute
import FunnelCore
import Logging
import PostgresClient
import Testing
import TestSupport

private let logger = Logger(label: "test.friction")

/// The impact table in a stable order, without its timestamp, for rerun comparisons.
private func impactRows(_ connection: PostgresConnection) throws -> [String] {
    try connection.query("""
        select concat_ws('|', app_id, screen, friction_type, users_hit, users_not_hit, dropped_hit, dropped_not_hit,
                         round(p_value::numeric, 12), round(q_value::numeric, 12), flagged, rank)
        from fct_friction_impact order by app_id, screen, friction_type
        """).map { try $0.decode(String.self, at: 0) }
}

/// The kept hit users (int_friction_hits): app, screen, friction type, user and counted class.
private func hitRows(_ connection: PostgresConnection) throws -> [String] {
    try connection.query("""
        select concat_ws('|', app_id, screen, friction_type, user_id, counted_class)
        from int_friction_hits order by 1
        """).map { try $0.decode(String.self, at: 0) }
}

private let planted: [String: String] = [
    "keyboard": "keyboard_covers_action",
    "permission_denied": "permission_denied_no_guidance",
    "network_error": "network_error_no_feedback",
]

/// Flagged rows that break the flag rules or the rank order (should be none).
private func flagInvariantViolations(_ connection: PostgresConnection) throws -> Int {
    try connection.query("""
        select count(*) from fct_friction_impact i
        where (flagged and not (users_hit >= 20 and dropped_hit >= 5 and q_value <= 0.05 and relative_risk > 1))
           or (flagged and exists (select 1 from fct_friction_impact j where j.app_id = i.app_id and j.flagged
                                   and j.rank < i.rank and j.users_lost < i.users_lost))
           or (not flagged and rank is not null)
        """).scalar(Int.self)
}

@Suite("Friction: computation over PostgreSQL")
struct FrictionComputationTests {
    @Test("a strong effect on few users is measured but not flagged, and a rerun gives the same tables")
    func smallSampleNotFlaggedAndIdempotent() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        try FrictionFixtures.prepare(connection)
        for index in 0..<10 {
            let user = "u\(index)"
            try FrictionFixtures.install(connection, user: user)
            try FrictionFixtures.ux(connection, user: user, seconds: 10, screen: "profile", type: "screen_view")
            if index < 4 {
                try FrictionFixtures.ux(connection, user: user, seconds: 12, screen: "profile", type: "network_error",
                                        feedback: false)
            } else {
                try FrictionFixtures.step(connection, user: user, step: "onboarding_complete")
            }
        }
        let summary = try FrictionComputation().run(on: connection, logger: logger)
        #expect(summary.episodesWritten == 4)
        #expect(summary.flagged.isEmpty)
        let row = try connection.query("""
            select users_hit, dropped_hit, users_not_hit, dropped_not_hit, p_value, flagged, meets_minimum_sample
            from fct_friction_impact where screen = 'profile' and friction_type = 'network_error_no_feedback'
            """)
        #expect(row.count == 1)
        #expect(try row[0].decode(Int.self, at: 0) == 4)
        #expect(try row[0].decode(Int.self, at: 1) == 4)
        #expect(try row[0].decode(Int.self, at: 2) == 6)
        #expect(try row[0].decode(Int.self, at: 3) == 0)
        #expect(abs(try row[0].decode(Double.self, at: 4) - 1.0 / 210) < 1e-9)
        #expect(try row[0].decode(Bool.self, at: 5) == false)
        #expect(try row[0].decode(Bool.self, at: 6) == false)

        let before = try impactRows(connection)
        _ = try FrictionComputation().run(on: connection, logger: logger)
        #expect(try impactRows(connection) == before)
        try connection.transaction { connection in
            _ = try FrictionComputation().run(on: connection, logger: logger)
            _ = try FrictionComputation().run(on: connection, logger: logger)
        }
        #expect(try impactRows(connection) == before, "twice inside a caller's transaction, too")
        #expect(try connection.query("select count(*) from fct_friction_episodes").scalar(Int.self) == 4)
    }

    @Test("a keyboard episode records input mode, orientation and platform; day-1 return is measured")
    func keyboardEpisodeContext() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        try FrictionFixtures.prepare(connection)
        try FrictionFixtures.install(connection, user: "u1", platform: "ios")
        try FrictionFixtures.install(connection, user: "u2", platform: "android")
        try FrictionFixtures.open(connection, user: "u2", date: "2024-05-02")
        let landscape: [Double] = [844, 390]
        let action: [Double] = [60, 121, 724, 44]
        let focus: [Double] = [60, 65, 724, 40]
        for (user, height) in [("u1", 255.0), ("u2", 205.0)] {
            let frame = [0, 390 - height, 844, height]
            try FrictionFixtures.ux(connection, user: user, seconds: 1, screen: "signup", type: "screen_view",
                                    orientation: "landscape_left", inputMode: "zh-Hans-pinyin", focus: focus,
                                    action: action, caret: 77, window: landscape)
            for (offset, phase) in ["will_show", "did_change_frame", "did_show"].enumerated() {
                try FrictionFixtures.ux(connection, user: user, seconds: 2 + Double(offset) * 0.1, screen: "signup",
                                        type: "keyboard", phase: phase, orientation: "landscape_left",
                                        inputMode: "zh-Hans-pinyin", keyboard: frame, focus: focus, action: action,
                                        caret: 77, window: landscape)
            }
        }
        let summary = try FrictionComputation().run(on: connection, logger: logger)
        #expect(summary.sessionsScanned == 2)
        let episodes = try connection.query("""
            select user_id, friction_type, input_mode, orientation, platform from fct_friction_episodes
            """).map { row in try (0..<5).map { index in try row.decode(String.self, at: index) } }
        #expect(episodes == [["u1", "keyboard_covers_action", "zh-Hans-pinyin", "landscape", "ios"]])
        let d1 = try connection.query("""
            select d1_users_hit, d1_dropoff_hit, d1_users_not_hit, d1_dropoff_not_hit from fct_friction_impact
            """)
        #expect(try d1[0].decode(Int.self, at: 0) == 1)
        #expect(try d1[0].decode(Double.self, at: 1) == 1)
        #expect(try d1[0].decode(Int.self, at: 2) == 1)
        #expect(try d1[0].decode(Double.self, at: 3) == 0)
    }

    @Test("a session's events stored out of time order are judged in time order, on a rebuild and on a scope alike")
    func eventsJudgedInTimeOrder() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        try FrictionFixtures.prepare(connection)
        try FrictionFixtures.install(connection, user: "u1", platform: "ios")
        let action: [Double] = [16, 424, 358, 50]
        let keyboard: [Double] = [0, 400, 390, 444]
        // Stored last event first: the session index hands equal keys back in the order they were stored.
        try FrictionFixtures.ux(connection, user: "u1", seconds: 3, screen: "signup", type: "keyboard",
                                phase: "did_show", keyboard: keyboard, action: action)
        try FrictionFixtures.ux(connection, user: "u1", seconds: 2, screen: "signup", type: "keyboard",
                                phase: "did_change_frame", keyboard: keyboard, action: action)
        try FrictionFixtures.ux(connection, user: "u1", seconds: 1, screen: "signup", type: "screen_view", action: action)
        func episodes() throws -> [String] {
            try connection.query("""
                select concat_ws('|', user_id, screen, friction_type, occurred_at, platform) from fct_friction_episodes
                order by 1
                """).map { try $0.decode(String.self, at: 0) }
        }
        _ = try FrictionComputation().run(on: connection, logger: logger)
        let rebuilt = try episodes()
        #expect(rebuilt == ["u1|signup|keyboard_covers_action|2024-05-01 00:00:02+00|ios"])
        let day = PostgresDate(year: 2024, month: 5, day: 1)
        _ = try FrictionComputation().run(on: connection, scope: FrictionScope(from: day, to: day), logger: logger)
        #expect(try episodes() == rebuilt)
    }

    @Test("events of the same moment are ordered by event id, as the C collation orders text")
    func sameMomentByEventID() {
        func event(_ time: Double, _ screen: String) -> FrictionEvent {
            FrictionEvent(time: time, screen: screen, type: "screen_view")
        }
        var events = [event(2, "b"), event(1, "z"), event(2, "a"), event(2, "c")]
        let ids = ["e-b", "e-z", "e-B", "e-b2"].map { Array($0.utf8) }
        FrictionComputation.sortByTime(&events, eventIDs: ids)
        #expect(events.map(\.screen) == ["z", "a", "b", "c"])
    }

    @Test("sessions that straddle fetch batches give the same episodes as one big batch")
    func batchBoundariesDoNotSplitSessions() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        try FrictionFixtures.prepare(connection)
        for user in ["u1", "u2", "u3"] {
            try FrictionFixtures.ux(connection, user: user, seconds: 1, screen: "signup", type: "screen_view",
                                    action: [16, 424, 358, 50])
            try FrictionFixtures.ux(connection, user: user, seconds: 2, screen: "signup", type: "keyboard",
                                    phase: "did_change_frame", keyboard: [0, 400, 390, 444], action: [16, 424, 358, 50])
            try FrictionFixtures.ux(connection, user: user, seconds: 3, screen: "signup", type: "keyboard",
                                    phase: "did_show", keyboard: [0, 400, 390, 444], action: [16, 424, 358, 50])
        }
        func episodes(batch: Int) throws -> [String] {
            _ = try FrictionComputation(settings: FrictionSettings(fetchBatchSize: batch)).run(on: connection, logger: logger)
            return try connection.query("""
                select concat_ws('|', user_id, session_id, screen, friction_type, occurred_at) from fct_friction_episodes
                order by 1
                """).map { try $0.decode(String.self, at: 0) }
        }
        let whole = try episodes(batch: 1000)
        #expect(whole.count == 3)
        #expect(try episodes(batch: 2) == whole)
        #expect(try episodes(batch: 1) == whole)
    }

    @Test("an incremental run rebuilds only the sessions of its dates and never duplicates episodes")
    func incrementalScope() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        try FrictionFixtures.prepare(connection)
        try FrictionFixtures.ux(connection, user: "u1", seconds: 5, screen: "welcome", type: "network_error", feedback: false)
        _ = try FrictionComputation().run(on: connection, logger: logger)
        // Later rows come in a loaded file, as the loader writes them: the run takes that file in.
        let file = try SyntheticData.registerFile(connection, name: "ux-june.csv")
        try FrictionFixtures.ux(connection, user: "u2", seconds: 86_400 * 40, screen: "welcome", type: "network_error",
                                feedback: false, fileID: file)
        let june = FrictionScope(apps: ["a"], from: PostgresDate(year: 2024, month: 6, day: 10),
                                 to: PostgresDate(year: 2024, month: 6, day: 10))
        let summary = try FrictionComputation().run(on: connection, scope: june, logger: logger)
        #expect(summary.sessionsScanned == 1)
        _ = try FrictionComputation().run(on: connection, scope: june, logger: logger)
        let users = try connection.query("select user_id from fct_friction_episodes order by user_id")
            .map { try $0.decode(String.self, at: 0) }
        #expect(users == ["u1", "u2"])
        #expect(try connection.query("select users_hit from fct_friction_impact").scalar(Int.self) == 2)
    }

    @Test("new files: the sessions they touch are judged on all their events, the rest keep their episodes, and a late first install moves the platform")
    func newFilesScope() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        try FrictionFixtures.prepare(connection)
        let dayOne = try SyntheticData.registerFile(connection, name: "day-1.csv")
        let action: [Double] = [16, 424, 358, 50]
        // u1's session spans midnight: the screen's layout comes on day 1, the keyboard that covers
        // its button on day 2, in the next day's file.
        try FrictionFixtures.install(connection, user: "u1", platform: "ios", fileID: dayOne)
        try FrictionFixtures.ux(connection, user: "u1", seconds: 86_390, screen: "signup", type: "screen_view",
                                action: action, fileID: dayOne)
        // u2 and u3 hit a network error on day 1 and do nothing on day 2.
        for user in ["u2", "u3"] {
            try FrictionFixtures.install(connection, user: user, platform: "ios", fileID: dayOne)
            try FrictionFixtures.ux(connection, user: user, seconds: 600, screen: "welcome", type: "network_error",
                                    feedback: false, fileID: dayOne)
        }
        _ = try FrictionComputation().run(on: connection, scope: .newFiles, logger: logger)
        func episodes() throws -> [String] {
            try connection.query("""
                select concat_ws('|', user_id, session_id, screen, friction_type, occurred_at, platform)
                from fct_friction_episodes order by 1
                """).map { try $0.decode(String.self, at: 0) }
        }
        #expect(try episodes().map { $0.prefix(2) } == ["u2", "u3"])

        let dayTwo = try SyntheticData.registerFile(connection, name: "day-2.csv")
        try FrictionFixtures.ux(connection, user: "u1", seconds: 86_405, screen: "signup", type: "keyboard",
                                phase: "did_show", keyboard: [0, 400, 390, 444], fileID: dayTwo)
        // A late file: u2 had installed on Android before the install already stored.
        try FrictionFixtures.install(connection, user: "u2", platform: "android", date: "2024-04-20", fileID: dayTwo)
        let summary = try FrictionComputation().run(on: connection, scope: .newFiles, logger: logger)
        #expect(summary.sessionsScanned == 1, "only u1's session has a new event")
        #expect(summary.eventsScanned == 2)
        let incremental = try episodes()
        #expect(incremental.count == 3)
        #expect(incremental[0].hasPrefix("u1|s-u1|signup|keyboard_covers_action|2024-05-02 00:00:05"),
                "u1's episode: \(incremental[0])")
        #expect(incremental[1].hasPrefix("u2|") && incremental[1].hasSuffix("|android"), "u2: \(incremental[1])")
        #expect(incremental[2].hasPrefix("u3|") && incremental[2].hasSuffix("|ios"), "u3: \(incremental[2])")
        let impact = try impactRows(connection)
        let hits = try connection.query("select concat_ws('|', user_id, platform) from int_friction_hits order by 1")
            .map { try $0.decode(String.self, at: 0) }
        #expect(hits == ["u1|ios", "u2|android", "u3|ios"], "each user's first episode, u2's on the late first install's platform")

        _ = try FrictionComputation().run(on: connection, logger: logger)
        #expect(try episodes() == incremental, "a full rebuild finds the same episodes")
        #expect(try impactRows(connection) == impact)
        #expect(try connection.query("select concat_ws('|', user_id, platform) from int_friction_hits order by 1")
            .map { try $0.decode(String.self, at: 0) } == hits)
    }

    @Test("kept screen counts follow users whose outcome moves, and equal a full recount")
    func screenCountsFollowMovingOutcomes() throws {
        let connection = try TestCluster.freshDatabase(migrated: true).connect()
        try FrictionFixtures.prepare(connection)
        for user in ["u1", "u2", "u3", "u4"] {
            try FrictionFixtures.install(connection, user: user)
            try FrictionFixtures.ux(connection, user: user, seconds: 10, screen: "profile", type: "screen_view")
        }
        try FrictionFixtures.ux(connection, user: "u1", seconds: 12, screen: "profile", type: "network_error", feedback: false)
        try FrictionFixtures.step(connection, user: "u3", step: "onboarding_complete")
        _ = try FrictionComputation().run(on: connection, logger: logger)

        // The next day's file: u2 completes onboarding, u4 returns on day 1 (the app's last open
        // moves to 2024-05-02, so every 2024-05-01 install's day 1 becomes known), u1 reaches a new
        // screen, and u5 installs and hits the friction.
        let file = try SyntheticData.registerFile(connection, name: "day-2.csv")
        try FrictionFixtures.step(connection, user: "u2", step: "onboarding_complete", fileID: file)
        try FrictionFixtures.open(connection, user: "u4", date: "2024-05-02", fileID: file)
        try FrictionFixtures.ux(connection, user: "u1", seconds: 86_400 + 5, screen: "signup", type: "screen_view",
                                fileID: file)
        try FrictionFixtures.install(connection, user: "u5", date: "2024-05-02", fileID: file)
        try FrictionFixtures.ux(connection, user: "u5", seconds: 86_400 + 10, screen: "profile", type: "screen_view",
                                fileID: file)
        try FrictionFixtures.ux(connection, user: "u5", seconds: 86_400 + 12, screen: "profile", type: "network_error",
                                feedback: false, fileID: file)
        let dayTwo = FrictionScope(apps: ["a"], from: PostgresDate(year: 2024, month: 5, day: 2),
                                   to: PostgresDate(year: 2024, month: 5, day: 2))
        let summary = try FrictionComputation().run(on: connection, scope: dayTwo, logger: logger)
        #expect(summary.filesFolded == 1)

        // By hand: profile is reached by u1-u5; u1 and u5 hit it, neither completed onboarding.
        // Not hit: u2 and u3 completed, u4 did not. Day 1 is known for u1-u4 (installed 05-01),
        // not for u5; only u4 returned.
        let impact = try connection.query("""
            select users_hit, dropped_hit, users_not_hit, dropped_not_hit,
                   d1_users_hit, d1_users_not_hit, d1_dropoff_hit, d1_dropoff_not_hit
            from fct_friction_impact where screen = 'profile' and friction_type = 'network_error_no_feedback'
            """)
        #expect(impact.count == 1)
        #expect(try (0..<6).map { try impact[0].decode(Int.self, at: $0) } == [2, 2, 3, 1, 1, 3])
        #expect(try impact[0].decode(Double.self, at: 6) == 1)
        #expect(abs(try impact[0].decode(Double.self, at: 7) - 2.0 / 3) < 1e-12)

        let kept = """
            select concat_ws('|', app_id, screen, class, users) from int_friction_screen_counts order by 1
            """
        // The kept hit users: u1 under class 1 (not completed, day 1 known, no return), u5 under
        // class 0 (day 1 not known yet).
        #expect(try hitRows(connection) == ["a|profile|network_error_no_feedback|u1|1", "a|profile|network_error_no_feedback|u5|0"])
        let incremental = (try connection.query(kept).map { try $0.decode(String.self, at: 0) },
                           try impactRows(connection), try hitRows(connection))
        _ = try FrictionComputation().run(on: connection, logger: logger)
        #expect(try connection.query(kept).map { try $0.decode(String.self, at: 0) } == incremental.0)
        #expect(try impactRows(connection) == incremental.1)
        #expect(try hitRows(connection) == incremental.2)
        #expect(incremental.0.contains("a|signup|1|1"), "u1's new screen counted under its class (not completed, no return)")
    }

    @Test("generated data: the planted frictions are flagged on their screens and nothing else is",
          arguments: [1, 2, 3])
    func plantedFrictionFlagged(seed: Int) throws {
        let generated = try FrictionFixtures.generate(users: 5000, seed: seed)
        defer { try? FileManager.default.removeItem(at: generated.directory) }
        let settings = try TestCluster.freshDatabase(migrated: true)
        let connection = try settings.connect()
        try GeneratedDataLoader.load(directory: generated.directory.path, settings: settings)
        let summary = try FrictionComputation().run(on: connection, logger: logger)

        let expected = Set(generated.planted.compactMap { truth in planted[truth.type].map { [truth.screen, $0] } })
        #expect(expected.count == 3)
        for truth in generated.planted {
            let measured = try connection.query("""
                select users_hit, dropoff_hit from fct_friction_impact where screen = $1 and friction_type = $2
                """, [truth.screen, planted[truth.type] ?? ""])
            #expect(measured.count == 1)
            guard let row = measured.first else { continue }
            #expect(try row.decode(Int.self, at: 0) == truth.usersHit, "\(truth.screen) \(truth.type): users hit")
            #expect(abs(try row.decode(Double.self, at: 1) - truth.dropoffHit) < 1e-9, "\(truth.screen): drop-off")
        }
        let flagged = Set(summary.flagged.map { [$0.screen, $0.frictionType] })
        #expect(flagged == expected, "seed \(seed): flagged \(flagged)")
        #expect(summary.flagged.allSatisfy { !generated.unplantedScreens.contains($0.screen) })
        #expect(summary.flagged.map(\.rank) == Array(1...summary.flagged.count))
        #expect(try flagInvariantViolations(connection) == 0)

        let explained = try connection.query("""
            select dimension, value from fct_friction_breakdown
            where screen = 'signup' and friction_type = 'keyboard_covers_action' and explains_effect
            order by dimension
            """).map { try "\($0.decode(String.self, at: 0))=\($0.decode(String.self, at: 1))" }
        #expect(explained.contains("input_mode=zh-Hans-pinyin"))
        #expect(explained.contains("orientation=landscape"))
        #expect(!explained.contains { $0.hasPrefix("platform=") }, "both platforms have phones: \(explained)")
    }
}

extension FrictionComputationTests {
    @Test("generated data with few users: every flag still meets the minimum sample")
    func smallGeneratedSample() throws {
        let generated = try FrictionFixtures.generate(users: 250, seed: 7)
        defer { try? FileManager.default.removeItem(at: generated.directory) }
        let settings = try TestCluster.freshDatabase(migrated: true)
        let connection = try settings.connect()
        try GeneratedDataLoader.load(directory: generated.directory.path, settings: settings)
        _ = try FrictionComputation().run(on: connection, logger: logger)
        #expect(try flagInvariantViolations(connection) == 0)
        let small = try connection.query("""
            select count(*) from fct_friction_impact where users_hit < 20 and flagged
            """).scalar(Int.self)
        #expect(small == 0)
        let tested = try connection.query("select count(*) from fct_friction_impact where users_hit < 20").scalar(Int.self)
        #expect(tested > 0, "the small sample has pairs below the minimum, and they were assessed")
    }
}
