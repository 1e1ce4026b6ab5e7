import Foundation
@testable import FunnelReports
import Testing

@Suite("The zero state")
struct ZeroStateTests {
    @Test("a fresh database gives a short report that says what to ingest next, and CSVs with headers only")
    func freshDatabase() throws {
        let report = try ReportFixture().report()
        #expect(!report.hasData)
        let text = TextRenderer.render(report)
        #expect(text.contains("funnel ingest"))
        #expect(text.contains("funnel generate --out"))
        #expect(text.split(separator: "\n").count < 12)
        for file in CSVRenderer.render(report) {
            #expect(file.contents.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 1, "\(file.name)")
        }
        let html = HTMLRenderer.render(report)
        #expect(html.contains("funnel ingest"))
    }

    @Test("data loaded but not computed says to run funnel compute")
    func loadedNotComputed() throws {
        let f = try ReportFixture()
        try f.install("u1", "2024-03-01T10:00:00Z")
        let text = TextRenderer.render(try f.report())
        #expect(text.contains("funnel compute"))
    }
}
