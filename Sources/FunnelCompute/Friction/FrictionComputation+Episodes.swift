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

    /// Streams the scope's events session by session (binary rows, the next batch fetched while
    /// the detectors read this one), runs the detectors on each complete session and copies the
    /// episodes in once the stream ends (the stream holds the connection meanwhile).
    ///
    /// For a whole-history rebuild every event is read in the order of raw_ux's session index
    /// (`session_events.full.sql`), so rows flow from the first fetch on, and the episodes take
    /// their platform afterwards. (Joined with a list of every session, the planner hashed every
    /// event and sorted them all before the first row: at 300k users, 19.6 s with nothing for
    /// the detectors to do meanwhile.)
    func rebuildEpisodes(on connection: PostgresConnection, wholeHistory: Bool, summary: inout FrictionSummary) throws {
        let detector = FrictionDetector(keyboard: KeyboardOcclusionDetector(
            rotationWindowSeconds: settings.rotationWindowSeconds))
        var current: SessionKey?
        var currentBytes: [[UInt8]] = [[], [], []]
        var events: [FrictionEvent] = []
        var eventIDs: [[UInt8]] = []
        var pending: [UInt8] = []

        func finishSession() {
            guard let key = current, !events.isEmpty else { return }
            summary.sessionsScanned += 1
            Self.sortByTime(&events, eventIDs: eventIDs)
            for episode in detector.episodes(in: events) {
                Self.appendCopyRow(&pending, key: key, episode: episode)
                summary.episodesWritten += 1
            }
            events.removeAll(keepingCapacity: true)
            eventIDs.removeAll(keepingCapacity: true)
        }

        let statement = wholeHistory ? "intermediate/friction/session_events.full.sql" : "intermediate/friction/session_events.sql"
        try connection.stream(SQLCatalog.text(statement), batchRows: max(1, settings.fetchBatchSize)) { batch in
            summary.eventsScanned += batch.count
            for row in 0..<batch.count {
                if current == nil || !(0..<3).allSatisfy({ Self.same(currentBytes[$0], batch.bytes(row, $0)) }) {
                    finishSession()
                    for column in 0..<3 { currentBytes[column] = Array(batch.bytes(row, column)) }
                    current = SessionKey(appID: batch.string(row, 0) ?? "", userID: batch.string(row, 1) ?? "",
                                         sessionID: batch.string(row, 2) ?? "", platform: batch.string(row, 3))
                }
                events.append(Self.event(from: batch, row: row))
                eventIDs.append(Array(batch.bytes(row, Self.eventIDColumn)))
            }
        }
        finishSession()
        guard !pending.isEmpty else { return }
        let data = pending
        try connection.copyIn(SQLCatalog.text("marts/friction/fct_friction_episodes.copy.sql")) { writer in
            try data.withUnsafeBytes { try writer.write($0) }
        }
    }

    /// The column of `session_events.sql` holding the event id, which orders a session's events
    /// of the same moment.
    static let eventIDColumn = 31

    /// Puts one session's events in time order, those of the same moment by event id (its UTF-8
    /// bytes, as the C collation orders text). The server sends a session's events together but
    /// unordered: ordering them there, 3.6M events of 340k sessions in small sorts, took longer
    /// than the rest of the stream (14.6-15.1 s against 8.1-8.5 s at 300k users).
    static func sortByTime(_ events: inout [FrictionEvent], eventIDs: [[UInt8]]) {
        func precedes(_ a: Int, _ b: Int) -> Bool {
            if events[a].time != events[b].time { return events[a].time < events[b].time }
            return eventIDs[a].lexicographicallyPrecedes(eventIDs[b])
        }
        // Most sessions arrive in order already: sorted only when an event precedes the one before it.
        guard events.count > 1, (1..<events.count).contains(where: { precedes($0, $0 - 1) }) else { return }
        let order = events.indices.sorted(by: precedes)
        events = order.map { events[$0] }
    }

    private static func same(_ stored: [UInt8], _ value: UnsafeRawBufferPointer) -> Bool {
        guard stored.count == value.count else { return false }
        guard let base = value.baseAddress, !stored.isEmpty else { return true }
        return stored.withUnsafeBytes { memcmp($0.baseAddress!, base, value.count) == 0 }
    }

    /// Decodes one row of `session_events.sql` (columns 4 onwards) from its binary form.
    static func event(from batch: PostgresBinaryBatch, row: Int) -> FrictionEvent {
        func text(_ column: Int) -> String? { batch.string(row, column) }
        func flag(_ column: Int) -> Bool? { batch.isNull(row, column) ? nil : batch.bool(row, column) }
        func number(_ column: Int) -> Double? {
            batch.isNull(row, column) ? nil : decimalValue(batch.float32(row, column))
        }
        func rect(_ column: Int) -> FrictionRect? {
            guard let x = number(column), let y = number(column + 1), let w = number(column + 2), let h = number(column + 3)
            else { return nil }
            return FrictionRect(x: x, y: y, width: w, height: h)
        }
        return FrictionEvent(
            time: batch.float64(row, 4), screen: text(5) ?? "", type: text(6) ?? "", phase: text(7),
            orientation: text(8), feedbackShown: flag(9), permission: text(10), guidanceShown: flag(11),
            field: text(12), messageShown: flag(13), badState: flag(14), inputMode: text(15),
            keyboard: rect(16), focus: rect(20), action: rect(24),
            caretY: number(28), screenWidth: number(29), screenHeight: number(30))
    }

    /// A `real` value as the detectors have always seen it: the number its shortest decimal text
    /// (PostgreSQL's text output) reads as, so 0.1 stays 0.1 rather than 0.10000000149011612.
    /// Whole numbers, most screen geometry, take the short way.
    static func decimalValue(_ value: Float) -> Double {
        let exact = Double(value)
        return exact == exact.rounded() ? exact : Double(value.description) ?? exact
    }

    /// One episode as a line of COPY text format.
    private static func appendCopyRow(_ text: inout [UInt8], key: SessionKey, episode: FrictionEpisode) {
        let fields: [String?] = [
            key.appID, key.userID, key.sessionID, episode.screen, episode.type.rawValue,
            Date(timeIntervalSince1970: episode.time).postgresText, String(min(1, max(0, episode.severity))),
            episode.inputMode, episode.orientation, key.platform,
        ]
        for (index, field) in fields.enumerated() {
            if index > 0 { text.append(UInt8(ascii: "\t")) }
            CopyText.appendField(field, to: &text)
        }
        text.append(UInt8(ascii: "\n"))
    }
}
