/// Byte-level checks of UTF-8 text, shared by the validators and the raw text of rejects.
enum UTF8Check {
    /// What a scan of a field's bytes found.
    struct Scan {
        var isValidUTF8 = true
        var hasNUL = false
        /// A C0 or C1 control character or DEL (NUL included).
        var hasControl = false
        /// A byte that COPY text format must escape: backslash, tab, newline or carriage return.
        var needsEscape = false
    }

    /// Scans `bytes` once: an ASCII fast path, full UTF-8 validation only when needed.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Scan {
        var result = Scan()
        var nonASCII = false
        for b in bytes {
            if b < 0x20 || b == 0x7f {
                result.hasControl = true
                if b == 0 { result.hasNUL = true }
                if b == 0x09 || b == 0x0a || b == 0x0d { result.needsEscape = true }
            } else if b == 0x5c {
                result.needsEscape = true
            } else if b >= 0x80 {
                nonASCII = true
            }
        }
        if nonASCII {
            let (valid, c1) = validate(bytes)
            result.isValidUTF8 = valid
            if c1 { result.hasControl = true }
        }
        return result
    }

    /// Whether `bytes` are well-formed UTF-8 (no overlongs, surrogates or code points past
    /// U+10FFFF), and whether they hold a C1 control character (U+0080-U+009F).
    static func validate(_ bytes: UnsafeBufferPointer<UInt8>) -> (valid: Bool, hasC1: Bool) {
        var i = 0
        let n = bytes.count
        var hasC1 = false
        while i < n {
            let b0 = bytes[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            if b0 >= 0xc2 && b0 <= 0xdf {
                guard i + 1 < n, bytes[i + 1] & 0xc0 == 0x80 else { return (false, hasC1) }
                if b0 == 0xc2 && bytes[i + 1] <= 0x9f { hasC1 = true }
                i += 2
            } else if b0 >= 0xe0 && b0 <= 0xef {
                guard i + 2 < n else { return (false, hasC1) }
                let b1 = bytes[i + 1]
                let b2 = bytes[i + 2]
                guard b1 & 0xc0 == 0x80, b2 & 0xc0 == 0x80 else { return (false, hasC1) }
                if b0 == 0xe0 && b1 < 0xa0 { return (false, hasC1) }
                if b0 == 0xed && b1 > 0x9f { return (false, hasC1) }
                i += 3
            } else if b0 >= 0xf0 && b0 <= 0xf4 {
                guard i + 3 < n else { return (false, hasC1) }
                let b1 = bytes[i + 1]
                guard b1 & 0xc0 == 0x80, bytes[i + 2] & 0xc0 == 0x80, bytes[i + 3] & 0xc0 == 0x80
                else { return (false, hasC1) }
                if b0 == 0xf0 && b1 < 0x90 { return (false, hasC1) }
                if b0 == 0xf4 && b1 > 0x8f { return (false, hasC1) }
                i += 4
            } else {
                return (false, hasC1)
            }
        }
        return (true, hasC1)
    }

    /// Bytes as a valid String for people to read: invalid sequences become U+FFFD, NUL bytes
    /// become U+FFFD (PostgreSQL text cannot hold NUL), and at most `limit` bytes are kept (cut
    /// on a character boundary, with "…" appended when cut).
    static func displayText(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int, ellipsis: Bool = true) -> String {
        let cut = bytes.count > limit
        var end = min(bytes.count, limit)
        // Step back off a continuation byte so the cut does not split a character.
        var stepped = 0
        while cut && end > 0 && bytes[end] & 0xc0 == 0x80 && stepped < 3 {
            end -= 1
            stepped += 1
        }
        var text = String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self)
        if text.utf8.contains(0) {
            text = String(text.unicodeScalars.map { $0 == "\0" ? "\u{FFFD}" : Character($0) })
        }
        return cut && ellipsis ? text + "…" : text
    }
}
