import FunnelCalendar
import FunnelCore

/// The European Central Bank's reference-rate CSV (`eurofxref-hist.csv`, `eurofxref.csv`) read as
/// `currency_rates`: a `Date` column, then one column per currency holding its units per euro on
/// that date (`N/A` or empty where there is none), a trailing comma after the last. Told by its
/// header: a `Date` column and no `date` one. Each line gives one rate per currency, in US dollars
/// per unit: the date's USD column over the currency's (the euro's is the USD column itself).
struct ECBLayout {
    /// The columns of the date and of the US dollar's units per euro.
    let dateColumn: Int
    let usdColumn: Int
    /// The currency columns other than USD that funnel accepts, with their upper-case codes;
    /// other columns (empty names, withdrawn currencies such as CYP) are ignored.
    let currencies: [(column: Int, code: [UInt8])]

    /// The layout of an ECB header (column names trimmed of spaces), nil when the header is not
    /// one: `missingUSD` is set when it is, but lacks the USD column every conversion needs.
    static func detect(_ names: [String]) -> (layout: ECBLayout?, missingUSD: Bool) {
        guard let date = names.firstIndex(of: "Date"), !names.contains("date") else { return (nil, false) }
        guard let usd = names.firstIndex(of: "USD") else { return (nil, true) }
        var currencies: [(Int, [UInt8])] = []
        for (column, name) in names.enumerated() where column != date && column != usd {
            let code = Array(name.utf8)
            guard code.count == 3, code.allSatisfy({ $0 >= 0x41 && $0 <= 0x5a }) else { continue }
            let known = code.withUnsafeBufferPointer { ISOCodes.index($0, letters: 3).map { ISOCodes.currencies[$0] } ?? false }
            if known { currencies.append((column, code)) }
        }
        return (ECBLayout(dateColumn: date, usdColumn: usd, currencies: currencies), false)
    }

    static let months = ["january", "february", "march", "april", "may", "june", "july", "august",
                         "september", "october", "november", "december"]

    /// The daily file's `1 December 2026` (a day, an English month name or its
    /// first three letters, a year) as a calendar date, or nil.
    static func parseLongDate(_ bytes: UnsafeBufferPointer<UInt8>) -> (year: Int, month: Int, day: Int)? {
        let words = String(decoding: bytes, as: UTF8.self).split(separator: " ", omittingEmptySubsequences: true)
        guard words.count == 3, let day = Int(words[0]), let year = Int(words[2]), words[2].count == 4 else { return nil }
        let name = words[1].lowercased()
        guard let month = months.firstIndex(where: { $0 == name || (name.count == 3 && $0.hasPrefix(name)) }) else {
            return nil
        }
        guard day >= 1, day <= CivilTime.daysInMonth(year, month + 1) else { return nil }
        return (year, month + 1, day)
    }
}

extension InputFileReader {
    /// Why an ECB record cannot load, or nil once its rates are encoded into `sink`. A line loads
    /// whole or not at all: one bad value rejects it, naming the currency's column.
    func ecbFailure(_ record: RecordScanner.Record, layout: ECBLayout, into sink: inout RowSink) -> String? {
        if let reason = scannerReason(record) { return reason }
        let columns = columnNames.count
        csv.split(record.bytes, maxFields: columns)
        if let problem = csv.problem {
            return "\(columnName(problem.field)): \(Self.describe(problem.kind))"
        }
        if csv.fieldCount != columns {
            let found = csv.fieldCount > columns ? "more than \(columns)" : "\(csv.fieldCount)"
            return "record has \(found) fields, the header has \(columns)"
        }
        return csv.withFieldBytes(of: record.bytes) { store in
            encodeECB(store: store, layout: layout, into: &sink)
        }
    }

