import Glibc

/// Splits one CSV record (RFC 4180) into its fields, unquoting them into a reusable byte store. A
/// record without a quote (most are) is not copied: its fields are ranges of the record itself
/// (``fieldsAreInRecord``), and ``withFieldBytes(of:_:)`` gives whichever holds them.
///
/// Quotes open a quoted field only at the start of a field. What RFC 4180 does not allow is
/// reported in ``problem`` (the first one), and the reader rejects the record: text after a
/// closing quote (`"u6"x`, which a lenient reader would load as `u6x`, inventing a value), a quote
/// inside an unquoted field (`u"6`), and a quoted field not closed by the end of the record.
struct CSVSplitter {
    /// What makes a record invalid CSV.
    enum Problem: Equatable {
        /// A quoted field that is not closed by the end of the record.
        case unclosedQuote
        /// Characters between a closing quote and the next comma.
        case textAfterClosingQuote
        /// A quote inside a field that does not start with one.
        case quoteInUnquotedField
    }

    /// Unquoted field bytes of the current record, back to back, when it had a quote.
    private var store: [UInt8] = []
    /// Whether the current record had no quote: its fields are ranges of the record, not of the store.
    private(set) var fieldsAreInRecord = false
    /// Field i is `bytes[starts[i] ..< starts[i] + counts[i]]` of ``withFieldBytes(of:_:)``'s bytes.
    private(set) var starts: [Int32] = []
    private(set) var counts: [Int32] = []
    /// The first quoting problem of the current record, with the index of its field.
    private(set) var problem: (field: Int, kind: Problem)?

    init() {
        store.reserveCapacity(64 * 1024)
        starts.reserveCapacity(64)
        counts.reserveCapacity(64)
    }

    var fieldCount: Int { starts.count }

    /// Bytes reserved by the store (grows to the largest record seen, at most the record limit).
    var storeCapacity: Int { store.capacity }

    /// Splits `record`, keeping at most `maxFields` fields (the count still tells if there were
    /// more: it stops at `maxFields + 1`).
    mutating func split(_ record: UnsafeBufferPointer<UInt8>, maxFields: Int) {
        starts.removeAll(keepingCapacity: true)
        counts.removeAll(keepingCapacity: true)
        problem = nil
        guard let base = record.baseAddress, memchr(base, 0x22, record.count) != nil else {
            splitInPlace(record, maxFields: maxFields)
            return
        }
        fieldsAreInRecord = false
        store.removeAll(keepingCapacity: true)
        let n = record.count
        var i = 0
        while true {
            if starts.count > maxFields { return }
            let fieldStart = store.count
            if i < n && record[i] == 0x22 {
                i += 1
                var runStart = i
                while i < n {
                    if record[i] == 0x22 {
                        store.append(contentsOf: UnsafeBufferPointer(rebasing: record[runStart..<i]))
                        if i + 1 < n && record[i + 1] == 0x22 {
                            store.append(0x22)
                            i += 2
                            runStart = i
                            continue
                        }
                        i += 1
                        runStart = -1
                        break
                    }
                    i += 1
                }
                if runStart >= 0 {
                    note(.unclosedQuote)
                    store.append(contentsOf: UnsafeBufferPointer(rebasing: record[runStart..<n]))
                }
                let rest = i
                while i < n && record[i] != 0x2c { i += 1 }
                if i > rest {
                    note(.textAfterClosingQuote)
                    store.append(contentsOf: UnsafeBufferPointer(rebasing: record[rest..<i]))
                }
            } else {
                let rest = i
                while i < n && record[i] != 0x2c {
                    if record[i] == 0x22 { note(.quoteInUnquotedField) }
                    i += 1
                }
                store.append(contentsOf: UnsafeBufferPointer(rebasing: record[rest..<i]))
            }
            starts.append(Int32(fieldStart))
            counts.append(Int32(store.count - fieldStart))
            if i >= n { return }
            i += 1  // the comma
        }
    }

    /// A record without a quote: each field is the bytes between two commas, as they are.
    private mutating func splitInPlace(_ record: UnsafeBufferPointer<UInt8>, maxFields: Int) {
        fieldsAreInRecord = true
        let n = record.count
        var i = 0
        while true {
            if starts.count > maxFields { return }
            let fieldStart = i
            while i < n && record[i] != 0x2c { i += 1 }
            starts.append(Int32(fieldStart))
            counts.append(Int32(i - fieldStart))
            if i >= n { return }
            i += 1  // the comma
        }
    }

    /// Calls `body` with the bytes the fields of `record`, the record last split, are ranges of:
    /// the record itself, or the store of its unquoted fields.
    func withFieldBytes<R>(of record: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if fieldsAreInRecord { return try body(record) }
        return try store.withUnsafeBufferPointer(body)
    }

    private mutating func note(_ kind: Problem) {
        if problem == nil { problem = (starts.count, kind) }
    }

    /// Field `index` of `record`, the record last split, as bytes.
    func withField<R>(_ index: Int, of record: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withFieldBytes(of: record) { all in
            body(UnsafeBufferPointer(rebasing: all[Int(starts[index])..<Int(starts[index] + counts[index])]))
        }
    }
}
