/// Writes the funnel NDJSON objects a vendor translator produces: a kind, string fields, raw
/// numbers and a properties object, escaped as JSON. Byte-level: it runs for every vendor row.
struct NDJSONWriter {
    var out: [UInt8] = []
    private var propertiesOpen = false
    private var propertyCount = 0

    init() { out.reserveCapacity(1 << 20) }

    /// Starts an object with its `kind`.
    mutating func begin(kind: StaticString) {
        out.append(contentsOf: #"{"kind":""#.utf8)
        append(kind)
        out.append(0x22)
    }

    /// `,"key":"value"` when `value` is not empty.
    @inline(__always)
    mutating func string(_ key: StaticString, _ value: UnsafeBufferPointer<UInt8>) {
        guard !value.isEmpty else { return }
        keyPrefix(key)
        out.append(0x22)
        appendEscaped(value)
        out.append(0x22)
    }

    /// `,"key":"value"` for a value made in code.
    mutating func string(_ key: StaticString, _ value: [UInt8]) {
        value.withUnsafeBufferPointer { string(key, $0) }
    }

    /// An install's attribution as an MMP's raw report gives it: the network (`organic` when
    /// empty, named organic, or `organic` is set), campaign, adset and creative, the country as an
    /// ISO code, and the platform when it is iOS or Android.
    mutating func attribution(network: UnsafeBufferPointer<UInt8>, organic: Bool = false, campaign: UnsafeBufferPointer<UInt8>,
                              adset: UnsafeBufferPointer<UInt8>, creative: UnsafeBufferPointer<UInt8>,
                              country: UnsafeBufferPointer<UInt8>, platform: UnsafeBufferPointer<UInt8>) {
        if organic || network.isEmpty || VendorBytes.equalsIgnoringCase(network, "organic") {
            string("network", Array("organic".utf8))
        } else {
            string("network", network)
        }
        string("campaign", campaign)
        string("adset", adset)
        string("creative", creative)
        if !country.isEmpty { string("country", VendorBytes.country(country)) }
        if VendorBytes.equalsIgnoringCase(platform, "ios") || VendorBytes.equalsIgnoringCase(platform, "android") {
            string("platform", platform)
        }
    }

    /// `,"key":"prefix-value"`: an identifier with a vendor prefix.
    mutating func prefixed(_ key: StaticString, prefix: StaticString, _ value: [UInt8]) {
        keyPrefix(key)
        out.append(0x22)
        append(prefix)
        out.append(contentsOf: value)
        out.append(0x22)
    }

    /// `,"key":value` with the value written as is (a JSON number the caller checked).
    mutating func raw(_ key: StaticString, _ value: UnsafeBufferPointer<UInt8>) {
        guard !value.isEmpty else { return }
        keyPrefix(key)
        out.append(contentsOf: value)
    }

    /// `,"key":value` with a JSON value copied as written (a string keeps its quotes and escapes).
    mutating func rawKey(_ key: StaticString, _ value: UnsafeBufferPointer<UInt8>) {
        guard !value.isEmpty else { return }
        keyPrefix(key)
        out.append(contentsOf: value)
    }

    /// `"name":value` inside the properties object, the JSON value copied as written.
    mutating func rawProperty(_ name: StaticString, _ value: UnsafeBufferPointer<UInt8>) {
        rawMember(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount), value)
    }

    /// `"key":value` inside the properties object, key (as written between its quotes) and
    /// value copied as written.
    mutating func rawMember(_ key: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) {
        if propertyCount > 0 { out.append(0x2c) }
        propertyCount += 1
        out.append(0x22)
        out.append(contentsOf: key)
        out.append(0x22)
        out.append(0x3a)
        out.append(contentsOf: value)
    }

