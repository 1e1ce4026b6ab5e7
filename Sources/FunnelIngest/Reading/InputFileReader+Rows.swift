import FunnelCore
import Foundation

extension InputFileReader {
    func reject(_ record: RecordScanner.Record, kind: EventKind?, reason: String, into sink: inout RowSink) {
        let raw = UTF8Check.displayText(record.bytes, limit: options.maxRawTextBytes, ellipsis: false)
        sink.rejects.append(RejectedRow(line: record.line, kind: kind, raw: raw, reason: reason))
    }

    /// A rejection reason for a record the scanner could not cut normally, if it is one.
    func scannerReason(_ record: RecordScanner.Record) -> String? {
        switch record.status {
        case .complete: nil
        case .tooLong: "record longer than \(Self.byteSize(options.maxRecordBytes))"
        case .unclosedQuote: nil  // CSV only: the splitter names the column
        }
    }

    /// What a quoting problem means, and how to write the field instead.
    static func describe(_ problem: CSVSplitter.Problem) -> String {
        switch problem {
        case .unclosedQuote:
            "quoted field not closed on this line (the line is rejected and reading resumes on the next)"
        case .textAfterClosingQuote:
            "text after the closing quote (put the whole field in quotes and double any quote inside it)"
        case .quoteInUnquotedField:
            "a quote inside an unquoted field (put the whole field in quotes and double the quote)"
        }
    }

    /// The field a column feeds, else its header name and position, for a reason about it.
    func columnName(_ column: Int) -> String {
        if ecb != nil, column < columnNames.count {
            return columnNames[column].trimmingCharacters(in: [" ", "\t"])
        }
        if column < columnMap.count, columnMap[column] >= 0, let kind {
            return encoder.plans[kind.ordinal].specs[columnMap[column]].name
        }
        if column < columnNames.count { return "column \(column + 1) (\(columnNames[column]))" }
        return "column \(column + 1)"
    }

    static func byteSize(_ bytes: Int) -> String {
        if bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}

extension InputFileReader {
    /// Loads or rejects one CSV record. A record spanning several lines (a quoted field with a
    /// line break) loads only if it is valid whole; otherwise its first line alone is rejected
    /// and the scanner resumes on its second line, so an unclosed quote costs one line.
    func processCSV(_ record: RecordScanner.Record, into sink: inout RowSink) {
        guard let kind else { return }
        let failure = { (record: RecordScanner.Record, sink: inout RowSink) -> String? in
            if let ecb = self.ecb { return self.ecbFailure(record, layout: ecb, into: &sink) }
            return self.csvFailure(record, kind: kind, into: &sink)
        }
        guard let reason = failure(record, &sink) else {
            continuationLines += record.lines - 1
            return
        }
        guard record.lines > 1 else {
            reject(record, kind: kind, reason: reason, into: &sink)
            return
        }
        var firstLine = record
        var length = record.bytes.firstIndex(of: 0x0a) ?? record.bytes.count
        if length > 0 && record.bytes[length - 1] == 0x0d { length -= 1 }
        firstLine.bytes = UnsafeBufferPointer(rebasing: record.bytes[0..<length])
        firstLine.lines = 1
        firstLine.status = .unclosedQuote
        let lineReason = failure(firstLine, &sink) ?? reason
        reject(firstLine, kind: kind, reason: lineReason, into: &sink)
        scanner.resumeAfterFirstLine()
    }

    /// Why a CSV record cannot load, or nil once its row is encoded into `sink`.
    private func csvFailure(_ record: RecordScanner.Record, kind: EventKind, into sink: inout RowSink) -> String? {
        if let reason = scannerReason(record) { return reason }
        let columns = columnMap.count
        csv.split(record.bytes, maxFields: columns)
        if let problem = csv.problem {
            return "\(columnName(problem.field)): \(Self.describe(problem.kind))"
        }
        if csv.fieldCount != columns {
            let found = csv.fieldCount > columns ? "more than \(columns)" : "\(csv.fieldCount)"
            return "record has \(found) fields, the header has \(columns)"
        }
        let plan = encoder.plans[kind.ordinal]
        for index in 0..<plan.specs.count { values[index] = FieldValue() }
        for column in 0..<columns {
            let field = columnMap[column]
            if field >= 0 {
                values[field] = FieldValue(tag: .string, start: csv.starts[column], count: csv.counts[column])
            }
        }
        return csv.withFieldBytes(of: record.bytes) { store in encode(kind: kind, store: store, into: &sink) }
    }

