/// What a field of an input row holds, and so how it is validated and stored.
public enum FieldType: Sendable, Hashable {
    /// An identifier: non-empty UTF-8, at most 128 bytes.
    case identifier
    /// Free text: UTF-8, at most 1,024 bytes.
    case text
    /// RFC 3339 with a zone, or Unix epoch milliseconds.
    case timestamp
    /// A calendar date, `YYYY-MM-DD`.
    case date
    /// A whole number >= 0.
    case count
    /// A decimal amount of money >= 0.
    case money
    /// A decimal amount of money that may be negative: a purchase's `revenue`, negative for a
    /// refund (the amount refunded).
    case signedMoney
    /// An exchange rate: a decimal > 0 with at most 10 decimal places.
    case rate
    /// A finite decimal number (UI geometry in window points).
    case real
    /// `true` or `false` (also `1`/`0`).
    case boolean
    /// ISO 3166-1 alpha-2 country code, upper case.
    case country
    /// ISO 4217 currency code, upper case.
    case currency
    /// One of a closed set of lower-case values.
    case oneOf([String])
    /// A JSON object (event properties): in NDJSON an object value, in CSV its JSON text; at most
    /// 64 KiB, stored as `jsonb`.
    case properties
}

/// One field of an input kind: its name (the CSV header / JSON key), type and whether a row
/// without it is rejected.
public struct FieldSpec: Sendable, Hashable {
    public let name: String
    public let type: FieldType
    public let isRequired: Bool

    public init(_ name: String, _ type: FieldType, required: Bool) {
        self.name = name
        self.type = type
        self.isRequired = required
    }
}

/// Closed value sets shared by the generator, the validator and the friction detector.
public enum FieldValues {
    public static let platforms = ["ios", "android"]
    public static let uxTypes = [
        "keyboard", "rotation", "network_error", "permission_denied", "validation_error",
        "multi_touch", "screen_view",
    ]
    public static let keyboardPhases = [
        "will_show", "did_show", "will_hide", "did_hide", "will_change_frame", "did_change_frame",
    ]
    public static let rotationPhases = ["will", "did"]
    public static let orientations = [
        "portrait", "portrait_upside_down", "landscape", "landscape_left", "landscape_right",
    ]
}

extension EventKind {
    /// The fields of this kind, in the column order of its raw table: every kind that names a
    /// person ends with `device_id` (migration 0135; docs/inputs.md, "Users, devices and
    /// identity").
    public var fields: [FieldSpec] {
        namesPeople ? ownFields + [Self.deviceField] : ownFields
    }

    /// Whether rows of this kind belong to a person, named by `user_id`, or by `device_id` alone:
    /// a row needs at least one of the two (the validator rejects a row with neither).
    public var namesPeople: Bool { ownFields.contains { $0.name == Self.userField } }

    /// The field naming the app's own user.
    public static let userField = "user_id"

    /// The person id a row given a device id alone is stored under: this prefix and the device
    /// id. A user id may not begin with it, so a device never takes a user's history.
    public static let devicePersonPrefix = "device:"

    private static let deviceField = FieldSpec("device_id", .identifier, required: false)

    /// The fields of this kind before `device_id`.
    private var ownFields: [FieldSpec] {
        switch self {
        case .installs:
            Self.eventHeader + [
                FieldSpec("installed_at", .timestamp, required: true),
                FieldSpec("network", .identifier, required: true),
                FieldSpec("platform", .oneOf(FieldValues.platforms), required: false),
                FieldSpec("country", .country, required: false),
                FieldSpec("campaign", .identifier, required: false),
                FieldSpec("referrer_user_id", .identifier, required: false),
                FieldSpec("invite_id", .identifier, required: false),
                FieldSpec("adset", .identifier, required: false),
                FieldSpec("creative", .identifier, required: false),
            ]
        case .opens:
            Self.eventHeader + [
                FieldSpec("opened_at", .timestamp, required: true),
                FieldSpec("session_seconds", .count, required: false),
            ]
        case .retention:
            Self.eventHeader + [
                FieldSpec("day", .count, required: true),
                FieldSpec("reported_at", .timestamp, required: true),
            ]
        case .purchases:
            Self.eventHeader + [
                FieldSpec("purchased_at", .timestamp, required: true),
                FieldSpec("revenue", .signedMoney, required: true),
                FieldSpec("currency", .currency, required: false),
                FieldSpec("product_id", .identifier, required: false),
            ]
        case .invites:
            Self.eventHeader + [
                FieldSpec("invite_id", .identifier, required: true),
                FieldSpec("sent_at", .timestamp, required: true),
                FieldSpec("channel", .identifier, required: false),
            ]
        case .adSpend:
            [
                FieldSpec("app_id", .identifier, required: true),
                FieldSpec("date", .date, required: true),
                FieldSpec("network", .identifier, required: true),
                FieldSpec("spend", .money, required: true),
                FieldSpec("campaign", .identifier, required: false),
                FieldSpec("country", .country, required: false),
                FieldSpec("currency", .currency, required: false),
                FieldSpec("impressions", .count, required: false),
                FieldSpec("clicks", .count, required: false),
                FieldSpec("hour", .count, required: false),
                FieldSpec("adset", .identifier, required: false),
                FieldSpec("creative", .identifier, required: false),
            ]
        case .steps:
            Self.eventHeader + [
                FieldSpec("occurred_at", .timestamp, required: true),
                FieldSpec("step", .identifier, required: true),
                FieldSpec("screen", .identifier, required: false),
            ]
        case .ux:
            Self.eventHeader + [
                FieldSpec("session_id", .identifier, required: true),
                FieldSpec("occurred_at", .timestamp, required: true),
                FieldSpec("screen", .identifier, required: true),
                FieldSpec("type", .oneOf(FieldValues.uxTypes), required: true),
                FieldSpec("phase", .oneOf(FieldValues.keyboardPhases + FieldValues.rotationPhases), required: false),
                FieldSpec("orientation", .oneOf(FieldValues.orientations), required: false),
                FieldSpec("feedback_shown", .boolean, required: false),
                FieldSpec("permission", .identifier, required: false),
                FieldSpec("guidance_shown", .boolean, required: false),
                FieldSpec("field", .identifier, required: false),
                FieldSpec("message_shown", .boolean, required: false),
                FieldSpec("bad_state", .boolean, required: false),
                FieldSpec("input_mode", .identifier, required: false),
            ] + Self.geometry
        case .events:
            Self.eventHeader + [
                FieldSpec("event", .identifier, required: true),
                FieldSpec("occurred_at", .timestamp, required: true),
                FieldSpec("properties", .properties, required: false),
            ]
        case .currencyRates:
            [
                FieldSpec("date", .date, required: true),
                FieldSpec("currency", .currency, required: true),
                FieldSpec("usd_per_unit", .rate, required: true),
            ]
        }
    }

    /// Names of the fields, in table column order.
    public var fieldNames: [String] { fields.map(\.name) }

    private static let eventHeader: [FieldSpec] = [
        FieldSpec("event_id", .identifier, required: true),
        FieldSpec("app_id", .identifier, required: true),
        // Required unless the row has a device_id (RowEncoder), so not marked required.
        FieldSpec(userField, .identifier, required: false),
    ]

    private static let geometry: [FieldSpec] = [
        "kb_x", "kb_y", "kb_w", "kb_h",
        "focus_x", "focus_y", "focus_w", "focus_h",
        "action_x", "action_y", "action_w", "action_h",
        "caret_y", "screen_w", "screen_h",
    ].map { FieldSpec($0, .real, required: false) }
}
