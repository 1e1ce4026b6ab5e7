import FunnelCalendar
import FunnelCore

/// The kinds of invalid row `--dirty` plants, one reason each (what a validator must catch).
public enum Defect: String, CaseIterable, Sendable, Codable {
    case missingRequired = "missing_required"
    case badTimestamp = "bad_timestamp"
    case timestampWithoutZone = "timestamp_without_zone"
    case negativeMoney = "negative_money"
    case badCountry = "bad_country"
    case badCurrency = "bad_currency"
    case unknownEnum = "unknown_enum"
    case idTooLong = "id_too_long"
    case nonNumericCount = "non_numeric_count"
    /// CSV: a quoted field with text after its closing quote; NDJSON: a line that is not JSON.
    case malformedRow = "malformed_row"

    /// The defects that apply to a kind, each with the field it breaks.
    static func targets(for kind: EventKind) -> [(Defect, String)] {
        let time = kind.timeField
        switch kind {
        case .installs:
            return [(.missingRequired, "user_id"), (.badTimestamp, time), (.timestampWithoutZone, time),
                    (.badCountry, "country"), (.unknownEnum, "platform"), (.idTooLong, "user_id"),
                    (.malformedRow, "user_id")]
        case .opens:
            return [(.missingRequired, time), (.badTimestamp, time), (.timestampWithoutZone, time),
                    (.idTooLong, "user_id"), (.nonNumericCount, "session_seconds"), (.malformedRow, "user_id")]
        case .retention:
            return [(.missingRequired, "day"), (.badTimestamp, time), (.timestampWithoutZone, time),
                    (.idTooLong, "user_id"), (.nonNumericCount, "day"), (.malformedRow, "user_id")]
        case .purchases:
            // A negative revenue is a refund, not a defect.
            return [(.missingRequired, "revenue"), (.badTimestamp, time), (.timestampWithoutZone, time),
                    (.badCurrency, "currency"), (.idTooLong, "user_id"), (.malformedRow, "user_id")]
        case .invites:
            return [(.missingRequired, "invite_id"), (.badTimestamp, time), (.timestampWithoutZone, time),
                    (.idTooLong, "user_id"), (.malformedRow, "user_id")]
        case .adSpend:
            return [(.missingRequired, "spend"), (.badTimestamp, time), (.negativeMoney, "spend"),
                    (.badCountry, "country"), (.badCurrency, "currency"), (.idTooLong, "campaign"),
                    (.nonNumericCount, "impressions"), (.malformedRow, "network")]
        case .steps:
            return [(.missingRequired, "step"), (.badTimestamp, time), (.timestampWithoutZone, time),
                    (.idTooLong, "user_id"), (.malformedRow, "user_id")]
        case .ux:
            return [(.missingRequired, "session_id"), (.badTimestamp, time), (.timestampWithoutZone, time),
                    (.unknownEnum, "type"), (.idTooLong, "user_id"), (.malformedRow, "user_id")]
        case .events:
            return [(.missingRequired, "event"), (.badTimestamp, time), (.timestampWithoutZone, time),
                    (.idTooLong, "user_id"), (.malformedRow, "user_id")]
        case .currencyRates:
            // The generator writes no exchange rates.
            return []
        }
    }
}

/// Writes invalid copies of valid rows: one of each applicable defect early in the file, then a
/// small random share, round robin over the defects so every one is present and counted.
final class DirtyRowMaker {
    static let share = 0.002

    let kind: EventKind
    let format: GeneratorFormat
    private let targets: [(defect: Defect, column: Int)]
    private var random: SeededRandom
    private var nextTarget = 0
    private var guaranteed: Int
    private var tally: [Int]
    private var serial = 0

    init(kind: EventKind, format: GeneratorFormat, seed: UInt64) {
        self.kind = kind
        self.format = format
        targets = Defect.targets(for: kind).map { defect, field in
            (defect, kind.fieldNames.firstIndex(of: field)!)
        }
        random = SeededRandom(seed: seed, stream: 5_000 &+ UInt64(EventKind.allCases.firstIndex(of: kind)!))
        guaranteed = targets.count
        tally = Array(repeating: 0, count: targets.count)
    }

