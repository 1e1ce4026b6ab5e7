/// Hand-written parsers for the numeric field types: counts, money, exchange rates and real numbers.
enum NumberParsing {
    /// A count: ASCII digits (an optional leading `+`), at most `limit`.
    static func count(_ p: UnsafeBufferPointer<UInt8>, limit: Int64) -> Result<Int64, FieldFailure> {
        var i = 0
        if p.count > 0 && p[0] == UInt8(ascii: "+") { i = 1 }
        if p.count > 0 && p[0] == UInt8(ascii: "-") {
            // A negative number is "negative"; anything else after the sign is not a number.
            switch decimal(p) {
            case .success(let d) where d.mantissa == 0: return .success(0)
            case .success: return .failure(.negative)
            case .failure(let failure): return .failure(failure)
            }
        }
        guard i < p.count else { return .failure(.notWholeNumber) }
        var value: Int64 = 0
        while i < p.count {
            let d = Int64(p[i]) &- 0x30
            guard d >= 0 && d <= 9 else {
                // "1.0" and "2e3" are whole numbers written as decimals; accept them exactly.
                if case .success(let decimal) = decimal(p), let whole = decimal.whole() {
                    return whole <= limit ? .success(whole) : .failure(.tooLarge(limit: String(limit)))
                }
                return .failure(.notWholeNumber)
            }
            value = value * 10 + d
            if value > limit { return .failure(.tooLarge(limit: String(limit))) }
            i += 1
        }
        return .success(value)
    }

    /// A decimal number as significant digits times a power of ten.
    struct Decimal {
        var negative = false
        var mantissa: UInt64 = 0
        var exponent = 0
        /// Count of significant digits dropped because the mantissa was full (precision lost).
        var droppedDigits = 0
        /// k such that the value lies in [10^(k-1), 10^k), for a non-zero mantissa.
        var magnitude: Int {
            var digits = 0
            var m = mantissa
            while m > 0 {
                digits += 1
                m /= 10
            }
            return digits + exponent
        }

        /// The value if it is a whole number that fits an Int64.
        func whole() -> Int64? {
            guard droppedDigits == 0 else { return nil }
            var m = mantissa
            var e = exponent
            while e < 0 {
                guard m % 10 == 0 else { return nil }
                m /= 10
                e += 1
            }
            while e > 0 {
                guard m <= UInt64(Int64.max) / 10 else { return nil }
                m *= 10
                e -= 1
            }
            guard m <= UInt64(Int64.max) else { return nil }
            return negative ? -Int64(m) : Int64(m)
        }
    }

    /// `[+-]digits[.digits][(e|E)[+-]digits]`, with at least one digit before the exponent.
    static func decimal(_ p: UnsafeBufferPointer<UInt8>) -> Result<Decimal, FieldFailure> {
        var d = Decimal()
        var i = 0
        let n = p.count
        if i < n && (p[i] == 0x2b || p[i] == 0x2d) {
            d.negative = p[i] == 0x2d
            i += 1
        }
        var digits = 0
        var seenPoint = false
        var leading = true
        while i < n {
            let b = p[i]
            if b == 0x2e {
                guard !seenPoint else { return .failure(.notDecimal) }
                seenPoint = true
                i += 1
                continue
            }
            let v = UInt64(b) &- 0x30
            guard v <= 9 else { break }
            digits += 1
            if leading && v == 0 {
                if seenPoint { d.exponent -= 1 }
            } else {
                leading = false
                if d.mantissa < 1_000_000_000_000_000_000 {
                    d.mantissa = d.mantissa * 10 + v
                    if seenPoint { d.exponent -= 1 }
                } else {
                    d.droppedDigits += 1
                    if !seenPoint { d.exponent += 1 }
                }
            }
            i += 1
        }
        guard digits > 0 else { return .failure(.notDecimal) }
        if i < n && (p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E")) {
            i += 1
            var negativeExponent = false
            if i < n && (p[i] == 0x2b || p[i] == 0x2d) {
                negativeExponent = p[i] == 0x2d
                i += 1
            }
            var e = 0
            var expDigits = 0
            while i < n, p[i] >= 0x30 && p[i] <= 0x39 {
                if e < 10_000 { e = e * 10 + Int(p[i] - 0x30) }
                expDigits += 1
                i += 1
            }
            guard expDigits > 0 else { return .failure(.notDecimal) }
            d.exponent += negativeExponent ? -e : e
        }
        guard i == n else { return .failure(.notDecimal) }
        return .success(d)
    }

    /// Money: a non-negative decimal with at most 6 fractional digits, below 10^12; returned
    /// in millionths.
    static func money(_ p: UnsafeBufferPointer<UInt8>) -> Result<Int64, FieldFailure> {
        switch signedMoney(p) {
        case .success(let millionths) where millionths < 0: .failure(.negative)
        case let other: other
        }
    }

    /// Money that may be negative (a refund): a decimal with at most 6 fractional digits, its
    /// magnitude below 10^12; returned in millionths.
    static func signedMoney(_ p: UnsafeBufferPointer<UInt8>) -> Result<Int64, FieldFailure> {
        switch scaled(p, places: 6, limit: 1_000_000_000_000_000_000, limitText: "999999999999.999999") {
        case .success(let value): .success(value.negative ? -Int64(value.units) : Int64(value.units))
        case .failure(let failure): .failure(failure)
        }
    }

