/// The kinds of input file funnel ingests (docs/inputs.md, "Kinds").
///
/// Each kind has one raw table (`raw_<kind>`), a fixed list of fields, and the field that places a
/// row in time (its partition key). The field lists here are the single source of truth for the
/// generator, the validator and the loader.
public enum EventKind: String, CaseIterable, Sendable, Codable, Hashable {
    case installs
    case opens
    case retention
    case purchases
    case invites
    case adSpend = "ad_spend"
    case steps
    case ux
    /// Custom product events: a name, a time and a JSON object of properties (what a product
    /// analytics tool calls an event), for funnels and retention over any event.
    case events
    /// Dated exchange rates (USD per unit of a currency): not an event; a later row for the same
    /// (currency, date) replaces the earlier, as ad spend restates.
    case currencyRates = "currency_rates"

    /// The name used on the command line, in file names and in the `kind` NDJSON field.
    public var name: String { rawValue }

    /// The raw table the kind loads into. Fixed in code: never built from input.
    public var rawTable: String { "raw_\(rawValue)" }

    /// The table of the (app_id, event_id) pairs the kind has stored (migration 0050), which
    /// deduplicates its events with one probe however many monthly partitions its raw table has.
    /// Nil for installs, whose raw table's key still does it (`merge_installs.sql`), and ad spend,
    /// which restates rather than deduplicates. Fixed in code: never built from input.
    public var keyTable: String? {
        self == .installs || !isEvent ? nil : "raw_\(rawValue)_keys"
    }

    /// Whether rows carry an `event_id` and are deduplicated by (kind, app_id, event_id).
    /// `ad_spend` rows instead replace earlier rows with the same key (restatement).
    public var isEvent: Bool { self != .adSpend && self != .currencyRates }

    /// Whether the raw table is partitioned by month on the time field. The dated exchange rates
    /// are a small table of their own: a history of daily rates since 1999 is no reason for three
    /// hundred partitions.
    public var isPartitioned: Bool { self != .currencyRates }

    /// The field that places a row in time (and partitions its raw table).
    public var timeField: String {
        switch self {
        case .installs: "installed_at"
        case .opens: "opened_at"
        case .retention: "reported_at"
        case .purchases: "purchased_at"
        case .invites: "sent_at"
        case .adSpend, .currencyRates: "date"
        case .steps, .ux, .events: "occurred_at"
        }
    }

    /// The kind a file name announces by its first word (`installs-2024-05-01.csv.gz` is
    /// `installs`; `ad_spend_2024.csv` and `ad-spend.csv` are `ad_spend`), if any. The European
    /// Central Bank's own file names (`eurofxref-hist.csv`, `eurofxref.csv`) are `currency_rates`.
    public init?(fileName: String) {
        let base = fileName.split(separator: "/").last.map(String.init) ?? fileName
        let lowered = base.lowercased()
        if lowered.hasPrefix("eurofxref") {
            self = .currencyRates
            return
        }
        // Longest names first so "ad_spend" wins over a hypothetical "ad".
        for kind in EventKind.allCases.sorted(by: { $0.rawValue.count > $1.rawValue.count }) {
            for spelling in [kind.rawValue, kind.rawValue.replacingUnderscores(with: "-")] {
                guard lowered.hasPrefix(spelling) else { continue }
                let rest = lowered.dropFirst(spelling.count)
                if rest.isEmpty || rest.first.map({ !$0.isLetter && !$0.isNumber }) == true {
                    self = kind
                    return
                }
            }
        }
        return nil
    }
}

extension String {
    fileprivate func replacingUnderscores(with replacement: Character) -> String {
        String(map { $0 == "_" ? replacement : $0 })
    }
}
