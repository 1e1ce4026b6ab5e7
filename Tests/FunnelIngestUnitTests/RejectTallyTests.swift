import FunnelCore
@testable import FunnelIngest
import Testing

@Suite("Rejected rows by cause")
struct RejectTallyTests {
    @Test("a cause leaves out values, numbers and advice, so rows failing alike count as one")
    func causes() {
        #expect(RejectTally.cause(of: "installed_at: \"2024-05-01 10:00:00\" has no time zone (use RFC 3339 like 2024-05-01T10:00:00Z, or pass --assume-tz)")
            == "installed_at: \"…\" has no time zone")
        #expect(RejectTally.cause(of: "record has 5 fields, the header has 7") == "record has N fields, the header has N")
        #expect(RejectTally.cause(of: "missing required field user_id") == "missing required field user_id")
        #expect(RejectTally.cause(of: "country: \"X(\" is not an ISO 3166-1 alpha-2 code") == "country: \"…\" is not an ISO N-N alpha-N code")
        #expect(RejectTally.cause(of: "a: \"unclosed") == "a: \"…\"")
    }

    @Test("the top cause is the commonest, the first seen among equals, with its first row")
    func top() {
        var tally = RejectTally()
        tally.add(RejectedRow(line: 3, kind: nil, raw: "", reason: "spend: \"x\" is not a decimal number"))
        tally.add(RejectedRow(line: 4, kind: nil, raw: "", reason: "date: \"2024-13-01\" is not a date (use YYYY-MM-DD)"))
        tally.add(RejectedRow(line: 9, kind: nil, raw: "", reason: "date: \"nope\" is not a date (use YYYY-MM-DD)"))
        tally.add(RejectedRow(line: 11, kind: nil, raw: "", reason: "spend: \"y\" is not a decimal number"))
        let top = tally.top
        #expect(top?.cause == "spend: \"…\" is not a decimal number")
        #expect(top?.detail == RejectTally.Cause(rows: 2, firstLine: 3, firstReason: "spend: \"x\" is not a decimal number"))
        #expect(tally.rows == 4)
        #expect(RejectTally.fix(for: "installed_at: \"…\" has no time zone")?.contains("--assume-tz") == true)
        #expect(RejectTally.fix(for: "spend: \"…\" is not a decimal number") == nil)
    }

    @Test("a file is refused only past its reject share, with the commonest cause and its fix")
    func refusal() throws {
        var tally = RejectTally()
        for line in 2...4 { tally.add(RejectedRow(line: Int64(line), kind: .installs, raw: "", reason: "installed_at: \"2024-05-01 10:00\" has no time zone (pass --assume-tz)")) }
        let file = ClaimedFile(fileID: 1, path: "in/installs.csv", kind: .installs, options: FileReadOptions(maxRejectShare: 0.5), attempts: 1)
        #expect(throws: Never.self) { try FileLoader.refuseMostlyRejected(file, FileLoadCounts(rowsRead: 6, rejected: 3), tally) }
        #expect {
            try FileLoader.refuseMostlyRejected(file, FileLoadCounts(rowsRead: 5, rejected: 3), tally)
        } throws: { error in
            guard case .mostRowsRejected(_, 3, 5, 0.5, let cause, 3, let example, let fix) = error as? FileRefusal else { return false }
            return cause == "installed_at: \"…\" has no time zone" && example.hasPrefix("line 2: ") && fix?.contains("assume_tz") == true
        }
        let never = ClaimedFile(fileID: 1, path: "in/installs.csv", kind: .installs, options: FileReadOptions(maxRejectShare: 1), attempts: 1)
        #expect(throws: Never.self) { try FileLoader.refuseMostlyRejected(never, FileLoadCounts(rowsRead: 3, rejected: 3), tally) }
    }
}
