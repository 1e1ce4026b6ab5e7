import FunnelCalendar
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
        if text == "Z" || text == "z" || text == "UTC" || text == "+00:00" { return 0 }
        let bytes = Array(text.utf8)
        guard bytes.count == 6 || bytes.count == 5 || bytes.count == 3,
              bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-") else { return nil }
        let digits = bytes.dropFirst().filter { $0 != UInt8(ascii: ":") }
        guard digits.count == 2 || digits.count == 4,
              digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              bytes.count != 6 || bytes[3] == UInt8(ascii: ":") else { return nil }
        let values = digits.map { Int($0 - 0x30) }
        let hours = values[0] * 10 + values[1]
        let minutes = values.count == 4 ? values[2] * 10 + values[3] : 0
        guard hours <= 23, minutes <= 59 else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return bytes[0] == UInt8(ascii: "-") ? -seconds : seconds
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
