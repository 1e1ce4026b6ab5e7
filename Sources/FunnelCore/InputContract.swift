import Foundation

/// The input contract as text for the terminal (`funnel inputs`, `funnel help inputs`): each
/// kind's file names, columns, types and what is required, from the field lists the validator
/// uses, so the help cannot drift from what is accepted. docs/inputs.md says the same at length.
public enum InputContract {
    /// What a kind is, in a line.
    public static func summary(_ kind: EventKind) -> String {
        switch kind {
        case .installs: "an app install, with its attribution (network, campaign, adset, creative, country, platform)"
        case .opens: "an app open (a session start)"
        case .retention: "a user reported active on day N after install (an MMP's retention export)"
        case .purchases: "a purchase, with its revenue and currency"
        case .invites: "an invite a user sent"
        case .adSpend: "a day's (or an hour's) spend on a network (campaign, country): restated rows replace earlier ones"
        case .steps: "an onboarding step a user reached"
        case .ux: "UI telemetry: keyboard, rotation, errors, permissions, screen views"
        case .events: "a custom product event: a name, a time and a JSON object of properties"
        case .currencyRates: "a currency's rate in USD from a date on (or the ECB's reference-rate CSV as published)"
        }
    }

    /// What a field type accepts, in a few words.
    public static func describe(_ type: FieldType) -> String {
        switch type {
        case .identifier: "identifier (non-empty, at most 128 bytes)"
        case .text: "text (at most 1,024 bytes)"
        case .timestamp: "timestamp (RFC 3339 with a zone, or Unix epoch milliseconds)"
        case .date: "date (YYYY-MM-DD)"
        case .count: "whole number >= 0"
        case .money: "decimal amount >= 0"
        case .signedMoney: "decimal amount (negative for a refund)"
        case .rate: "decimal > 0, at most 10 decimal places"
        case .real: "decimal number"
        case .boolean: "true or false (1 or 0)"
        case .country: "ISO 3166-1 alpha-2 country code (DE)"
        case .currency: "ISO 4217 currency code (USD; default USD)"
        case .oneOf(let values): "one of: " + values.joined(separator: ", ")
        case .properties: "JSON object (in CSV, its JSON text)"
        }
    }

    /// What one field accepts: its type's description, or a field's own rule where it has one.
    static func describe(_ field: FieldSpec, of kind: EventKind) -> String {
        if kind.namesPeople && field.name == EventKind.userField {
            return "identifier: the app's user id; required unless device_id is given, and may not begin with \""
                + EventKind.devicePersonPrefix + "\""
        }
        if kind.namesPeople && field.name == "device_id" {
            return "identifier: a device id (IDFA, IDFV, GAID, appsflyer_id, adid, an anonymous id); a row with both ids "
                + "ties the device to the user, a row with this alone counts for its device until then"
        }
        if kind == .adSpend && field.name == "hour" {
            return "hour of the day, 0-23, in the reporting time zone like date; a day's hour rows add up to its "
                + "spend, and replace a row without an hour for the same date, network, campaign and country"
        }
        if kind == .installs && field.name == "adset" {
            return "identifier: the ad set (ad group) of the campaign the install is attributed to"
        }
        if kind == .installs && field.name == "creative" {
            return "identifier: the ad or creative the install is attributed to"
        }
        if kind == .currencyRates && field.name == "date" {
            return "date (YYYY-MM-DD): the rate holds from this date until the currency's next dated rate"
        }
        if kind == .currencyRates && field.name == "usd_per_unit" {
            return "US dollars per unit of the currency: decimal > 0, at most 10 decimal places"
        }
        return describe(field.type)
    }

    /// Every kind in a short list: name, what it is, its required columns.
    public static var overview: String {
        var lines = [
            "Input kinds. A file's kind comes from the first word of its name (installs-2024-05-01.csv.gz),",
            "or --kind. Files are CSV with a header row, or NDJSON (one JSON object per line), optionally",
            "gzip-compressed. Columns may come in any order; unknown columns are ignored.",
            "",
        ]
        let width = EventKind.allCases.map(\.name.count).max() ?? 0
        for kind in EventKind.allCases {
            let required = kind.fields.compactMap { field -> String? in
                if kind.namesPeople && field.name == EventKind.userField { return "\(field.name) or device_id" }
                return field.isRequired ? field.name : nil
            }.joined(separator: ", ")
            lines.append("  " + kind.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + summary(kind))
            lines.append("  " + String(repeating: " ", count: width) + "  required: " + required)
        }
        lines.append("")
        lines.append("'funnel inputs KIND' lists every column of a kind; docs/inputs.md has examples and the rules.")
        return lines.joined(separator: "\n")
    }

    /// Every column of one kind, with its type and whether it is required.
    public static func columns(_ kind: EventKind) -> String {
        var lines = ["\(kind.name): \(summary(kind))", "",
                     "File names start with \"\(kind.name)\"; rows are placed in time by \(kind.timeField).", ""]
        let width = kind.fields.map(\.name.count).max() ?? 0
        for field in kind.fields {
            lines.append("  " + field.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                + (field.isRequired || (kind.namesPeople && field.name == EventKind.userField) ? "required  " : "optional  ")
                + describe(field, of: kind))
        }
        lines.append("")
        lines.append("CSV header: " + kind.fieldNames.joined(separator: ","))
        if kind == .currencyRates {
            lines.append("")
            lines.append("Also read as published: the European Central Bank's reference-rate CSV (eurofxref-hist.csv,")
            lines.append("eurofxref.csv), told by its header Date,USD,JPY,...: each currency's units per euro, turned into")
            lines.append("USD per unit with the same date's USD rate. A currency without a rate counts in no metric;")
            lines.append("reports and funnel status name it.")
        }
        return lines.joined(separator: "\n")
    }
}
