/// Splits one CSV record (RFC 4180) into its fields, unquoting them into a reusable byte store.
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

    /// Unquoted field bytes of the current record, back to back.
    private(set) var store: [UInt8] = []
    /// Field i is `store[starts[i] ..< starts[i] + counts[i]]`.
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
        store.removeAll(keepingCapacity: true)
        starts.removeAll(keepingCapacity: true)
        counts.removeAll(keepingCapacity: true)
        problem = nil
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

    private mutating func note(_ kind: Problem) {
        if problem == nil { problem = (starts.count, kind) }
    }

    /// Field `index` as bytes; valid until the next `split`.
    func withField<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        store.withUnsafeBufferPointer { all in
            body(UnsafeBufferPointer(rebasing: all[Int(starts[index])..<Int(starts[index] + counts[index])]))
        }
    }
}
