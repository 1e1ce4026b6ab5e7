import Foundation

/// Adjust raw data: CSV uploads and exports whose columns are Adjust placeholders, named with or
/// without their braces (`{adid}` or `adid`), and raw-data callbacks collected into such a CSV
/// (docs/imports.md, "Adjust"):
///
/// - `activity_kind` `install`: an install (`installed_at`, else `created_at`; network from
///   `network_name`, `Organic` or `is_organic` 1 being `organic`; `campaign_name`,
///   `adgroup_name` as adset, `creative_name` as creative, `country`, `os_name`);
/// - `session`: an open (`time_spent` as its seconds);
/// - `event` with revenue (`revenue_float`, else `revenue` in cents) not zero: a purchase in
///   `currency`;
/// - every other activity (`event`, `reattribution`, `reinstall`, `uninstall`, ...): an event
///   named by `event_name` (else `event_token`, else the activity), with the other non-empty
///   columns as properties;
/// - `environment` `sandbox` rows are test rows; `rejected_install`, `rejected_reattribution`
///   and rows with a `rejection_reason` are rejected by Adjust's fraud prevention; clicks and
///   impressions are no person's activity: each counted and named, not loaded.
///
/// Times (`created_at`, `installed_at`) are Unix seconds, UTC by definition. The person is the
/// `user_id` column (a callback parameter the app sends), else the device `adid`.
struct AdjustTranslator: VendorTranslator {
    private var kindColumn = -1, created = -1, installed = -1, device = -1, user = -1, app = -1
    private var network = -1, organic = -1, campaign = -1, adgroup = -1, creative = -1, country = -1, os = -1
    private var revenueFloat = -1, revenueCents = -1, currency = -1, eventName = -1, eventToken = -1
    private var environment = -1, rejection = -1, timeSpent = -1
    private var propertyColumns: [(column: Int, name: [UInt8])] = []

    mutating func prepare(columns raw: [String]) throws(VendorHeaderProblem) -> [String] {
        let columns = raw.map { name -> String in
            var text = Substring(name.trimmingCharacters(in: [" ", "\t"]))
            if text.hasPrefix("{") && text.hasSuffix("}") && text.count >= 2 { text = text.dropFirst().dropLast() }
            return String(text)
        }
        kindColumn = vendorColumn(columns, "activity_kind")
        created = vendorColumn(columns, "created_at")
        installed = vendorColumn(columns, "installed_at")
        device = vendorColumn(columns, "adid")
        user = vendorColumn(columns, "user_id")
        app = vendorColumn(columns, "app_id", "app_token")
        network = vendorColumn(columns, "network_name")
        organic = vendorColumn(columns, "is_organic")
        campaign = vendorColumn(columns, "campaign_name")
        adgroup = vendorColumn(columns, "adgroup_name")
        creative = vendorColumn(columns, "creative_name")
        country = vendorColumn(columns, "country")
        os = vendorColumn(columns, "os_name")
        revenueFloat = vendorColumn(columns, "revenue_float")
        revenueCents = vendorColumn(columns, "revenue")
        currency = vendorColumn(columns, "currency")
        eventName = vendorColumn(columns, "event_name")
        eventToken = vendorColumn(columns, "event_token")
        environment = vendorColumn(columns, "environment")
        rejection = vendorColumn(columns, "rejection_reason")
        timeSpent = vendorColumn(columns, "time_spent")
        let required = [("activity_kind", kindColumn), ("created_at", created), ("adid", device), ("app_id (or app_token)", app)]
        let missing = required.filter { $0.1 < 0 }.map(\.0)
        if !missing.isEmpty {
            throw VendorHeaderProblem(reason: "the header lacks Adjust's placeholder\(missing.count == 1 ? "" : "s") "
                + missing.joined(separator: ", ") + " (as {name} or name)")
        }
        let fields: Set<Int> = [kindColumn, created, device, user, app]
        propertyColumns = columns.indices.filter { !fields.contains($0) }.map { ($0, Array(columns[$0].utf8)) }
        let stored: Set<Int> = fields.union([installed, network, organic, campaign, adgroup, creative, country, os, revenueFloat,
                                            revenueCents, currency, eventName, eventToken, environment, rejection, timeSpent])
        return columns.indices.filter { !stored.contains($0) }.map { raw[$0] }
    }

