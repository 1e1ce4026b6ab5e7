/// Splits one CSV record (RFC 4180) into its fields, unquoting them into a reusable byte store.
///
/// Quotes open a quoted field only at the start of a field; a quote inside an unquoted field is
/// kept as a literal, and text after a closing quote is kept too (lenient, as spreadsheets are).
struct CSVSplitter {
    /// Unquoted field bytes of the current record, back to back.
    private(set) var store: [UInt8] = []
    /// Field i is `store[starts[i] ..< starts[i] + counts[i]]`.
    private(set) var starts: [Int32] = []
    private(set) var counts: [Int32] = []

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
                    // Unterminated quote: the scanner reports the record; keep what there is.
                    store.append(contentsOf: UnsafeBufferPointer(rebasing: record[runStart..<n]))
                }
                let rest = i
                while i < n && record[i] != 0x2c { i += 1 }
                if i > rest { store.append(contentsOf: UnsafeBufferPointer(rebasing: record[rest..<i])) }
            } else {
                let rest = i
                while i < n && record[i] != 0x2c { i += 1 }
                store.append(contentsOf: UnsafeBufferPointer(rebasing: record[rest..<i]))
            }
            starts.append(Int32(fieldStart))
            counts.append(Int32(store.count - fieldStart))
            if i >= n { return }
            i += 1  // the comma
        }
    }

    /// Field `index` as bytes; valid until the next `split`.
    func withField<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        store.withUnsafeBufferPointer { all in
            body(UnsafeBufferPointer(rebasing: all[Int(starts[index])..<Int(starts[index] + counts[index])]))
        }
    }
}
