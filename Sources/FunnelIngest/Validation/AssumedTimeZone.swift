import FunnelCalendar
import FunnelCore
import Foundation

/// The zone given with `--assume-tz` for timestamps that carry none: a fixed UTC offset
/// (`+02:00`, `-0530`, `Z`, `UTC`) or an IANA zone name (`Europe/Berlin`).
public struct AssumedTimeZone: Sendable, Hashable {
    enum Zone: Sendable, Hashable {
        case fixed(seconds: Int)
        case named(TimeZone)
    }

    let zone: Zone

    /// The zone as the user wrote it, for messages.
    public let text: String

    /// Parses a zone; nil when it is neither a valid offset nor a known IANA name.
    public init?(_ text: String) {
        self.text = text
        if let seconds = Self.parseOffset(text) {
            zone = .fixed(seconds: seconds)
        } else if !text.isEmpty, let timeZone = TimeZone(identifier: text) {
            zone = .named(timeZone)
        } else {
            return nil
        }
    }

    private static func parseOffset(_ text: String) -> Int? {
        TimeZoneSpelling.offsetSeconds(text)
    }
}

/// Converts local wall-clock seconds in an ``AssumedTimeZone`` to UTC offsets, caching the
/// offset per local hour so Foundation is asked once per hour of data, not once per row.
struct ZoneConverter {
    let zone: AssumedTimeZone
    private var cache: [Int64: Int32] = [:]

    init(_ zone: AssumedTimeZone) { self.zone = zone }

    /// The offset (seconds east of UTC) in force at `localSeconds` (local wall clock read as if
    /// it were UTC seconds since the epoch).
    mutating func offset(atLocal localSeconds: Int64) -> Int64 {
        switch zone.zone {
        case .fixed(let seconds):
            return Int64(seconds)
        case .named(let timeZone):
            let hour = CivilTime.floorDiv(localSeconds, 3600)
            if let cached = cache[hour] { return Int64(cached) }
            // Two rounds settle the offset except inside a DST gap, where the later offset wins.
            let guess = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(localSeconds)))
            let utc = localSeconds - Int64(guess)
            let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(utc)))
            if cache.count > 100_000 { cache.removeAll(keepingCapacity: true) }
            cache[hour] = Int32(offset)
            return Int64(offset)
        }
    }
}