    mutating func translate(_ row: VendorRow, into writer: inout NDJSONWriter) -> VendorRowOutcome {
        let activity = row.trimmed(kindColumn)
        if VendorBytes.equalsIgnoringCase(row.trimmed(environment), "sandbox") { return .marked("test rows (environment sandbox)") }
        if VendorBytes.equalsIgnoringCase(activity, "rejected_install") || VendorBytes.equalsIgnoringCase(activity, "rejected_reattribution")
            || !row.trimmed(rejection).isEmpty {
            return .marked("rejected by Adjust's fraud prevention (rejected_install, rejected_reattribution, rejection_reason)")
        }
        if VendorBytes.equalsIgnoringCase(activity, "click") || VendorBytes.equalsIgnoringCase(activity, "impression") {
            return .marked("clicks and impressions (no person's activity)")
        }
        let deviceID = row.trimmed(device)
        let at = Self.millis(row.trimmed(created))
        if VendorBytes.equalsIgnoringCase(activity, "install") {
            let installedAt = row.trimmed(installed).isEmpty ? at : Self.millis(row.trimmed(installed))
            writer.begin(kind: "installs")
            writer.prefixed("event_id", prefix: "adj-i-", installedAt.withUnsafeBufferPointer { VendorBytes.fingerprint(deviceID, $0) })
            person(row, &writer)
            writer.string("installed_at", installedAt)
            writer.attribution(network: row.trimmed(network), organic: VendorBytes.equalsIgnoringCase(row.trimmed(organic), "1"),
                               campaign: row.trimmed(campaign), adset: row.trimmed(adgroup), creative: row.trimmed(creative),
                               country: row.trimmed(country), platform: row.trimmed(os))
            writer.end()
            return .row
        }
        if VendorBytes.equalsIgnoringCase(activity, "session") {
            writer.begin(kind: "opens")
            writer.prefixed("event_id", prefix: "adj-s-", at.withUnsafeBufferPointer { VendorBytes.fingerprint(deviceID, $0) })
            person(row, &writer)
            writer.string("opened_at", at)
            let spent = row.trimmed(timeSpent)
            if !spent.isEmpty && spent.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { writer.string("session_seconds", spent) }
            writer.end()
            return .row
        }
        let name = !row.trimmed(eventName).isEmpty ? row.trimmed(eventName) : !row.trimmed(eventToken).isEmpty ? row.trimmed(eventToken) : activity
        let amount = revenue(row)
        if !amount.isEmpty, amount.withUnsafeBufferPointer({ !VendorBytes.isZero($0) }) {
            writer.begin(kind: "purchases")
            writer.prefixed("event_id", prefix: "adj-p-", at.withUnsafeBufferPointer { time in
                amount.withUnsafeBufferPointer { VendorBytes.fingerprint(deviceID, name, time, $0) }
            })
            person(row, &writer)
            writer.string("purchased_at", at)
            writer.string("revenue", amount)
            writer.string("currency", row.trimmed(currency))
            writer.end()
            return .row
        }
        writer.begin(kind: "events")
        writer.prefixed("event_id", prefix: "adj-e-", at.withUnsafeBufferPointer { VendorBytes.fingerprint(deviceID, activity, name, $0) })
        person(row, &writer)
        writer.string("event", name)
        writer.string("occurred_at", at)
        writer.beginProperties()
        for (column, key) in propertyColumns { writer.property(key, row.trimmed(column)) }
        writer.end()
        return .row
    }

    /// `app_id`, `user_id` and `device_id` (adid).
    private func person(_ row: VendorRow, _ writer: inout NDJSONWriter) {
        writer.string("app_id", row.trimmed(app))
        writer.string("user_id", row.trimmed(user))
        writer.string("device_id", row.trimmed(device))
    }

    /// The revenue in whole currency units: `revenue_float` as written, else `revenue` (cents)
    /// with the decimal point put in; empty when neither is given.
    private func revenue(_ row: VendorRow) -> [UInt8] {
        let whole = row.trimmed(revenueFloat)
        if !whole.isEmpty { return Array(whole) }
        let cents = row.trimmed(revenueCents)
        guard !cents.isEmpty else { return [] }
        let negative = cents.first == 0x2d
        let digits = Array(negative ? cents.dropFirst() : cents[...])
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return Array(cents) }
        var padded = digits
        while padded.count < 3 { padded.insert(0x30, at: 0) }
        return (negative ? [0x2d] : []) + padded.dropLast(2) + [0x2e] + padded.suffix(2)
    }

    /// Unix seconds as the epoch milliseconds funnel reads (`1714557600` -> `1714557600000`);
    /// anything else as written, for the validator to judge.
    static func millis(_ seconds: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard !seconds.isEmpty, seconds.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return Array(seconds) }
        return Array(seconds) + [0x30, 0x30, 0x30]
    }
}
