/// AppsFlyer raw-data reports (installs, in-app events, uninstalls, reinstalls, retargeting
/// conversions; organic and non-organic), CSV as exported, columns by AppsFlyer's names
/// (docs/imports.md, "AppsFlyer"):
///
/// - an `install` row that is no retargeting conversion is an install: `Install Time`, network
///   from `Media Source` (empty or `organic`: `organic`), `Campaign`, `Adset`, `Ad` (creative),
///   `Country Code` (`UK` as `GB`), `Platform`;
/// - a row with a non-zero `Event Revenue` is a purchase (negative: a refund) in
///   `Event Revenue Currency`;
/// - every other row (in-app events, `uninstall`, `reinstall`, retargeting conversions named by
///   `Retargeting Conversion Type`) is an event, with every other non-empty column as a
///   property under its AppsFlyer name;
/// - rows with a `Blocked Reason` (Protect360) or a `Rejected Reason` (validation rules) are
///   counted and named, not loaded.
///
/// The person is `Customer User ID`, else the device `AppsFlyer ID`; a row with both ties the
/// device to the user. AppsFlyer writes no event id: it is derived from the fields that make a
/// row one event (the same row exported twice is one event).
struct AppsFlyerTranslator: VendorTranslator {
    private var name = -1, time = -1, installTime = -1, device = -1, user = -1, app = -1
    private var media = -1, campaign = -1, adset = -1, ad = -1, country = -1, platform = -1
    private var revenue = -1, currency = -1, value = -1, retargeting = -1, conversionType = -1
    private var blocked = -1, rejected = -1
    /// The columns written as an event's properties, with their names.
    private var propertyColumns: [(column: Int, name: [UInt8])] = []

    mutating func prepare(columns: [String]) throws(VendorHeaderProblem) -> [String] {
        name = vendorColumn(columns, "Event Name")
        time = vendorColumn(columns, "Event Time")
        installTime = vendorColumn(columns, "Install Time")
        device = vendorColumn(columns, "AppsFlyer ID")
        user = vendorColumn(columns, "Customer User ID")
        app = vendorColumn(columns, "App ID")
        media = vendorColumn(columns, "Media Source")
        campaign = vendorColumn(columns, "Campaign")
        adset = vendorColumn(columns, "Adset")
        ad = vendorColumn(columns, "Ad")
        country = vendorColumn(columns, "Country Code")
        platform = vendorColumn(columns, "Platform")
        revenue = vendorColumn(columns, "Event Revenue")
        currency = vendorColumn(columns, "Event Revenue Currency")
        value = vendorColumn(columns, "Event Value")
        retargeting = vendorColumn(columns, "Is Retargeting")
        conversionType = vendorColumn(columns, "Retargeting Conversion Type")
        blocked = vendorColumn(columns, "Blocked Reason")
        rejected = vendorColumn(columns, "Rejected Reason")
        let required = [("Event Name", name), ("Event Time", time), ("AppsFlyer ID", device), ("App ID", app)]
        let missing = required.filter { $0.1 < 0 }.map(\.0)
        if !missing.isEmpty {
            throw VendorHeaderProblem(reason: "the header lacks AppsFlyer's column\(missing.count == 1 ? "" : "s") "
                + missing.joined(separator: ", ") + " (columns are matched by AppsFlyer's names, case-sensitive)")
        }
        let fields: Set<Int> = [name, time, device, user, app]
        propertyColumns = columns.indices.filter { !fields.contains($0) }.map { ($0, Array(columns[$0].utf8)) }
        let stored: Set<Int> = fields.union([installTime, media, campaign, adset, ad, country, platform, revenue, currency,
                                            retargeting, blocked, rejected])
        return columns.indices.filter { !stored.contains($0) }.map { columns[$0] }
    }

    mutating func translate(_ row: VendorRow, into writer: inout NDJSONWriter) -> VendorRowOutcome {
        if !row.trimmed(blocked).isEmpty { return .marked("blocked by AppsFlyer (Blocked Reason)") }
        if !row.trimmed(rejected).isEmpty { return .marked("rejected by AppsFlyer (Rejected Reason)") }
        let event = row.trimmed(name)
        let at = row.trimmed(time)
        let deviceID = row.trimmed(device)
        let isRetargeting = VendorBytes.equalsIgnoringCase(row.trimmed(retargeting), "true")
        let amount = row.trimmed(revenue)
        if VendorBytes.equalsIgnoringCase(event, "install") && !isRetargeting {
            let installed = row.trimmed(installTime).isEmpty ? at : row.trimmed(installTime)
            writer.begin(kind: "installs")
            writer.prefixed("event_id", prefix: "af-i-", VendorBytes.fingerprint(deviceID, installed))
            person(row, &writer)
            writer.string("installed_at", installed)
            writer.attribution(network: row.trimmed(media), campaign: row.trimmed(campaign), adset: row.trimmed(adset),
                               creative: row.trimmed(ad), country: row.trimmed(country), platform: row.trimmed(platform))
            writer.end()
            return .row
        }
        let eventValue = row.field(value)
        if !amount.isEmpty && !VendorBytes.isZero(amount) {
            writer.begin(kind: "purchases")
            writer.prefixed("event_id", prefix: "af-p-", VendorBytes.fingerprint(deviceID, event, at, eventValue, amount))
            person(row, &writer)
            writer.string("purchased_at", at)
            writer.string("revenue", amount)
            writer.string("currency", row.trimmed(currency))
            writer.end()
            return .row
        }
        writer.begin(kind: "events")
        writer.prefixed("event_id", prefix: "af-e-", VendorBytes.fingerprint(deviceID, event, at, eventValue, amount))
        person(row, &writer)
        if VendorBytes.equalsIgnoringCase(event, "install") {
            // A retargeting conversion: a re-engagement or re-attribution, kept apart from installs.
            let type = row.trimmed(conversionType)
            writer.string("event", type.isEmpty ? Array("re-attribution".utf8) : Array(type).map { $0 >= 0x41 && $0 <= 0x5a ? $0 + 0x20 : $0 })
        } else {
            writer.string("event", event)
        }
        writer.string("occurred_at", at)
        writer.beginProperties()
        for (column, key) in propertyColumns { writer.property(key, row.trimmed(column)) }
        writer.end()
        return .row
    }

    /// `app_id`, `user_id` (Customer User ID) and `device_id` (AppsFlyer ID).
    private func person(_ row: VendorRow, _ writer: inout NDJSONWriter) {
        writer.string("app_id", row.trimmed(app))
        writer.string("user_id", row.trimmed(user))
        writer.string("device_id", row.trimmed(device))
    }
}
