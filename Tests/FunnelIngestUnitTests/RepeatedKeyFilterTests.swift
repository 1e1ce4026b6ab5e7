@testable import FunnelIngest
import FunnelCore
import Testing

@Suite("Repeated-key filter")
struct RepeatedKeyFilterTests {
    /// COPY text lines for `keys` (event id, app id), with a payload column after them.
    private func lines(_ keys: [(String, String)]) -> [UInt8] {
        Array(keys.map { "\($0.0)\t\($0.1)\tu1\t2024-05-01 00:00:00+00\t10\n" }.joined().utf8)
    }

    private func suspects(_ filter: RepeatedKeyFilter) -> [String] {
        String(decoding: filter.suspects, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("every later copy of a key is a suspect, across batches and with the app id part of the key; the kind is part of the key")
    func laterCopiesAreSuspects() {
        var filter = RepeatedKeyFilter(bits: 1 << 16)
        let first = lines([("e1", "app"), ("e2", "app"), ("e1", "other"), ("e3", "app")])
        let second = lines([("e2", "app"), ("e4", "app"), ("e1", "other"), ("e2", "app")])
        first.withUnsafeBufferPointer { filter.add(kind: .opens, lines: $0) }
        #expect(filter.suspectCount == 0)
        second.withUnsafeBufferPointer { filter.add(kind: .opens, lines: $0) }
        #expect(suspects(filter) == ["opens\te2\tapp", "opens\te1\tother", "opens\te2\tapp"])
        // The same keys of another kind are new.
        first.withUnsafeBufferPointer { filter.add(kind: .ux, lines: $0) }
        #expect(filter.suspectCount == 3)
        #expect(filter.isComplete)
    }

    @Test("a million distinct keys in a filter sized for them: no key missed, under 1% suspected falsely")
    func falsePositives() {
        let rows = 1_000_000
        let sample = lines([("x1", "com.example.app")])
        var filter = RepeatedKeyFilter(fileBytes: Int64(sample.count * rows), batchBytes: Int64(sample.count), batchRows: 1)
        var batch: [(String, String)] = []
        for index in 0..<rows {
            batch.append(("x\(index)", "com.example.app"))
            if batch.count == 50_000 {
                lines(batch).withUnsafeBufferPointer { filter.add(kind: .ux, lines: $0) }
                batch.removeAll()
            }
        }
        #expect(filter.suspectCount < rows / 100, "\(filter.suspectCount) false suspects in a filter of \(filter.byteCount) bytes")
        // Every key again: each is a suspect.
        let before = filter.suspectCount
        lines((0..<1_000).map { ("x\($0 * 997)", "com.example.app") }).withUnsafeBufferPointer { filter.add(kind: .ux, lines: $0) }
        #expect(filter.suspectCount - before == 1_000)
    }

    @Test("separating a batch in place: the rows with a new key stay in order, the suspects leave with their place in the file")
    func separateInPlace() {
        var filter = RepeatedKeyFilter(bits: 1 << 16)
        var first = lines([("e1", "app"), ("e2", "app")])
        var suspects: [UInt8] = []
        #expect(filter.separate(kind: .opens, buffer: &first, firstPlace: 0, suspects: &suspects) == 2)
        #expect(first == lines([("e1", "app"), ("e2", "app")]) && suspects.isEmpty)
        var second = lines([("e2", "app"), ("e3", "app"), ("e1", "app"), ("e4", "app")])
        #expect(filter.separate(kind: .opens, buffer: &second, firstPlace: 2, suspects: &suspects) == 2)
        #expect(second == lines([("e3", "app"), ("e4", "app")]))
        #expect(String(decoding: suspects, as: UTF8.self)
                == "e2\tapp\tu1\t2024-05-01 00:00:00+00\t10\t2\ne1\tapp\tu1\t2024-05-01 00:00:00+00\t10\t4\n")
        // One bit: every row after the first is a suspect.
        var tiny = RepeatedKeyFilter(bits: 1)
        var batch = lines([("a", "app"), ("b", "app"), ("c", "app")])
        suspects.removeAll()
        #expect(tiny.separate(kind: .ux, buffer: &batch, firstPlace: 0, suspects: &suspects) == 1)
        #expect(batch == lines([("a", "app")]))
    }

    @Test("past its limit of suspects the filter gives up: the merge must then group every key")
    func overflow() {
        var filter = RepeatedKeyFilter(bits: 1 << 16, maximumSuspectBytes: 40)
        let text = lines([("e1", "app"), ("e1", "app"), ("e1", "app"), ("e1", "app"), ("e1", "app")])
        text.withUnsafeBufferPointer { filter.add(kind: .opens, lines: $0) }
        #expect(!filter.isComplete)
        #expect(filter.suspects.isEmpty)
    }
}
