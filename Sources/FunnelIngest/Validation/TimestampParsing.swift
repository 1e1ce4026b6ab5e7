import FunnelCalendar
/// Parses input timestamps to microseconds since the epoch (UTC) and writes them back in
/// PostgreSQL's `YYYY-MM-DD HH:MM:SS[.ffffff]+00` form. Hand-written over bytes: it runs for
/// every row.
struct TimestampParser {
    /// Accepted instants: [1970-01-01, latestMicros].
    let latestMicros: Int64
    /// The zones a zone-less timestamp may be read in (the file's, its apps'), and the one in
    /// force for the row being read (-1: none, such timestamps are rejected).
    var zones: [ZoneConverter] = []
    var zoneIndex = -1

    init(latestMicros: Int64, zone: ZoneConverter?) {
        self.latestMicros = latestMicros
        if let zone {
            zones = [zone]
            zoneIndex = 0
        }
    }

    @inline(__always)
    private static func digit(_ b: UInt8) -> Int? {
        let d = Int(b) &- 0x30
        return d >= 0 && d <= 9 ? d : nil
    }

    @inline(__always)
    private static func two(_ p: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int? {
        guard let a = digit(p[i]), let b = digit(p[i + 1]) else { return nil }
        return a * 10 + b
    }

    /// A timestamp field: epoch milliseconds (all digits, or a JSON number) or RFC 3339.
    mutating func parse(_ p: UnsafeBufferPointer<UInt8>, isJSONNumber: Bool) -> Result<Int64, FieldFailure> {
        let micros: Int64
        if let ms = Self.epochMillis(p) {
            micros = ms * 1000
        } else if isJSONNumber {
            return .failure(.notTimestamp)
        } else {
            switch parseRFC3339(p) {
            case .success(let value): micros = value
            case .failure(let failure): return .failure(failure)
            }
        }
        // Epoch seconds read as milliseconds land in the first weeks of 1970: a number that is in
        // range as seconds is taken for seconds and refused with its own reason.
        if Self.epochMillis(p) != nil {
            let asSeconds = micros.multipliedReportingOverflow(by: 1000)
            if !asSeconds.overflow, asSeconds.partialValue >= CivilTime.earliestMicros,
               asSeconds.partialValue <= latestMicros {
                return .failure(.epochSeconds)
            }
        }
        if micros < CivilTime.earliestMicros { return .failure(.tooEarly) }
        if micros > latestMicros { return .failure(.tooLate) }
        return .success(micros)
    }

    /// 1 to 15 digits, nothing else.
    private static func epochMillis(_ p: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard p.count >= 1 && p.count <= 15 else { return nil }
        var value: Int64 = 0
        for b in p {
            guard let d = digit(b) else { return nil }
            value = value * 10 + Int64(d)
        }
        return value
    }

    /// `YYYY-MM-DD[T ]HH:MM:SS[.fraction](Z|±HH:MM|±HHMM|±HH)`; without a zone only when a zone
    /// is assumed.
    private mutating func parseRFC3339(_ p: UnsafeBufferPointer<UInt8>) -> Result<Int64, FieldFailure> {
        let n = p.count
        guard n >= 19,
              let y1 = Self.two(p, 0), let y2 = Self.two(p, 2), p[4] == 0x2d,
              let month = Self.two(p, 5), p[7] == 0x2d, let day = Self.two(p, 8),
              p[10] == UInt8(ascii: "T") || p[10] == UInt8(ascii: "t") || p[10] == 0x20,
              let hour = Self.two(p, 11), p[13] == 0x3a, let minute = Self.two(p, 14), p[16] == 0x3a,
              let second = Self.two(p, 17)
        else { return .failure(.notTimestamp) }
        let year = y1 * 100 + y2
        var i = 19
        var fraction: Int64 = 0
        if i < n && p[i] == 0x2e {
            i += 1
            var digits = 0
            while i < n, let d = Self.digit(p[i]) {
                if digits < 6 { fraction = fraction * 10 + Int64(d) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return .failure(.notTimestamp) }
            for _ in min(digits, 6)..<6 { fraction *= 10 }
        }
        guard month >= 1 && month <= 12, day >= 1, day <= CivilTime.daysInMonth(year, month),
              hour <= 23, minute <= 59, second <= 59
        else { return .failure(.notCalendarTime) }
        let local = Int64(CivilTime.days(year: year, month: month, day: day)) * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
        let offset: Int64
        if i == n {
            guard zoneIndex >= 0 else { return .failure(.noTimeZone) }
            offset = zones[zoneIndex].offset(atLocal: local)
        } else if (p[i] == UInt8(ascii: "Z") || p[i] == UInt8(ascii: "z")) && i + 1 == n {
            offset = 0
        } else if p[i] == 0x2b || p[i] == 0x2d {
            let rest = n - i - 1
            guard rest == 2 || rest == 4 || rest == 5, let oh = Self.two(p, i + 1) else {
                return .failure(.notTimestamp)
            }
            var om = 0
            if rest == 5 {
                guard p[i + 3] == 0x3a, let m = Self.two(p, i + 4) else { return .failure(.notTimestamp) }
                om = m
            } else if rest == 4 {
                guard let m = Self.two(p, i + 3) else { return .failure(.notTimestamp) }
                om = m
            }
            guard oh <= 23, om <= 59 else { return .failure(.notCalendarTime) }
            let seconds = Int64(oh * 3600 + om * 60)
            offset = p[i] == 0x2d ? -seconds : seconds
        } else {
            return .failure(.notTimestamp)
        }
        return .success((local - offset) * 1_000_000 + fraction)
    }

    /// A `date` field: `YYYY-MM-DD`, returned as days since 1970-01-01.
    func parseDate(_ p: UnsafeBufferPointer<UInt8>) -> Result<Int64, FieldFailure> {
        guard p.count == 10, let y1 = Self.two(p, 0), let y2 = Self.two(p, 2), p[4] == 0x2d,
              let month = Self.two(p, 5), p[7] == 0x2d, let day = Self.two(p, 8)
        else { return .failure(.notDate) }
        let year = y1 * 100 + y2
        guard month >= 1 && month <= 12, day >= 1, day <= CivilTime.daysInMonth(year, month) else {
            return .failure(.notDate)
        }
        let days = Int64(CivilTime.days(year: year, month: month, day: day))
        if days * 86_400 * 1_000_000 < CivilTime.earliestMicros { return .failure(.tooEarly) }
        if days * 86_400 * 1_000_000 > latestMicros { return .failure(.tooLate) }
        return .success(days)
    }
}

/// Writes dates and times in the forms PostgreSQL's COPY text input reads.
package enum TimestampWriter {
    @inline(__always)
    package static func appendDigits(_ value: Int, count: Int, to out: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var v = value
        while divisor > 0 {
            out.append(UInt8(0x30 + v / divisor))
            v %= divisor
            divisor /= 10
        }
    }

    /// `YYYY-MM-DD`.
    package static func appendDate(days: Int64, to out: inout [UInt8]) {
        let (y, m, d) = CivilTime.civil(fromDays: Int(days))
        appendDigits(y, count: 4, to: &out)
        out.append(0x2d)
        appendDigits(m, count: 2, to: &out)
        out.append(0x2d)
        appendDigits(d, count: 2, to: &out)
    }

    /// `YYYY-MM-DD HH:MM:SS[.ffffff]+00`.
    package static func appendTimestamp(micros: Int64, to out: inout [UInt8]) {
        let seconds = CivilTime.floorDiv(micros, 1_000_000)
        let fraction = Int(micros - seconds * 1_000_000)
        let days = CivilTime.floorDiv(seconds, 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        appendDate(days: days, to: &out)
        out.append(0x20)
        appendDigits(secondOfDay / 3600, count: 2, to: &out)
        out.append(0x3a)
        appendDigits(secondOfDay / 60 % 60, count: 2, to: &out)
        out.append(0x3a)
        appendDigits(secondOfDay % 60, count: 2, to: &out)
        if fraction != 0 {
            out.append(0x2e)
            appendDigits(fraction, count: 6, to: &out)
        }
        out.append(0x2b)
        out.append(0x30)
        out.append(0x30)
    }
}
