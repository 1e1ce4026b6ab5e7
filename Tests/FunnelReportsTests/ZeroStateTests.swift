import Foundation
import TestSupport
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

@Suite("funnel demo and funnel report end to end")
struct DemoEndToEndTests {
    @Test("funnel demo generates, ingests, computes and writes every format; a second run skips the loaded files")
    func demoTwice() throws {
        let home = try temporaryDirectory()
        let dir = home.appending(path: "demo")
        defer {
            _ = try? FunnelExecutable.run(["db", "stop"], environment: ["FUNNEL_HOME": home.path])
            try? FileManager.default.removeItem(at: home)
        }
        let environment = ["FUNNEL_HOME": home.path]
        let first = try FunnelExecutable.run(["demo", "--dir", dir.path, "--users", "300", "--days", "10", "-q"], environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("WHAT TO DO"))
        for name in ["report.txt", "report.html", "report.json", "funnel.csv", "retention.csv", "ltv.csv", "cpi.csv",
                     "kfactor.csv", "friction.csv", "networks.csv"] {
            #expect(FileManager.default.fileExists(atPath: dir.appending(path: "reports/\(name)").path), "\(name)")
        }
        let second = try FunnelExecutable.run(["demo", "--dir", dir.path, "--users", "300", "--days", "10", "-q"], environment: environment)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("reusing the files generated earlier"))
        #expect(second.stderr.contains(" 0 rows loaded"))
        #expect(first.stdout.contains("demo's own database"))
        // The sample is in the demo's database: the default one stays empty.
        let report = try FunnelExecutable.run(["report", "--demo", "--format", "json"], environment: environment)
        #expect(report.status == 0)
        #expect(report.stdout.contains("\"has_data\" : true"))
        let mine = try FunnelExecutable.run(["apps", "list", "--json"], environment: environment)
        #expect(mine.status == 0, "\(mine.stderr)")
        #expect(mine.stdout == "[]\n", "\(mine.stdout)")
        let demoApps = try FunnelExecutable.run(["apps", "list", "--demo"], environment: environment)
        #expect(demoApps.stdout.contains("com.example.app"), "\(demoApps.stdout)")
        let url = try FunnelExecutable.run(["db", "url", "--demo"], environment: environment)
        #expect(url.stdout.contains("/funnel_demo?host="), "\(url.stdout)")
        let both = try FunnelExecutable.run(["report", "--demo", "--database-url", "postgresql://x@/y"], environment: environment)
        #expect(both.status == 2 && both.stderr.contains("--demo and --database-url"), "\(both.stderr)")
        let usage = try FunnelExecutable.run(["report", "--demo", "--format", "csv"], environment: environment)
        #expect(usage.status != 0 && usage.stderr.contains("--out"))
    }
}
