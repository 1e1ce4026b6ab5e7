import FunnelCore

/// Where a field's value came from and what JSON type it had (CSV fields are all strings).
enum ValueTag: UInt8 {
    case absent
    case string
    case number
    case trueValue
    case falseValue
    /// A nested JSON object or array, kept as its text (already checked by ``JSONText``).
    case json
}

/// One field value of a row being read: its bytes lie at `start..<start+count` of the reader's
/// field store.
struct FieldValue {
    var tag: ValueTag = .absent
    var start: Int32 = 0
    var count: Int32 = 0
}

/// A field type with its checks resolved once per kind rather than once per row.
enum CompiledType {
    case identifier
    case text
    case timestamp
    case date
    case count(limit: Int64)
    case money
    case signedMoney
    case rate
    case real
    case boolean
    case country
    case currency
    case oneOf([[UInt8]])
    case properties
}

extension CompiledType {
    /// Whether the field holds event properties (the only place a nested JSON value may go).
    var isProperties: Bool {
        if case .properties = self { true } else { false }
    }
}

/// Everything the encoder needs about one kind, precomputed from its `FieldSpec`s.
struct KindPlan {
    let kind: EventKind
    let specs: [FieldSpec]
    let types: [CompiledType]
    /// What a COPY line holds for an absent optional field: `\N`, or the column's default where
    /// the raw table has a NOT NULL column with a default (ad_spend campaign/country '',
    /// currency 'USD').
    let absent: [[UInt8]]
    /// The index of the field that places the row in time.
    let timeField: Int
    /// The index of `app_id` (every kind has one), read first where apps have zones of their own.
    let appIDField: Int?
    /// ux only: indexes of `type` and `phase`, checked together.
    let uxType: Int?
    let uxPhase: Int?
    /// Kinds that name people: indexes of `user_id` and `device_id` (a row needs one of the two;
    /// one with a device id alone is stored under the device's person id).
    let userField: Int?
    let deviceField: Int?
    /// Name lookup for CSV headers and JSON keys.
    let lookup: FieldLookup

    init(_ kind: EventKind) {
        self.kind = kind
        specs = kind.fields
        types = specs.map { spec in
            switch spec.type {
            case .identifier: .identifier
            case .text: .text
            case .timestamp: .timestamp
            case .date: .date
            case .count: .count(limit: Self.countLimit(spec.name))
            case .money: .money
            case .signedMoney: .signedMoney
            case .rate: .rate
            case .real: .real
            case .boolean: .boolean
            case .country: .country
            case .currency: .currency
            case .oneOf(let values): .oneOf(values.map { Array($0.lowercased().utf8) })
            case .properties: .properties
            }
        }
        absent = specs.map { spec in
            switch (kind, spec.name) {
            case (.adSpend, "campaign"), (.adSpend, "country"), (.adSpend, "adset"), (.adSpend, "creative"): []
            case (_, "currency"): Array("USD".utf8)
            default: Array("\\N".utf8)
            }
        }
        timeField = specs.firstIndex { $0.name == kind.timeField } ?? 0
        appIDField = specs.firstIndex { $0.name == "app_id" }
        uxType = kind == .ux ? specs.firstIndex { $0.name == "type" } : nil
        uxPhase = kind == .ux ? specs.firstIndex { $0.name == "phase" } : nil
        userField = kind.namesPeople ? specs.firstIndex { $0.name == EventKind.userField } : nil
        deviceField = kind.namesPeople ? specs.firstIndex { $0.name == "device_id" } : nil
        lookup = FieldLookup(specs.map(\.name))
    }

    /// Sanity limits of count fields: `hour` of ad_spend at most 23 (an hour of the day, 0-23);
    /// `day` of retention at most 10,000; fields stored in an
    /// `integer` column at most 2^31-1; the rest (bigint) at most 10^15.
    static func countLimit(_ name: String) -> Int64 {
        switch name {
        case "hour": 23
        case "day": 10_000
        case "session_seconds": Int64(Int32.max)
        default: 1_000_000_000_000_000
        }
    }

    /// Plans for every kind, indexed by ``EventKind/ordinal``.
    static let all: [KindPlan] = EventKind.allCases.map(KindPlan.init)
}

extension EventKind {
    /// Position in `allCases`: an array index for per-kind state on the hot path.
    var ordinal: Int {
        switch self {
        case .installs: 0
        case .opens: 1
        case .retention: 2
        case .purchases: 3
        case .invites: 4
        case .adSpend: 5
        case .steps: 6
        case .ux: 7
        case .events: 8
        case .currencyRates: 9
        }
    }
}

/// A small open-addressing table from field names (as bytes) to their index.
struct FieldLookup {
    private let names: [[UInt8]]
    private let slots: [Int16]
    private let mask: Int

    init(_ fieldNames: [String]) {
        names = fieldNames.map { Array($0.utf8) }
        var size = 16
        while size < names.count * 4 { size *= 2 }
        mask = size - 1
        var table = [Int16](repeating: -1, count: size)
        for (index, name) in names.enumerated() {
            var slot = name.withUnsafeBufferPointer { Self.hash($0) } & (size - 1)
            while table[slot] >= 0 { slot = (slot + 1) & (size - 1) }
            table[slot] = Int16(index)
        }
        slots = table
    }

    @inline(__always)
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }

    /// The index of the field named `bytes`, if any (names are case-sensitive).
    func index(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var slot = Self.hash(bytes) & mask
        while true {
            let candidate = slots[slot]
            if candidate < 0 { return nil }
            let name = names[Int(candidate)]
            if name.count == bytes.count && name.withUnsafeBufferPointer({ $0.elementsEqual(bytes) }) {
                return Int(candidate)
            }
            slot = (slot + 1) & mask
        }
    }
}
