import FunnelGenerate
import FunnelCalendar
import Foundation

/// A seeded stream of custom product events (the `events` input kind) for benchmarking funnel
/// queries: a signup funnel `app_opened -> signup_started -> signup_form_submitted ->
/// email_verified -> onboarding_completed` with drop-off at every step, gaps from seconds to
/// hours (some beyond an hour), repeated attempts over days, an `app_uninstalled` between steps
/// for a few percent of the sessions, and noise events of other names.
///
/// Properties: `platform` (`ios`, `android`, `web`; missing on some events, and on every event
/// of a few users; a few users change platform), `method` on the signup events. No two events
/// of one user share a timestamp (each is at least a microsecond after the previous), so the tie
/// rules of funnels never apply; a few steps fall exactly at the end of a 1-hour window from
/// their attempt's start, or a microsecond after. The output is a pure function of the event count and the seed.
public struct EventStreamGenerator: Sendable {
    /// The funnel's steps, in order.
    public static let steps = ["app_opened", "signup_started", "signup_form_submitted", "email_verified", "onboarding_completed"]
    public static let exclusion = "app_uninstalled"
    static let noise = ["screen_viewed", "button_clicked", "push_received", "settings_opened", "search_performed"]
    static let platforms = ["ios", "android", "web"]
    static let methods = ["email", "google", "apple"]
    /// The app every event belongs to.
    public static let app = "bench"
    /// 2026-01-01T00:00:00Z in microseconds; users start over the next 59 days.
    public static let startMicros: Int64 = 1_767_225_600_000_000
    static let spanMicros: Int64 = 59 * 86_400_000_000

    public let events: Int
    public let seed: UInt64

    public init(events: Int, seed: UInt64) {
        self.events = events
        self.seed = seed
    }

    /// What was written.
    public struct Summary: Sendable {
        public var events: Int
        public var users: Int
        public var bytes: Int
        /// The earliest and latest event, microseconds since 1970 (UTC).
        public var firstMicros: Int64
        public var lastMicros: Int64
    }