    /// An exchange rate: a decimal above 0 with at most 10 fractional digits, below 10^9;
    /// returned in units of 10^-10.
    static func rate(_ p: UnsafeBufferPointer<UInt8>) -> Result<UInt64, FieldFailure> {
        switch scaled(p, places: 10, limit: 10_000_000_000_000_000_000, limitText: "999999999.9999999999") {
        case .success(let value) where value.negative && value.units > 0: .failure(.negative)
        case .success(let value) where value.units == 0: .failure(.notPositive)
        case .success(let value): .success(value.units)
        case .failure(.tooManyDecimals): .failure(.tooManyRateDecimals)
        case .failure(let failure): .failure(failure)
        }
    }

    /// A decimal with at most `places` fractional digits whose magnitude in units of 10^-places
    /// is below `limit`: its sign and that magnitude (zero is never negative).
    private static func scaled(_ p: UnsafeBufferPointer<UInt8>, places: Int, limit: UInt64, limitText: String)
        -> Result<(negative: Bool, units: UInt64), FieldFailure>
    {
        let d: Decimal
        switch decimal(p) {
        case .success(let value): d = value
        case .failure:
            return isNonFinite(p) ? .failure(.notFinite) : .failure(.notDecimal)
        }
        if d.mantissa == 0 && d.droppedDigits == 0 { return .success((false, 0)) }
        var m = d.mantissa
        var scale = d.exponent + places
        while scale < 0 {
            guard m % 10 == 0 else { return .failure(.tooManyDecimals) }
            m /= 10
            scale += 1
        }
        if d.droppedDigits > 0 { return .failure(.tooLarge(limit: limitText)) }
        while scale > 0 {
            guard m < limit / 10 else { return .failure(.tooLarge(limit: limitText)) }
            m *= 10
            scale -= 1
        }
        guard m < limit else { return .failure(.tooLarge(limit: limitText)) }
        return .success((d.negative, m))
    }

    /// US dollars per unit of a currency from the European Central Bank's rates of one day, in
    /// units of 10^-10 rounded half up: `usdPerEuro / unitsPerEuro` (both in those units); nil
    /// when the quotient rounds to 0 or does not fit.
    static func usdPerUnit(usdPerEuro: UInt64, unitsPerEuro: UInt64) -> UInt64? {
        guard unitsPerEuro > 0 else { return nil }
        let product = usdPerEuro.multipliedFullWidth(by: 10_000_000_000)
        guard product.high < unitsPerEuro else { return nil }
        let (quotient, remainder) = unitsPerEuro.dividingFullWidth(product)
        let rounded = remainder >= unitsPerEuro - remainder ? quotient + 1 : quotient
        return rounded > 0 && rounded < 10_000_000_000_000_000_000 ? rounded : nil
    }

    /// Writes units of 10^-10 as a plain decimal with trailing fractional zeros dropped.
    static func appendRate(_ units: UInt64, to out: inout [UInt8]) {
        appendInteger(Int64(units / 10_000_000_000), to: &out)
        var fraction = units % 10_000_000_000
        guard fraction != 0 else { return }
        out.append(0x2e)
        var digits = 10
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        TimestampWriter.appendDigits(Int(fraction), count: digits, to: &out)
    }

    /// Whether PostgreSQL `real` can hold the value, and whether it is so small that it must be
    /// written as 0 (PostgreSQL refuses values that underflow to zero).
    enum RealCheck {
        case asWritten
        case zero
    }

    /// A finite decimal that fits a 4-byte float.
    static func real(_ p: UnsafeBufferPointer<UInt8>) -> Result<RealCheck, FieldFailure> {
        guard p.count <= 64 else { return .failure(.notDecimal) }
        let d: Decimal
        switch decimal(p) {
        case .success(let value): d = value
        case .failure:
            return isNonFinite(p) ? .failure(.notFinite) : .failure(.notDecimal)
        }
        if d.mantissa == 0 { return .success(.zero) }
        let magnitude = d.magnitude
        if magnitude > 39 { return .failure(.outOfRange) }
        if magnitude == 39 {
            // Near float's maximum (3.4028235e38): compare exactly.
            let value = Double(d.mantissa) * pow10(d.exponent)
            if !(value <= Double(Float.greatestFiniteMagnitude)) { return .failure(.outOfRange) }
        }
        if magnitude < -36 { return .success(.zero) }
        return .success(.asWritten)
    }

    private static func pow10(_ e: Int) -> Double {
        var r = 1.0
        if e >= 0 { for _ in 0..<e { r *= 10 } } else { for _ in 0..<(-e) { r /= 10 } }
        return r
    }

    private static func isNonFinite(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        var letters: [UInt8] = []
        for b in p where b != 0x2b && b != 0x2d { letters.append(b | 0x20) }
        let word = String(decoding: letters, as: UTF8.self)
        return word == "nan" || word == "inf" || word == "infinity"
    }

    /// Writes millionths as a plain decimal with trailing fractional zeros dropped (a refund's
    /// negative amount with its minus sign).
    static func appendMoney(_ millionths: Int64, to out: inout [UInt8]) {
        if millionths < 0 { out.append(0x2d) }
        let magnitude = millionths.magnitude
        appendInteger(Int64(magnitude / 1_000_000), to: &out)
        var fraction = magnitude % 1_000_000
        guard fraction != 0 else { return }
        out.append(0x2e)
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        TimestampWriter.appendDigits(Int(fraction), count: digits, to: &out)
    }

    /// Writes a non-negative integer in decimal.
    static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(0x30 + value))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        var v = value
        withUnsafeMutableBytes(of: &digits) { raw in
            while v > 0 {
                raw[23 - count] = UInt8(0x30 + v % 10)
                v /= 10
                count += 1
            }
            out.append(contentsOf: raw[(24 - count)...])
        }
    }
}
