/// Firebase's (Google Analytics for Firebase) BigQuery export rows as NDJSON, one row per line
/// (`event_date`, `event_timestamp`, `event_name`, `event_params`, `user_pseudo_id`, `user_id`,
/// `device`, `geo`, `app_info`, `traffic_source`, `platform`; docs/imports.md, "Firebase"):
///
/// - `first_open`: an install (it includes reinstalls), attributed to `traffic_source`;
/// - `session_start`: an open;
/// - `purchase` and `in_app_purchase` with a non-zero `value` param (in its `currency` param),
///   else `event_value_in_usd` (in USD): a purchase;
/// - every other event: an event with its `event_params` as properties, each param's one value.
///
/// The export has no event id: it is derived from `user_pseudo_id`, `event_timestamp`,
/// `event_name` and `event_params`, so the same row exported again is the same event.
/// `event_timestamp` is microseconds UTC (BigQuery writes it, like every integer, as a JSON
/// string); `event_date` is in the property's zone and not read. The person is `user_id`, else
/// the `user_pseudo_id` as a device id; a row with both ties them. The app is `app_info.id`.
struct FirebaseTranslator: VendorTranslator {
    var isNDJSON: Bool { true }

    mutating func prepare(columns: [String]) throws(VendorHeaderProblem) -> [String] { [] }

    mutating func translate(_ row: VendorRow, into writer: inout NDJSONWriter) -> VendorRowOutcome {
        .rejected("a Firebase BigQuery export is read as NDJSON, one row per line")
    }

    mutating func translate(json line: UnsafeBufferPointer<UInt8>, into writer: inout NDJSONWriter) -> VendorRowOutcome {
        guard let row = JSONObjectView(line) else { return .rejected("not a JSON object (a Firebase BigQuery export row per line)") }
        guard let event = row.plain("event_name") else { return .rejected("event_name: missing") }
        guard let stamp = row.plain("event_timestamp") else { return .rejected("event_timestamp: missing (microseconds UTC)") }
        let at = Self.millis(stamp)
        let params = Self.params(row)
        let pseudo = row.plain("user_pseudo_id") ?? UnsafeBufferPointer(start: nil, count: 0)
        let paramsText = row.value("event_params").map(row.text) ?? UnsafeBufferPointer(start: nil, count: 0)
        let id = VendorBytes.fingerprint(pseudo, stamp, event, paramsText)
        func common(_ kind: StaticString) {
            writer.begin(kind: kind)
            writer.prefixed("event_id", prefix: "fb-", id)
            if let app = row.object("app_info"), let range = app.value("id") { writer.rawKey("app_id", app.text(range)) }
            if let range = row.value("user_id") { writer.rawKey("user_id", row.text(range)) }
            if let range = row.value("user_pseudo_id") { writer.rawKey("device_id", row.text(range)) }
        }
        if VendorBytes.equalsIgnoringCase(event, "first_open") {
            common("installs")
            writer.string("installed_at", at)
            let traffic = row.object("traffic_source")
            let medium = traffic?.plain("medium")
            let source = traffic?.plain("source")
            if let source, !source.isEmpty, !Self.isUnset(source), !VendorBytes.equalsIgnoringCase(source, "(direct)"),
               !(medium.map { VendorBytes.equalsIgnoringCase($0, "organic") } ?? false) {
                writer.string("network", source)
                if let name = traffic?.plain("name"), !Self.isUnset(name), !VendorBytes.equalsIgnoringCase(name, "(direct)") {
                    writer.string("campaign", name)
                }
            } else {
                writer.string("network", Array("organic".utf8))
            }
            if let geo = row.object("geo"), let name = geo.plain("country") {
                let code = VendorBytes.country(name)
                if code.count == 2 { writer.string("country", code) }
            }
            if let platform = row.plain("platform") {
                if VendorBytes.equalsIgnoringCase(platform, "ios") { writer.string("platform", Array("ios".utf8)) }
                if VendorBytes.equalsIgnoringCase(platform, "android") { writer.string("platform", Array("android".utf8)) }
            }
            writer.end()
            return .row
        }
        if VendorBytes.equalsIgnoringCase(event, "session_start") {
            common("opens")
            writer.string("opened_at", at)
            writer.end()
            return .row
        }
        if VendorBytes.equalsIgnoringCase(event, "purchase") || VendorBytes.equalsIgnoringCase(event, "in_app_purchase") {
            var amount: UnsafeBufferPointer<UInt8>?
            var currency: UnsafeBufferPointer<UInt8>?
            if let value = params.first(where: { $0.name.elementsEqual("value".utf8) })?.plain, !VendorBytes.isZero(value) {
                amount = value
                currency = params.first(where: { $0.name.elementsEqual("currency".utf8) })?.plain
            } else if let usd = row.plain("event_value_in_usd"), !VendorBytes.isZero(usd) {
                amount = usd
                currency = nil
            }
            if let amount {
                common("purchases")
                writer.string("purchased_at", at)
                writer.string("revenue", amount)
                if let currency { writer.string("currency", currency) } else { writer.string("currency", Array("USD".utf8)) }
                if let product = params.first(where: { $0.name.elementsEqual("product_id".utf8) || $0.name.elementsEqual("item_id".utf8) })?.plain {
                    writer.string("product_id", product)
                }
                writer.end()
                return .row
            }
        }
        common("events")
        writer.string("event", event)
        writer.string("occurred_at", at)
        writer.beginProperties()
        for param in params { writer.rawMember(param.name, param.json) }
        writer.end()
        return .row
    }

