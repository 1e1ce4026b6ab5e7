/// The members of one JSON object, found without building it: each key's bytes (as written,
/// between its quotes) and its value's byte range, so a translator copies values verbatim (a JSON
/// string stays a correctly escaped JSON string) and looks into nested objects by range.
struct JSONObjectView {
    struct Member {
        var key: Range<Int>
        var value: Range<Int>
    }

    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var members: [Member] = []

    /// Nil when `bytes[range]` is not one JSON object.
    init?(_ bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>? = nil) {
        self.bytes = bytes
        var i = range?.lowerBound ?? 0
        let end = range?.upperBound ?? bytes.count
        let p = UnsafeBufferPointer(rebasing: bytes[0..<end])
        JSONText.skipSpace(p, &i)
        guard i < end, p[i] == 0x7b else { return nil }
        i += 1
        JSONText.skipSpace(p, &i)
        if i < end && p[i] == 0x7d { return }
        while true {
            guard i < end, p[i] == 0x22 else { return nil }
            let keyStart = i + 1
            i += 1
            while i < end && p[i] != 0x22 {
                if p[i] == 0x5c { i += 1 }
                i += 1
            }
            guard i < end else { return nil }
            let key = keyStart..<i
            i += 1
            JSONText.skipSpace(p, &i)
            guard i < end, p[i] == 0x3a else { return nil }
            i += 1
            JSONText.skipSpace(p, &i)
            let valueStart = i
            if JSONText.skipValue(p, &i, depth: 1) != nil { return nil }
            members.append(Member(key: key, value: valueStart..<i))
            JSONText.skipSpace(p, &i)
            guard i < end else { return nil }
            if p[i] == 0x7d { return }
            guard p[i] == 0x2c else { return nil }
            i += 1
            JSONText.skipSpace(p, &i)
        }
    }

    /// The value range of `key`, if present and not `null`.
    func value(_ key: StaticString) -> Range<Int>? {
        let name = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        for member in members where member.key.count == name.count {
            if UnsafeBufferPointer(rebasing: bytes[member.key]).elementsEqual(name) {
                let value = member.value
                if value.count == 4 && bytes[value.lowerBound] == 0x6e { return nil }
                return value
            }
        }
        return nil
    }

    /// The nested object under `key`.
    func object(_ key: StaticString) -> JSONObjectView? {
        guard let range = value(key), bytes[range.lowerBound] == 0x7b else { return nil }
        return JSONObjectView(bytes, range: range)
    }

    /// The bytes of a value range.
    func text(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[range])
    }

    /// The value of `key` when it is a JSON string without escapes, its contents; a number, its
    /// text; else nil.
    func plain(_ key: StaticString) -> UnsafeBufferPointer<UInt8>? {
        guard let range = value(key) else { return nil }
        let value = text(range)
        if value.first == 0x22 {
            let inner = UnsafeBufferPointer(rebasing: value[1..<value.count - 1])
            return inner.contains(0x5c) ? nil : inner
        }
        if let first = value.first, first == 0x2d || (first >= 0x30 && first <= 0x39) { return value }
        return nil
    }
}

/// The Segment spec's calls as NDJSON (one call per line, as a warehouse or S3 export writes
/// them), and RudderStack's, which follow the same spec (docs/imports.md, "Segment"):
///
/// - `track`: an event named by `event` with its `properties`; one with a non-zero
///   `properties.revenue` is a purchase (`properties.currency`); `Application Opened` is an
///   open; `Install Attributed` an install (`properties.campaign.source` as network, `name`,
///   `ad_group`, `ad_creative`);
/// - `screen` and `page`: an event `screen` or `page` with the `name` among its properties;
/// - `identify`: an event `identify` with the `traits`, tying `anonymousId` to `userId`;
/// - `alias`: an event `alias` tying `previousId` to `userId`;
/// - `group`: an event `group` with the `traits`.
///
/// `messageId` is the event id (Segment's deduplication key); `timestamp` the time (Segment's,
/// corrected for device clock skew), RFC 3339 with a zone. The person is `userId`, else
/// `anonymousId`; the app is `context.app.namespace` (bundle id), else `context.app.name`.
struct SegmentTranslator: VendorTranslator {
    var isNDJSON: Bool { true }

    mutating func prepare(columns: [String]) throws(VendorHeaderProblem) -> [String] { [] }

    mutating func translate(_ row: VendorRow, into writer: inout NDJSONWriter) -> VendorRowOutcome {
        .rejected("a Segment export is NDJSON, one call per line")
    }

