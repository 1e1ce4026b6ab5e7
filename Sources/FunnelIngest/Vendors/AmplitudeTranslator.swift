/// Amplitude's Export API events, one JSON object per line (the hourly files of the export's
/// archive; docs/imports.md, "Amplitude"): `uuid`, `event_type`, `event_time`, `user_id`,
/// `device_id`, `amplitude_id`, `event_properties`, `user_properties`, `revenue`, `$insert_id`,
/// `app`, `country`, `platform`, `os_name`:
///
/// - an event with a non-zero `revenue` (else `event_properties.$revenue`), as `[Amplitude]
///   Revenue` events have: a purchase in `event_properties.$currency`, else USD;
/// - `session_start`: an open;
/// - every other event: an event with its `event_properties` as they are.
///
/// `uuid` is the event id, else `$insert_id`. `event_time` is UTC written without a zone. The
/// person is `user_id`, else `device_id`; each row with both ties that device to the user, so one
/// person with several device ids counts once. The app is `--app-id`'s, else `amplitude-<app>`
/// (the project id).
struct AmplitudeTranslator: VendorTranslator {
    /// The app id every row is read as (`--app-id`: the bundle id an MMP's export names the app
    /// by); nil: `amplitude-<app>`.
    var appID: [UInt8]?
    var isNDJSON: Bool { true }

    mutating func prepare(columns: [String]) throws(VendorHeaderProblem) -> [String] { [] }

    mutating func translate(_ row: VendorRow, into writer: inout NDJSONWriter) -> VendorRowOutcome {
        .rejected("an Amplitude export is read as NDJSON, one event per line")
    }

    mutating func translate(json line: UnsafeBufferPointer<UInt8>, into writer: inout NDJSONWriter) -> VendorRowOutcome {
        guard let record = JSONObjectView(line) else { return .rejected("not a JSON object (an Amplitude event per line)") }
        guard let typeRange = record.value("event_type") else { return .rejected("event_type: missing") }
        let type = record.text(typeRange)
        let time = record.value("event_time").map(record.text)
        let properties = record.object("event_properties")
        func common(_ kind: StaticString) {
            writer.begin(kind: kind)
            if let id = record.value("uuid") ?? record.value("$insert_id") { writer.rawKey("event_id", record.text(id)) }
            if let appID {
                writer.string("app_id", appID)
            } else if let app = record.plain("app") {
                writer.prefixed("app_id", prefix: "amplitude-", Array(app))
            }
            if let range = record.value("user_id") { writer.rawKey("user_id", record.text(range)) }
            if let range = record.value("device_id") { writer.rawKey("device_id", record.text(range)) }
        }
        let amount = record.plain("revenue") ?? properties?.plain("$revenue")
        if let amount, !VendorBytes.isZero(amount) {
            common("purchases")
            if let time { writer.rawKey("purchased_at", time) }
            writer.string("revenue", amount)
            if let currency = properties?.plain("$currency") ?? properties?.plain("currency") {
                writer.string("currency", currency)
            } else {
                writer.string("currency", Array("USD".utf8))
            }
            if let product = properties?.value("$productId") ?? record.value("product_id") {
                writer.rawKey("product_id", properties?.value("$productId") != nil ? properties!.text(product) : record.text(product))
            }
            writer.end()
            return .row
        }
        if Self.isName(type, "session_start") {
            common("opens")
            if let time { writer.rawKey("opened_at", time) }
            writer.end()
            return .row
        }
        common("events")
        writer.rawKey("event", type)
        if let time { writer.rawKey("occurred_at", time) }
        if let range = record.value("event_properties") { writer.rawKey("properties", record.text(range)) }
        writer.end()
        return .row
    }

    private static func isName(_ value: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        value.count == name.utf8CodeUnitCount + 2 && UnsafeBufferPointer(rebasing: value[1..<value.count - 1])
            .elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }
}
