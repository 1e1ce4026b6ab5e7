import Foundation
import FunnelCore
import FunnelSQL
import PostgresClient

extension FrictionComputation {
    /// The identity of the session a row belongs to.
    private struct SessionKey: Equatable {
        var appID: String
        var userID: String
        var sessionID: String
        var platform: String?
    }

    /// Streams the scope's events session by session through a cursor, runs the detectors on
    /// each complete session and copies the episodes in after every fetched batch.
    func rebuildEpisodes(on connection: PostgresConnection, summary: inout FrictionSummary) throws {
        let detector = FrictionDetector(keyboard: KeyboardOcclusionDetector(
            rotationWindowSeconds: settings.rotationWindowSeconds))
        try connection.execute(SQLCatalog.text("intermediate/friction/session_events.sql"))
        let fetch = "fetch forward \(max(1, settings.fetchBatchSize)) from friction_session_events"
        var current: SessionKey?
        var events: [FrictionEvent] = []
        var pending = ""

        func finishSession() {
            guard let key = current, !events.isEmpty else { return }
            summary.sessionsScanned += 1
            for episode in detector.episodes(in: events) {
                Self.appendCopyRow(&pending, key: key, episode: episode)
                summary.episodesWritten += 1
            }
            events.removeAll(keepingCapacity: true)
        }

        while true {
            let rows = try connection.query(fetch)
            if rows.isEmpty { break }
            summary.eventsScanned += rows.count
            for row in rows {
                let key = SessionKey(appID: try row.decode(String.self, at: 0), userID: try row.decode(String.self, at: 1),
                                     sessionID: try row.decode(String.self, at: 2),
                                     platform: try row.decode(String?.self, at: 3))
                if key != current {
                    finishSession()
                    current = key
                }
                events.append(try Self.event(from: row))
            }
            try copy(&pending, on: connection)
        }
        finishSession()
        try copy(&pending, on: connection)
        try connection.execute("close friction_session_events")
    }

    private func copy(_ pending: inout String, on connection: PostgresConnection) throws {
        guard !pending.isEmpty else { return }
        let data = pending
        try connection.copyIn(SQLCatalog.text("marts/friction/fct_friction_episodes.copy.sql")) { writer in
            try writer.write(data)
        }
        pending = ""
    }

    /// Decodes one row of `session_events.sql` (columns 4 onwards).
    static func event(from row: PostgresRow) throws -> FrictionEvent {
        // Most optional columns are NULL for a given event type: test that before decoding.
        func optional<T: PostgresDecodable>(_ type: T.Type, _ index: Int) throws -> T? {
            row.isNull(at: index) ? nil : try row.decode(T.self, at: index)
        }
        func rect(_ index: Int) throws -> FrictionRect? {
            guard let x = try optional(Double.self, index), let y = try optional(Double.self, index + 1),
                  let w = try optional(Double.self, index + 2), let h = try optional(Double.self, index + 3)
            else { return nil }
            return FrictionRect(x: x, y: y, width: w, height: h)
        }
        return FrictionEvent(
            time: try row.decode(Double.self, at: 4), screen: try row.decode(String.self, at: 5),
            type: try row.decode(String.self, at: 6), phase: try optional(String.self, 7),
            orientation: try optional(String.self, 8), feedbackShown: try optional(Bool.self, 9),
            permission: try optional(String.self, 10), guidanceShown: try optional(Bool.self, 11),
            field: try optional(String.self, 12), messageShown: try optional(Bool.self, 13),
            badState: try optional(Bool.self, 14), inputMode: try optional(String.self, 15),
            keyboard: try rect(16), focus: try rect(20), action: try rect(24),
            caretY: try optional(Double.self, 28), screenWidth: try optional(Double.self, 29),
            screenHeight: try optional(Double.self, 30))
    }

    /// One episode as a line of COPY text format.
    private static func appendCopyRow(_ text: inout String, key: SessionKey, episode: FrictionEpisode) {
        let fields: [String?] = [
            key.appID, key.userID, key.sessionID, episode.screen, episode.type.rawValue,
            Date(timeIntervalSince1970: episode.time).postgresText, String(min(1, max(0, episode.severity))),
            episode.inputMode, episode.orientation, key.platform,
        ]
        for (index, field) in fields.enumerated() {
            if index > 0 { text.append("\t") }
            guard let field else {
                text.append("\\N")
                continue
            }
            for character in field.unicodeScalars {
                switch character {
                case "\\": text.append("\\\\")
                case "\t": text.append("\\t")
                case "\n": text.append("\\n")
                case "\r": text.append("\\r")
                default: text.unicodeScalars.append(character)
                }
            }
        }
        text.append("\n")
    }
}