    mutating func translate(json line: UnsafeBufferPointer<UInt8>, into writer: inout NDJSONWriter) -> VendorRowOutcome {
        guard let call = JSONObjectView(line) else { return .rejected("not a JSON object (a Segment call per line)") }
        guard let type = call.plain("type") else { return .rejected("type: missing (track, identify, alias, screen, page, group)") }
        let context = call.object("context")
        let app = context?.object("app")
        let properties = call.object("properties")
        func common(_ kind: StaticString) {
            writer.begin(kind: kind)
            if let id = call.value("messageId") { writer.rawKey("event_id", call.text(id)) }
            if let range = app?.value("namespace") ?? app?.value("name") { writer.rawKey("app_id", app!.text(range)) }
            if let range = call.value("userId") { writer.rawKey("user_id", call.text(range)) }
            let deviceKey: StaticString = VendorBytes.equalsIgnoringCase(type, "alias") ? "previousId" : "anonymousId"
            if let range = call.value(deviceKey) { writer.rawKey("device_id", call.text(range)) }
        }
        let time = call.value("timestamp").map(call.text)
        if VendorBytes.equalsIgnoringCase(type, "track") {
            guard let eventRange = call.value("event") else { return .rejected("event: missing (a track call names its event)") }
            let event = call.text(eventRange)
            if let properties, let revenue = properties.plain("revenue"), !VendorBytes.isZero(revenue) {
                common("purchases")
                if let time { writer.rawKey("purchased_at", time) }
                writer.rawKey("revenue", properties.text(properties.value("revenue")!))
                if let currency = properties.value("currency") { writer.rawKey("currency", properties.text(currency)) }
                if let product = properties.value("product_id") { writer.rawKey("product_id", properties.text(product)) }
                writer.end()
                return .row
            }
            if Self.isName(event, "Application Opened") {
                common("opens")
                if let time { writer.rawKey("opened_at", time) }
                writer.end()
                return .row
            }
            if Self.isName(event, "Install Attributed") {
                let campaign = properties?.object("campaign")
                common("installs")
                if let time { writer.rawKey("installed_at", time) }
                if let source = campaign?.value("source") {
                    writer.rawKey("network", campaign!.text(source))
                } else {
                    writer.string("network", Array("organic".utf8))
                }
                if let range = campaign?.value("name") { writer.rawKey("campaign", campaign!.text(range)) }
                if let range = campaign?.value("ad_group") { writer.rawKey("adset", campaign!.text(range)) }
                if let range = campaign?.value("ad_creative") { writer.rawKey("creative", campaign!.text(range)) }
                writer.end()
                return .row
            }
            common("events")
            writer.rawKey("event", event)
            if let time { writer.rawKey("occurred_at", time) }
            if let range = call.value("properties") { writer.rawKey("properties", call.text(range)) }
            writer.end()
            return .row
        }
        let name: StaticString
        var payload: Range<Int>?
        switch true {
        case VendorBytes.equalsIgnoringCase(type, "identify"): name = "identify"; payload = call.value("traits")
        case VendorBytes.equalsIgnoringCase(type, "alias"): name = "alias"
        case VendorBytes.equalsIgnoringCase(type, "group"): name = "group"; payload = call.value("traits")
        case VendorBytes.equalsIgnoringCase(type, "screen"): name = "screen"; payload = call.value("properties")
        case VendorBytes.equalsIgnoringCase(type, "page"): name = "page"; payload = call.value("properties")
        default: return .rejected("type: \"\(String(decoding: type, as: UTF8.self))\" is not a Segment call (track, identify, alias, screen, page, group)")
        }
        common("events")
        writer.string("event", Array(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)))
        if let time { writer.rawKey("occurred_at", time) }
        if let screenName = call.value("name") {
            // The screen's or page's name joins its properties.
            writer.beginProperties()
            writer.rawProperty("name", call.text(screenName))
            if let payload, let object = JSONObjectView(call.bytes, range: payload) {
                for member in object.members where !object.text(member.key).elementsEqual("name".utf8) {
                    writer.rawMember(object.text(member.key), object.text(member.value))
                }
            }
            writer.end()
            return .row
        }
        if let payload { writer.rawKey("properties", call.text(payload)) }
        writer.end()
        return .row
    }

    private static func isName(_ value: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        value.count == name.utf8CodeUnitCount + 2 && UnsafeBufferPointer(rebasing: value[1..<value.count - 1])
            .elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }
}