    /// Invalid rows written so far.
    var total: Int { tally.reduce(0, +) }

    /// Rows written per defect.
    var counts: [(Defect, Int)] { zip(targets, tally).map { ($0.defect, $1) } }

    /// Possibly appends one invalid row derived from `row` (the valid row just written).
    func maybeWrite(after row: UnsafeRawBufferPointer, spans: UnsafeBufferPointer<Int>, rowStart: Int,
                             timestampMs: Int64, into out: OutputFile) {
        guard guaranteed > 0 || random.chance(Self.share) else { return }
        let index = nextTarget
        let (defect, column) = targets[index]
        guard spans[column * 3 + 1] >= 0 else { return }
        nextTarget = (nextTarget + 1) % targets.count
        if guaranteed > 0 { guaranteed -= 1 }
        serial += 1
        let bytes = Array(row.bindMemory(to: UInt8.self))
        let dirty = build(defect: defect, column: column, row: bytes,
                          spans: spans.map { $0 < 0 ? $0 : $0 - rowStart }, timestampMs: timestampMs)
        dirty.withUnsafeBytes { out.append($0) }
        tally[index] += 1
    }

    private func build(defect: Defect, column: Int, row: [UInt8], spans: [Int], timestampMs: Int64) -> [UInt8] {
        let json = format == .ndjson
        if json && defect == .malformedRow {
            return Array(row.prefix(row.count / 2)) + [UInt8(ascii: "\n")]
        }
        let original = Array(row[spans[column * 3 + 1]..<spans[column * 3 + 2]])
        let bare = json && original.first == UInt8(ascii: "\"") ? Array(original.dropFirst().dropLast()) : original
        var value: String
        var quoted = true
        switch defect {
        case .missingRequired: value = ""
        case .badTimestamp: value = kind == .adSpend ? "2024-13-45" : "2024-13-45T25:61:00Z"
        case .timestampWithoutZone: value = CivilTime.isoString(ms: timestampMs)
        case .negativeMoney: value = "-" + String(decoding: bare, as: UTF8.self); quoted = false
        case .badCountry: value = "USA"
        case .badCurrency: value = "DOLLAR"
        case .unknownEnum: value = kind == .ux ? "hover" : "windows_phone"
        case .idTooLong: value = String(decoding: bare, as: UTF8.self) + String(repeating: "x", count: 130)
        case .nonNumericCount: value = "ten"
        case .malformedRow: value = "\"" + String(decoding: bare, as: UTF8.self) + "\"x"; quoted = false
        }
        var replacements: [(column: Int, bytes: [UInt8]?)] = []
        if kind.isEvent {
            replacements.append((0, quote("bad-\(serial)", json: json)))
        }
        if defect == .missingRequired && json {
            replacements.append((column, nil))
        } else {
            replacements.append((column, quoted ? quote(value, json: json) : Array(value.utf8)))
        }
        var result: [UInt8] = []
        result.reserveCapacity(row.count + 160)
        var cursor = 0
        for (col, bytes) in replacements {
            if let bytes {
                result += row[cursor..<spans[col * 3 + 1]]
                result += bytes
            } else {
                result += row[cursor..<spans[col * 3]]
            }
            cursor = spans[col * 3 + 2]
        }
        result += row[cursor...]
        return result
    }

    private func quote(_ text: String, json: Bool) -> [UInt8] {
        json ? Array("\"\(text)\"".utf8) : Array(text.utf8)
    }
}

extension CivilTime {
    /// `YYYY-MM-DDTHH:MM:SS` without a zone (what `timestamp_without_zone` rows carry).
    static func isoString(ms: Int64) -> String {
        let day = CivilTime.day(ofMs: ms)
        let seconds = Int(ms / 1000 - Int64(day) * 86_400)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return dateString(days: day) + "T" + two(seconds / 3600) + ":" + two(seconds / 60 % 60) + ":" + two(seconds % 60)
    }
}