    func processJSON(_ record: RecordScanner.Record, into sink: inout RowSink) {
        if let reason = scannerReason(record) {
            reject(record, kind: kind, reason: reason, into: &sink)
            return
        }
        if let failure = json.parse(record.bytes) {
            reject(record, kind: kind, reason: failure.reason, into: &sink)
            return
        }
        let rowKind: EventKind
        switch kindOfRow() {
        case .success(let found): rowKind = found
        case .failure(let reason):
            reject(record, kind: kind, reason: reason.text, into: &sink)
            return
        }
        let plan = encoder.plans[rowKind.ordinal]
        for index in 0..<plan.specs.count { values[index] = FieldValue() }
        json.store.withUnsafeBufferPointer { store in
            for entry in json.entries {
                let key = UnsafeBufferPointer(rebasing: store[Int(entry.keyStart)..<Int(entry.keyStart + entry.keyCount)])
                if let field = plan.lookup.index(of: key) { values[field] = entry.value }
            }
        }
        if let reason = json.store.withUnsafeBufferPointer({ encode(kind: rowKind, store: $0, into: &sink) }) {
            reject(record, kind: rowKind, reason: reason, into: &sink)
        }
    }

    struct KindReason: Error {
        var text: String
    }

    /// The row's kind: the file's, checked against a `kind` field if the line has one; else
    /// the line's `kind` field.
    private func kindOfRow() -> Result<EventKind, KindReason> {
        var named: Int?
        var shown: String?
        let found: Bool = json.store.withUnsafeBufferPointer { store in
            for entry in json.entries {
                let key = UnsafeBufferPointer(rebasing: store[Int(entry.keyStart)..<Int(entry.keyStart + entry.keyCount)])
                guard key.elementsEqual(kindKey) else { continue }
                let value = UnsafeBufferPointer(
                    rebasing: store[Int(entry.value.start)..<Int(entry.value.start + entry.value.count)])
                if entry.value.tag == .absent { return false }
                named = entry.value.tag == .string ? kindNames.index(of: value) : nil
                shown = UTF8Check.displayText(value, limit: 64)
                return true
            }
            return false
        }
        let names = EventKind.allCases.map(\.name).joined(separator: ", ")
        if found && named == nil {
            return .failure(KindReason(text: "kind: \"\(shown ?? "")\" is not one of \(names)"))
        }
        if let kind {
            if let named, EventKind.allCases[named] != kind {
                return .failure(KindReason(
                    text: "kind: \"\(EventKind.allCases[named].name)\" does not match the file's kind \(kind.name)"))
            }
            return .success(kind)
        }
        guard let named else {
            return .failure(KindReason(
                text: "missing field kind (the kind is given neither by --kind nor by the file name)"))
        }
        return .success(EventKind.allCases[named])
    }

    /// Encodes the row in `values` into `sink`, or returns why it is invalid.
    private func encode(kind: EventKind, store: UnsafeBufferPointer<UInt8>, into sink: inout RowSink) -> String? {
        let ordinal = kind.ordinal
        var time: Int64 = 0
        let failure = values.withUnsafeBufferPointer { values in
            encoder.encode(kind: ordinal, values: values, store: store, into: &sink.buffers[ordinal], time: &time)
        }
        if let failure {
            let plan = encoder.plans[ordinal]
            let value = values[failure.field]
            return failure.failure.reason(
                field: plan.specs[failure.field],
                value: UnsafeBufferPointer(rebasing: store[Int(value.start)..<Int(value.start + value.count)]))
        }
        sink.counts[ordinal] += 1
        if let device = encoder.plans[ordinal].deviceField, values[device].count > 0 { sink.deviceRows[ordinal] += 1 }
        sink.include(time, kind: ordinal)
        return nil
    }
}
