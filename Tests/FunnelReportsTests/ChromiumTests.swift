import Foundation
@testable import FunnelReports
import Testing

@Suite("The HTML report in headless Chromium")
struct ChromiumTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("the HTML report renders its charts: the screenshot is not blank",
          .enabled(if: chromium != nil, "chromium is not installed (apt-get install chromium); skipping the screenshot test"))
    func screenshot() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let html = directory.appending(path: "report.html")
        try Data(HTMLRenderer.render(RenderingTests.sample()).utf8).write(to: html)
        let png = directory.appending(path: "shot.png")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.chromium))
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                             "--screenshot=\(png.path)", "--window-size=1200,2000", html.absoluteString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let data = try Data(contentsOf: png)
        #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // A blank 1200x2000 page compresses to a few kilobytes; text, bars and a heat map do not.
        #expect(data.count > 30_000, "screenshot is \(data.count) bytes: the page looks blank")
    }
}
