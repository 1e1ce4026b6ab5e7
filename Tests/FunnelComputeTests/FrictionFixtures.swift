import Foundation
import PostgresClient
import TestSupport

/// `funnel generate` exited with an error.
struct GenerateFailed: Error {
    let stderr: String
}

/// Test data for the friction computation: hand-built rows, and generated data sets (loaded with
/// `GeneratedDataLoader`, the real loader).
enum FrictionFixtures {
    static let day = "2024-05-01"

    static func prepare(_ connection: PostgresConnection) throws {
        for table in ["raw_ux", "raw_steps", "raw_installs", "raw_opens"] {
            try connection.query("select ensure_month_partitions($1, $2::date, $3::date)",
                                 [table, "2024-04-01", "2024-12-31"])
        }
    }

    /// One `ux` row; `seconds` after midnight of `day`.
    static func ux(_ connection: PostgresConnection, app: String = "a", user: String, session: String? = nil,
                   seconds: Double, screen: String, type: String, phase: String? = nil, orientation: String = "portrait",
                   feedback: Bool? = nil, guidance: Bool? = nil, message: Bool? = nil, inputMode: String = "en-US",
                   keyboard: [Double]? = nil, focus: [Double]? = nil, action: [Double]? = nil, caret: Double? = nil,
                   window: [Double] = [390, 844], fileID: Int = 0) throws {
        let values: [(any PostgresEncodable)?] = [
            UUID().uuidString, app, user, session ?? "s-\(user)", seconds, screen, type, phase, orientation,
            feedback, guidance, message, inputMode,
            keyboard?[0], keyboard?[1], keyboard?[2], keyboard?[3], focus?[0], focus?[1], focus?[2], focus?[3],
            action?[0], action?[1], action?[2], action?[3], caret, window[0], window[1], fileID,
        ]
        try connection.query("""
            insert into raw_ux (event_id, app_id, user_id, session_id, occurred_at, screen, type, phase, orientation,
                feedback_shown, guidance_shown, message_shown, input_mode, kb_x, kb_y, kb_w, kb_h,
                focus_x, focus_y, focus_w, focus_h, action_x, action_y, action_w, action_h, caret_y,
                screen_w, screen_h, file_id)
            values ($1, $2, $3, $4, '2024-05-01T00:00:00Z'::timestamptz + $5 * interval '1 second', $6, $7, $8, $9,
                $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29)
            """, values)
    }

    /// An install at midnight UTC of `date`.
    static func install(_ connection: PostgresConnection, app: String = "a", user: String, platform: String = "ios",
                        date: String = day, fileID: Int = 0) throws {
        try install(connection, app: app, user: user, platform: platform, at: "\(date)T00:00:00Z", fileID: fileID)
    }

    /// An install at an exact moment (`at`: ISO 8601 with its offset).
    static func install(_ connection: PostgresConnection, app: String = "a", user: String, platform: String = "ios",
                        at moment: String, fileID: Int = 0) throws {
        try connection.query("""
            insert into raw_installs (event_id, app_id, user_id, installed_at, network, platform, file_id)
            values ($1, $2, $3, $5::timestamptz, 'organic', $4, $6)
            """, [UUID().uuidString, app, user, platform, moment, fileID])
    }

    /// An open at an exact moment (`at`: ISO 8601 with its offset).
    static func open(_ connection: PostgresConnection, app: String = "a", user: String, at moment: String,
                     fileID: Int = 0) throws {
        try connection.query("""
            insert into raw_opens (event_id, app_id, user_id, opened_at, file_id)
            values ($1, $2, $3, $4::timestamptz, $5)
            """, [UUID().uuidString, app, user, moment, fileID])
    }

    static func step(_ connection: PostgresConnection, app: String = "a", user: String, step: String,
                     fileID: Int = 0) throws {
        try connection.query("""
            insert into raw_steps (event_id, app_id, user_id, occurred_at, step, screen, file_id)
            values ($1, $2, $3, '2024-05-01T01:00:00Z', $4, null, $5)
            """, [UUID().uuidString, app, user, step, fileID])
    }

    /// An open at 09:00 UTC of `date`.
    static func open(_ connection: PostgresConnection, app: String = "a", user: String, date: String,
                     fileID: Int = 0) throws {
        try open(connection, app: app, user: user, at: "\(date)T09:00:00Z", fileID: fileID)
    }

    /// A planted friction of truth.json: its screen, `ux` type and realised users hit and drop-off.
    struct PlantedFriction {
        let screen: String
        let type: String
        let usersHit: Int
        let dropoffHit: Double
    }

    /// Runs `funnel generate` and returns the output directory, the planted frictions and the
    /// unplanted screens of its truth.json.
    static func generate(users: Int, seed: Int) throws
        -> (directory: URL, planted: [PlantedFriction], unplantedScreens: Set<String>) {
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "friction-gen")
        let outcome = try FunnelExecutable.run(["generate", "--out", directory.path, "--users", String(users),
                                                "--days", "14", "--seed", String(seed)])
        guard outcome.status == 0 else {
            throw GenerateFailed(stderr: outcome.stderr)
        }
        let truth = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appending(path: "truth.json")))
        let friction = (truth as? [String: Any])?["friction"] as? [String: Any] ?? [:]
        let planted = (friction["planted"] as? [[String: Any]] ?? []).compactMap { signal -> PlantedFriction? in
            guard let screen = signal["screen"] as? String, let type = signal["type"] as? String,
                  let usersHit = signal["users_hit"] as? Int, let dropoffHit = signal["dropoff_hit"] as? Double
            else { return nil }
            return PlantedFriction(screen: screen, type: type, usersHit: usersHit, dropoffHit: dropoffHit)
        }
        return (directory, planted, Set(friction["unplanted_screens"] as? [String] ?? []))
    }
}