    private func trimmedField(_ column: Int, _ store: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var lo = Int(csv.starts[column])
        var hi = lo + Int(csv.counts[column])
        while lo < hi && (store[lo] == 0x20 || store[lo] == 0x09) { lo += 1 }
        while hi > lo && (store[hi - 1] == 0x20 || store[hi - 1] == 0x09) { hi -= 1 }
        return UnsafeBufferPointer(rebasing: store[lo..<hi])
    }

    private static func isNoRate(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.isEmpty || bytes.elementsEqual("N/A".utf8)
    }

    private func encodeECB(store: UnsafeBufferPointer<UInt8>, layout: ECBLayout, into sink: inout RowSink) -> String? {
        let ordinal = EventKind.currencyRates.ordinal
        let plan = encoder.plans[ordinal]
        let dateBytes = trimmedField(layout.dateColumn, store)
        let shownDate = "\"\(UTF8Check.displayText(dateBytes, limit: 64))\""
        var days: Int64
        switch encoder.timestamps.parseDate(dateBytes) {
        case .success(let parsed): days = parsed
        case .failure(.notDate):
            guard let civil = ECBLayout.parseLongDate(dateBytes) else {
                if dateBytes.isEmpty { return "missing required field Date" }
                return "Date: \(shownDate) is not a date (use YYYY-MM-DD, or the ECB's 1 December 2026)"
            }
            days = Int64(CivilTime.days(year: civil.year, month: civil.month, day: civil.day))
            if days * 86_400 * 1_000_000 < CivilTime.earliestMicros {
                return FieldFailure.tooEarly.reason(field: FieldSpec("Date", .date, required: true), value: dateBytes)
            }
            if days * 86_400 * 1_000_000 > encoder.timestamps.latestMicros {
                return FieldFailure.tooLate.reason(field: FieldSpec("Date", .date, required: true), value: dateBytes)
            }
        case .failure(let failure):
            return failure.reason(field: FieldSpec("Date", .date, required: true), value: dateBytes)
        }
        let rateSpec = plan.specs[2]
        let usdBytes = trimmedField(layout.usdColumn, store)
        if Self.isNoRate(usdBytes) {
            return "USD: no rate on this date, so no currency of it can be converted to US dollars"
        }
        let usdPerEuro: UInt64
        switch NumberParsing.rate(usdBytes) {
        case .success(let units): usdPerEuro = units
        case .failure(let failure): return failure.reason(field: FieldSpec("USD", rateSpec.type, required: true), value: usdBytes)
        }
        var rates: [(code: [UInt8], units: UInt64)] = [(Array("EUR".utf8), usdPerEuro)]
        for (column, code) in layout.currencies {
            let bytes = trimmedField(column, store)
            if Self.isNoRate(bytes) { continue }
            let name = String(decoding: code, as: UTF8.self)
            switch NumberParsing.rate(bytes) {
            case .success(let unitsPerEuro):
                guard let usd = NumberParsing.usdPerUnit(usdPerEuro: usdPerEuro, unitsPerEuro: unitsPerEuro) else {
                    return "\(name): \"\(UTF8Check.displayText(bytes, limit: 64))\" gives a US dollar rate outside "
                        + "0.0000000001 to 999999999.9999999999"
                }
                if code == rates[0].code { rates[0].units = usd } else { rates.append((code, usd)) }
            case .failure(let failure):
                return failure.reason(field: FieldSpec(name, rateSpec.type, required: true), value: bytes)
            }
        }
        for rate in rates {
            TimestampWriter.appendDate(days: days, to: &sink.buffers[ordinal])
            sink.buffers[ordinal].append(0x09)
            sink.buffers[ordinal].append(contentsOf: rate.code)
            sink.buffers[ordinal].append(0x09)
            NumberParsing.appendRate(rate.units, to: &sink.buffers[ordinal])
            sink.buffers[ordinal].append(0x0a)
            sink.counts[ordinal] += 1
            sink.include(days * 86_400 * 1_000_000, kind: ordinal)
        }
        return nil
    }
}
