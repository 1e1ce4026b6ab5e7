/// PostHog's events export as NDJSON, one event per line (`uuid`, `event`, `distinct_id`,
/// `timestamp`, `properties`; docs/imports.md, "PostHog"):
///
/// - `$identify`: an event tying `properties.$anon_distinct_id` to the `distinct_id`;
/// - `$create_alias`: an event tying `properties.alias` to the `distinct_id`;
/// - an event with a non-zero `properties.revenue`: a purchase in `properties.currency`;
/// - `Application Opened`: an open;
/// - every other event: an event with its `properties` as they are.
///
/// `uuid` is the event id. The person is the `distinct_id`; an event PostHog marks anonymous
/// (`$is_identified` false, or a `distinct_id` equal to its `$device_id`) counts for that device
/// until an `$identify` ties it to a user. The app is `properties.$app_namespace`, else
/// `$host`, else `posthog-<team_id>`. Times without a zone are UTC (PostHog stores UTC).
struct PostHogTranslator: VendorTranslator {
    /// Revenue is in minor units (`--revenue-minor-units`): divided by the currency's.
    var minorUnits = false
    var isNDJSON: Bool { true }

    mutating func prepare(columns: [String]) throws(VendorHeaderProblem) -> [String] { [] }

    mutating func translate(_ row: VendorRow, into writer: inout NDJSONWriter) -> VendorRowOutcome {
        .rejected("a PostHog events export is read as NDJSON, one event per line")
    }

    mutating func translate(json line: UnsafeBufferPointer<UInt8>, into writer: inout NDJSONWriter) -> VendorRowOutcome {
        guard let record = JSONObjectView(line) else { return .rejected("not a JSON object (a PostHog event per line)") }
        guard let eventRange = record.value("event") else { return .rejected("event: missing") }
        let event = record.text(eventRange)
        let properties = record.object("properties")
        let distinct = record.value("distinct_id").map(record.text)
        let time = record.value("timestamp").map(record.text)
        func common(_ kind: StaticString) {
            writer.begin(kind: kind)
            if let id = record.value("uuid") { writer.rawKey("event_id", record.text(id)) }
            if let range = properties?.value("$app_namespace") ?? properties?.value("$host") {
                writer.rawKey("app_id", properties!.text(range))
            } else if let team = record.plain("team_id") {
                writer.prefixed("app_id", prefix: "posthog-", Array(team))
            }
            if Self.isName(event, "$identify"), let anon = properties?.value("$anon_distinct_id") {
                if let distinct { writer.rawKey("user_id", distinct) }
                writer.rawKey("device_id", properties!.text(anon))
                return
            }
            if Self.isName(event, "$create_alias"), let alias = properties?.value("alias") {
                if let distinct { writer.rawKey("user_id", distinct) }
                writer.rawKey("device_id", properties!.text(alias))
                return
            }
            let device = properties?.value("$device_id").map { properties!.text($0) }
            let identified = properties?.value("$is_identified").map { properties!.text($0) }
            let anonymous = identified.map { $0.elementsEqual("false".utf8) } ?? (device.map { distinct?.elementsEqual($0) == true } ?? false)
            if anonymous {
                if let distinct { writer.rawKey("device_id", distinct) }
            } else {
                if let distinct { writer.rawKey("user_id", distinct) }
                if let device { writer.rawKey("device_id", device) }
            }
        }
        if let properties, let revenue = properties.plain("revenue"), !VendorBytes.isZero(revenue) {
            common("purchases")
            if let time { writer.rawKey("purchased_at", time) }
            let currency = properties.plain("currency")
            if minorUnits {
                writer.string("revenue", VendorBytes.fromMinorUnits(revenue, currency: currency))
            } else {
                writer.rawKey("revenue", properties.text(properties.value("revenue")!))
            }
            if let currency = properties.value("currency") { writer.rawKey("currency", properties.text(currency)) }
            writer.end()
            return .row
        }
        if Self.isName(event, "Application Opened") {
            common("opens")
            if let time { writer.rawKey("opened_at", time) }
            writer.end()
            return .row
        }
        common("events")
        writer.rawKey("event", event)
        if let time { writer.rawKey("occurred_at", time) }
        if let range = record.value("properties") { writer.rawKey("properties", record.text(range)) }
        writer.end()
        return .row
    }

    private static func isName(_ value: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        value.count == name.utf8CodeUnitCount + 2 && UnsafeBufferPointer(rebasing: value[1..<value.count - 1])
            .elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }
}
