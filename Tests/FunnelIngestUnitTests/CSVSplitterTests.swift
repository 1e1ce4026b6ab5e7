@testable import FunnelIngest
import Testing

/// The splitter's two ways give a record's fields: ranges of the record itself when it has no
/// quote, the unquoted copies otherwise. Either way the fields are RFC 4180's.
@Suite("CSV splitter")
struct CSVSplitterTests {
    /// The fields of `record` as the splitter gives them, and whether they were left in the record.
    static func fields(_ record: String, maxFields: Int = 64) -> (fields: [String], inRecord: Bool, problem: CSVSplitter.Problem?) {
        var splitter = CSVSplitter()
        let bytes = Array(record.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            splitter.split(buffer, maxFields: maxFields)
            let fields = (0..<splitter.fieldCount).map { index in
                splitter.withField(index, of: buffer) { String(decoding: $0, as: UTF8.self) }
            }
            return (fields, splitter.fieldsAreInRecord, splitter.problem?.kind)
        }
    }

    @Test("a record without quotes: its fields in place, empty ones and a trailing one kept",
          arguments: ["e1,app,u1,2024-05-01T00:00:00Z", "", ",", "a,,b,", ",a", "only", "a b , c\tz"])
    func inPlace(record: String) {
        let split = Self.fields(record)
        #expect(split.inRecord)
        #expect(split.problem == nil)
        #expect(split.fields == record.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
    }

    @Test("a record with quotes: the unquoted fields copied, the same as RFC 4180 reads them")
    func quoted() {
        let split = Self.fields(#"e1,"a, ""b""",,"",x"#)
        #expect(!split.inRecord)
        #expect(split.problem == nil)
        #expect(split.fields == ["e1", #"a, "b""#, "", "", "x"])
        #expect(Self.fields(#"e1,u"6,x"#).problem == .quoteInUnquotedField)
        #expect(Self.fields(#"e1,"u6"x,y"#).problem == .textAfterClosingQuote)
        #expect(Self.fields(#"e1,"u6,y"#).problem == .unclosedQuote)
    }

    @Test("both ways stop one field past the most asked for, so a record with too many fields is told apart")
    func fieldLimit() {
        #expect(Self.fields("a,b,c,d", maxFields: 2).fields == ["a", "b", "c"])
        #expect(Self.fields(#"a,"b",c,d"#, maxFields: 2).fields == ["a", "b", "c"])
        #expect(Self.fields("a,b", maxFields: 2).fields == ["a", "b"])
    }

    @Test("a record split after a quoted one is read in place again, not from the earlier record's copies")
    func reuse() {
        var splitter = CSVSplitter()
        let quoted = Array(#""q1",x"#.utf8)
        let plain = Array("p1,y".utf8)
        quoted.withUnsafeBufferPointer { splitter.split($0, maxFields: 8) }
        #expect(!splitter.fieldsAreInRecord)
        let fields = plain.withUnsafeBufferPointer { buffer in
            splitter.split(buffer, maxFields: 8)
            return (0..<splitter.fieldCount).map { index in splitter.withField(index, of: buffer) { String(decoding: $0, as: UTF8.self) } }
        }
        #expect(splitter.fieldsAreInRecord)
        #expect(fields == ["p1", "y"])
    }
}