    /// One `event_params` entry: its key as written and its one value.
    struct Param {
        var name: UnsafeBufferPointer<UInt8>
        /// The value as JSON: a string as written, a number (`int_value`'s string unquoted).
        var json: UnsafeBufferPointer<UInt8>
        /// The value's text without quotes when it has no escapes (a number, a plain string).
        var plain: UnsafeBufferPointer<UInt8>?
    }

    /// The `event_params` of `row`, each `{key, value: {string_value|int_value|float_value|
    /// double_value}}` with its first non-null value; a param without one is left out.
    static func params(_ row: JSONObjectView) -> [Param] {
        guard let range = row.value("event_params"), row.bytes[range.lowerBound] == 0x5b else { return [] }
        let p = UnsafeBufferPointer(rebasing: row.bytes[0..<range.upperBound])
        var i = range.lowerBound + 1
        var result: [Param] = []
        while true {
            JSONText.skipSpace(p, &i)
            guard i < range.upperBound, p[i] != 0x5d else { break }
            let start = i
            if JSONText.skipValue(p, &i, depth: 2) != nil { break }
            if let entry = JSONObjectView(row.bytes, range: start..<i), let key = entry.value("key"),
               entry.bytes[key.lowerBound] == 0x22, let value = entry.object("value") {
                let name = UnsafeBufferPointer(rebasing: entry.bytes[(key.lowerBound + 1)..<(key.upperBound - 1)])
                if let text = value.value("string_value") {
                    result.append(Param(name: name, json: value.text(text), plain: value.plain("string_value")))
                } else if let integer = value.value("int_value") {
                    // BigQuery writes INT64 as a JSON string: a whole number is stored as a number.
                    let plain = value.plain("int_value")
                    let json = plain.map { VendorBytes.isPlainDecimal($0) && !$0.contains(0x2e) } == true ? plain! : value.text(integer)
                    result.append(Param(name: name, json: json, plain: plain))
                } else if let real = value.value("double_value") ?? value.value("float_value") {
                    result.append(Param(name: name, json: value.text(real), plain: value.plain("double_value") ?? value.plain("float_value")))
                }
            }
            JSONText.skipSpace(p, &i)
            guard i < range.upperBound, p[i] == 0x2c else { break }
            i += 1
        }
        return result
    }

    /// Microseconds as the epoch milliseconds funnel reads (`1714557600123456` ->
    /// `1714557600123`); anything else as written, for the validator to name.
    static func millis(_ micros: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard micros.count > 3, micros.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return Array(micros) }
        return Array(micros.dropLast(3))
    }

    /// BigQuery's `(not set)`.
    private static func isUnset(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        VendorBytes.equalsIgnoringCase(value, "(not set)") || VendorBytes.equalsIgnoringCase(value, "(none)")
    }
}