    /// Writes exactly `events` events as CSV with a header (event_id, app_id, user_id, event,
    /// occurred_at, properties as JSON text), user by user, each user's events in time order.
    public func writeCSV(to path: String) throws -> Summary {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw GeneratorError.cannotWrite(path)
        }
        defer { try? handle.close() }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 22)
        buffer.append(contentsOf: Array("event_id,app_id,user_id,event,occurred_at,properties\n".utf8))
        var summary = Summary(events: 0, users: 0, bytes: 0, firstMicros: .max, lastMicros: .min)
        var user = 0
        while summary.events < events {
            user += 1
            var random = SeededRandom(seed: seed, stream: UInt64(user))
            let userEvents = Self.user(&random)
            for event in userEvents.prefix(events - summary.events) {
                summary.events += 1
                summary.firstMicros = min(summary.firstMicros, event.micros)
                summary.lastMicros = max(summary.lastMicros, event.micros)
                Self.appendRow(event, id: summary.events, user: user, into: &buffer)
                if buffer.count >= 1 << 22 {
                    try handle.write(contentsOf: buffer)
                    summary.bytes += buffer.count
                    buffer.removeAll(keepingCapacity: true)
                }
            }
        }
        try handle.write(contentsOf: buffer)
        summary.bytes += buffer.count
        summary.users = user
        return summary
    }

    struct Event {
        var micros: Int64
        var name: String
        var platform: String?
        var method: String?
    }

    /// One user's events, in strictly increasing time order.
    static func user(_ random: inout SeededRandom) -> [Event] {
        var platform: String? = random.chance(0.04) ? nil : platforms[random.pick(cumulative: [0.45, 0.85, 1.0])]
        let switches = random.chance(0.05)
        let method = methods[random.below(3)]
        var time = startMicros + Int64(random.uniform() * Double(spanMicros))
        var events: [Event] = []
        func add(_ name: String, at micros: Int64, method: String? = nil) {
            let shown = random.chance(0.1) ? nil : platform
            events.append(Event(micros: micros, name: name, platform: shown, method: method))
        }
        func seconds(_ value: Double) -> Int64 { Int64(value * 1_000_000) }
        // Sessions: one, then more with falling odds, hours to days apart.
        var sessions = 0
        repeat {
            sessions += 1
            if switches && sessions == 2 { platform = platforms[random.below(3)] }
            var t = time
            for _ in 0..<random.poisson(mean: 1.5) { add(noise[random.below(noise.count)], at: t - seconds(random.uniform(1, 3_600))) }
            add(steps[0], at: t)
            if random.chance(0.15) { t += seconds(random.uniform(5, 600)); add(steps[0], at: t) }
            let attemptStart = t
            // Each step's odds and delay (seconds); a long tail crosses the hour.
            let odds = [0.7, 0.75, 0.72, 0.85]
            let delays: [(mean: Double, sigma: Double)] = [(40, 1.2), (120, 1.0), (600, 1.3), (300, 1.5)]
            for step in 1..<steps.count {
                if random.chance(0.012) { add(exclusion, at: t + seconds(random.uniform(1, 2_400))) }
                for _ in 0..<random.poisson(mean: 0.5) { add(noise[random.below(noise.count)], at: t + seconds(random.uniform(1, 1_200))) }
                guard random.chance(odds[step - 1]) else { break }
                t += seconds(random.lognormal(mean: delays[step - 1].mean, sigma: delays[step - 1].sigma)) + 1
                // Now and then exactly at the end of a 1-hour window from the attempt's start, or
                // a microsecond after it (the window is inclusive).
                if random.chance(0.03) && t < attemptStart + seconds(3_600) { t = attemptStart + seconds(3_600) + Int64(random.below(2)) }
                // Now and then a step is done twice.
                if random.chance(0.05) { add(steps[step], at: t + seconds(random.uniform(1, 300))) }
                add(steps[step], at: t, method: step <= 2 ? method : nil)
            }
            time += seconds(random.exponential(mean: 86_400 * 2)) + seconds(3_600)
        } while sessions < 6 && random.chance(0.4)
        events.sort { $0.micros < $1.micros }
        for index in events.indices.dropFirst() where events[index].micros <= events[index - 1].micros {
            events[index].micros = events[index - 1].micros + 1
        }
        return events
    }

    static func appendRow(_ event: Event, id: Int, user: Int, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "e"))
        appendNumber(id, width: 9, into: &buffer)
        buffer.append(contentsOf: Array(",\(app),u".utf8))
        appendNumber(user, width: 8, into: &buffer)
        buffer.append(UInt8(ascii: ","))
        buffer.append(contentsOf: event.name.utf8)
        buffer.append(UInt8(ascii: ","))
        appendTimestamp(event.micros, into: &buffer)
        buffer.append(UInt8(ascii: ","))
        var fields: [String] = []
        if let platform = event.platform { fields.append("\"\"platform\"\": \"\"\(platform)\"\"") }
        if let method = event.method { fields.append("\"\"method\"\": \"\"\(method)\"\"") }
        buffer.append(contentsOf: "\"{\(fields.joined(separator: ", "))}\"\n".utf8)
    }

    static func appendNumber(_ value: Int, width: Int, into buffer: inout [UInt8]) {
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: max(width, String(value).count))
        var rest = value
        var index = digits.count - 1
        while rest > 0 {
            digits[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            index -= 1
        }
        buffer.append(contentsOf: digits)
    }

    /// `YYYY-MM-DD HH:MM:SS.ffffff+00`.
    static func appendTimestamp(_ micros: Int64, into buffer: inout [UInt8]) {
        let days = Int(micros / 86_400_000_000)
        let inDay = Int(micros % 86_400_000_000)
        let date = CivilTime.civil(fromDays: days)
        appendNumber(date.year, width: 4, into: &buffer)
        buffer.append(UInt8(ascii: "-"))
        appendNumber(date.month, width: 2, into: &buffer)
        buffer.append(UInt8(ascii: "-"))
        appendNumber(date.day, width: 2, into: &buffer)
        buffer.append(UInt8(ascii: " "))
        appendNumber(inDay / 3_600_000_000, width: 2, into: &buffer)
        buffer.append(UInt8(ascii: ":"))
        appendNumber(inDay / 60_000_000 % 60, width: 2, into: &buffer)
        buffer.append(UInt8(ascii: ":"))
        appendNumber(inDay / 1_000_000 % 60, width: 2, into: &buffer)
        buffer.append(UInt8(ascii: "."))
        appendNumber(inDay % 1_000_000, width: 6, into: &buffer)
        buffer.append(contentsOf: Array("+00".utf8))
    }
}