    /// Opens `,"properties":{`; ``property(_:_:)`` adds to it and ``end()`` closes it.
    mutating func beginProperties() {
        out.append(contentsOf: #","properties":{"#.utf8)
        propertiesOpen = true
        propertyCount = 0
    }

    /// `"name":"value"` inside the properties object, when `value` is not empty.
    mutating func property(_ name: [UInt8], _ value: UnsafeBufferPointer<UInt8>) {
        guard !value.isEmpty else { return }
        if propertyCount > 0 { out.append(0x2c) }
        propertyCount += 1
        out.append(0x22)
        name.withUnsafeBufferPointer { appendEscaped($0) }
        out.append(contentsOf: #"":""#.utf8)
        appendEscaped(value)
        out.append(0x22)
    }

    /// `"name":value` inside the properties object, the value written as is (`true`, a number).
    mutating func rawProperty(_ name: StaticString, _ value: StaticString) {
        if propertyCount > 0 { out.append(0x2c) }
        propertyCount += 1
        out.append(0x22)
        append(name)
        out.append(contentsOf: #"":"#.utf8)
        append(value)
    }

    /// Closes the properties object, if open, and the object.
    mutating func end() {
        if propertiesOpen {
            out.append(0x7d)
            propertiesOpen = false
        }
        out.append(0x7d)
    }

    @inline(__always)
    private mutating func keyPrefix(_ key: StaticString) {
        out.append(0x2c)
        out.append(0x22)
        append(key)
        out.append(0x22)
        out.append(0x3a)
    }

    @inline(__always)
    private mutating func append(_ text: StaticString) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// JSON string escaping: quote, backslash and control characters.
    @inline(__always)
    mutating func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        var clean = true
        for byte in bytes where byte < 0x20 || byte == 0x22 || byte == 0x5c {
            clean = false
            break
        }
        if clean {
            out.append(contentsOf: bytes)
            return
        }
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        for byte in bytes {
            switch byte {
            case 0x22: out.append(contentsOf: [0x5c, 0x22])
            case 0x5c: out.append(contentsOf: [0x5c, 0x5c])
            case 0x0a: out.append(contentsOf: [0x5c, 0x6e])
            case 0x0d: out.append(contentsOf: [0x5c, 0x72])
            case 0x09: out.append(contentsOf: [0x5c, 0x74])
            case 0..<0x20: out.append(contentsOf: [0x5c, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: out.append(byte)
            }
        }
    }
}

/// Helpers over field bytes shared by the translators.
enum VendorBytes {
    /// Whether `bytes` equals `text`, ignoring ASCII case.
    @inline(__always)
    static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount else { return false }
        let other = text.utf8Start
        for i in 0..<bytes.count where bytes[i] | 0x20 != other[i] | 0x20 { return false }
        return true
    }

    /// FNV-1a, 64 bits, over several fields separated by a unit separator: a stable event id for
    /// vendors that write none.
    static func fingerprint(_ fields: UnsafeBufferPointer<UInt8>...) -> [UInt8] {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for field in fields {
            for byte in field {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            hash ^= 0x1f
            hash = hash &* 0x100_0000_01b3
        }
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var text = [UInt8](repeating: 0, count: 16)
        for i in 0..<16 { text[15 - i] = hex[Int((hash >> (UInt64(i) * 4)) & 15)] }
        return text
    }

    /// Whether `bytes` is a decimal number JSON accepts as written (`-4.99`, `12`, `0.5`).
    static func isPlainDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        if i < bytes.count && bytes[i] == 0x2d { i += 1 }
        let digitsStart = i
        while i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 { i += 1 }
        guard i > digitsStart else { return false }
        if bytes[digitsStart] == 0x30 && i - digitsStart > 1 { return false }
        if i < bytes.count && bytes[i] == 0x2e {
            i += 1
            let fraction = i
            while i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 { i += 1 }
            guard i > fraction else { return false }
        }
        return i == bytes.count
    }

    /// An amount in minor units as a decimal in whole units: `1999` USD is `19.99`, `500` JPY is
    /// `500`, `1999` KWD is `1.999` (ISO 4217's minor units; 2 for a currency not listed). A value
    /// that is not a whole number is returned as written, for the validator to judge.
    static func fromMinorUnits(_ amount: UnsafeBufferPointer<UInt8>, currency: UnsafeBufferPointer<UInt8>?) -> [UInt8] {
        let code = currency.map { String(decoding: $0, as: UTF8.self).uppercased() } ?? "USD"
        let places = noMinorUnits.contains(code) ? 0 : threeMinorUnits.contains(code) ? 3 : 2
        let negative = amount.first == 0x2d
        let digits = Array(negative ? amount.dropFirst() : amount[...])
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return Array(amount) }
        guard places > 0 else { return Array(amount) }
        var padded = digits
        while padded.count <= places { padded.insert(0x30, at: 0) }
        return (negative ? [0x2d] : []) + padded.dropLast(places) + [0x2e] + padded.suffix(places)
    }

    /// ISO 4217 currencies without minor units, and those with three.
    static let noMinorUnits: Set<String> = ["BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI",
                                            "VND", "VUV", "XAF", "XOF", "XPF"]
    static let threeMinorUnits: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]

    /// Whether `bytes` is zero written as a decimal (`0`, `0.00`, `-0.0`).
    static func isZero(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 == 0x30 || $0 == 0x2e || $0 == 0x2d } && bytes.contains(0x30)
    }

    /// A country as ISO 3166-1 alpha-2: the code as given (any case), AppsFlyer's `UK` as `GB`,
    /// or an English country name the vendors write (docs/imports.md) as its code.
    static func country(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        if bytes.count == 2 {
            if equalsIgnoringCase(bytes, "uk") { return Array("GB".utf8) }
            return bytes.map { $0 >= 0x61 && $0 <= 0x7a ? $0 - 0x20 : $0 }
        }
        let name = String(decoding: bytes, as: UTF8.self).lowercased()
        if let code = countryNames[name] { return Array(code.utf8) }
        return Array(bytes)
    }

    /// English names of the countries most exports name, to their codes.
    static let countryNames: [String: String] = [
        "united states": "US", "united states of america": "US", "usa": "US", "united kingdom": "GB",
        "great britain": "GB", "germany": "DE", "france": "FR", "spain": "ES", "italy": "IT",
        "netherlands": "NL", "canada": "CA", "australia": "AU", "japan": "JP", "china": "CN",
        "india": "IN", "brazil": "BR", "mexico": "MX", "russia": "RU", "south korea": "KR",
        "korea, republic of": "KR", "switzerland": "CH", "austria": "AT", "belgium": "BE",
        "sweden": "SE", "norway": "NO", "denmark": "DK", "finland": "FI", "poland": "PL",
        "portugal": "PT", "ireland": "IE", "turkey": "TR", "türkiye": "TR", "indonesia": "ID",
        "philippines": "PH", "vietnam": "VN", "viet nam": "VN", "thailand": "TH", "argentina": "AR",
        "colombia": "CO", "chile": "CL", "south africa": "ZA", "egypt": "EG", "saudi arabia": "SA",
        "united arab emirates": "AE", "israel": "IL", "new zealand": "NZ", "singapore": "SG",
        "malaysia": "MY", "ukraine": "UA", "czechia": "CZ", "czech republic": "CZ", "greece": "GR",
        "romania": "RO", "hungary": "HU", "taiwan": "TW", "hong kong": "HK", "pakistan": "PK",
        "nigeria": "NG", "peru": "PE",
    ]
}
