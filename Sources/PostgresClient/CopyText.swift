import FunnelCalendar

/// Writes values in COPY's text format (`COPY ... FROM STDIN`, the default format): fields
/// separated by tabs, rows ended by newlines, NULL as `\N`, and text escaped so that no tab,
/// newline or backslash of a value is read as a separator. The byte forms write into a buffer
/// the caller sends whole (`CopyInWriter.write`), without a `String` per value.
public enum CopyText {
    /// Appends a text field's UTF-8 bytes, escaped; `\N` for nil.
    public static func appendField(_ value: String?, to out: inout [UInt8]) {
        guard let value else {
            appendNull(to: &out)
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            default: out.append(byte)
            }
        }
    }

    /// Appends `\N`, a NULL field.
    public static func appendNull(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\\"))
        out.append(UInt8(ascii: "N"))
    }

    /// Appends a decimal integer.
    public static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude, width: 1, to: &out)
    }

    /// Appends a date given as days since 1970-01-01 (`YYYY-MM-DD`).
    public static func appendDate(days: Int, to out: inout [UInt8]) {
        let (year, month, day) = CivilTime.civil(fromDays: days)
        appendDigits(UInt64(year), width: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(UInt64(month), width: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(UInt64(day), width: 2, to: &out)
    }

    /// Appends a `timestamptz` given as microseconds since 1970 in UTC, as
    /// `YYYY-MM-DD HH:MM:SS.ffffff+00` (the fraction only when not zero), which the server reads
    /// back exactly. Years 1 to 9999.
    public static func appendTimestamp(micros: Int64, to out: inout [UInt8]) {
        let day = CivilTime.floorDiv(micros, 86_400_000_000)
        let inDay = UInt64(micros - day * 86_400_000_000)
        let seconds = inDay / 1_000_000
        let fraction = inDay % 1_000_000
        appendDate(days: Int(day), to: &out)
        out.append(UInt8(ascii: " "))
        appendDigits(seconds / 3600, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(seconds / 60 % 60, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(seconds % 60, width: 2, to: &out)
        if fraction != 0 {
            out.append(UInt8(ascii: "."))
            appendDigits(fraction, width: 6, to: &out)
        }
        out.append(UInt8(ascii: "+"))
        out.append(UInt8(ascii: "0"))
        out.append(UInt8(ascii: "0"))
    }

    /// Appends a number's decimal digits, with leading zeros up to `width` digits.
    public static func appendDigits(_ value: UInt64, width: Int, to out: inout [UInt8]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            while count < width && count < 20 {
                buffer[19 - count] = UInt8(ascii: "0")
                count += 1
            }
            out.append(contentsOf: buffer[(20 - count)...])
        }
    }
}
