import Foundation
@testable import FunnelReports
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("The HTML report in headless Chromium", .serialized)
struct ChromiumTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("the HTML report renders its charts: the screenshot is not blank, and the page makes no network request",
          .enabled(if: chromium != nil, "chromium is not installed (apt-get install chromium); skipping the screenshot test"))
    func screenshot() throws {
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "funnel-chromium-test")
        defer { try? FileManager.default.removeItem(at: directory) }
        let html = directory.appending(path: "report.html")
        try Data(HTMLRenderer.render(RenderingTests.sample()).utf8).write(to: html)
        let (data, hosts) = try Self.render(html, in: directory)
        #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // A blank 1200x2000 page compresses to a few kilobytes; text, bars and a heat map do not.
        #expect(data.count > 30_000, "screenshot is \(data.count) bytes: the page looks blank")
        #expect(hosts.isEmpty, "the report fetched from \(hosts)")
    }

    @Test("the network check catches a page that fetches something (so the check can fail)",
          .enabled(if: chromium != nil, "chromium is not installed (apt-get install chromium); skipping the screenshot test"))
    func networkCheckWorks() throws {
        let directory = try TestCluster.makeTemporaryDirectory(prefix: "funnel-chromium-test")
        defer { try? FileManager.default.removeItem(at: directory) }
        let html = directory.appending(path: "fetching.html")
        try Data(#"<html><body><img src="http://example.invalid/pixel.png"></body></html>"#.utf8).write(to: html)
        let (_, hosts) = try Self.render(html, in: directory)
        #expect(hosts.contains("example.invalid"))
    }

    /// Hosts Chromium itself calls (clock, component updates, sign-in), whatever the page does.
    static let browserServiceHosts: Set<String> = [
        "clients2.google.com", "accounts.google.com", "update.googleapis.com", "redirector.gvt1.com",
        "safebrowsing.googleapis.com", "optimizationguide-pa.googleapis.com", "content-autofill.googleapis.com",
    ]

    /// Screenshots `html` with every request sent to a proxy on loopback that this test owns, and
    /// returns the hosts the page asked that proxy for (Chromium's own service calls left out).
    static func render(_ html: URL, in directory: URL) throws -> (png: Data, hosts: [String]) {
        let listener = try LoopbackListener()
        defer { listener.close() }
        let png = directory.appending(path: "shot-\(UUID().uuidString.prefix(6)).png")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(chromium))
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-default-apps", "--disable-domain-reliability",
            "--proxy-server=http://127.0.0.1:\(listener.port)", "--proxy-bypass-list=<-loopback>",
            "--timeout=5000", "--screenshot=\(png.path)", "--window-size=1200,2000", html.absoluteString,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // A page stuck on a request it never gets an answer to must not hang the suite.
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline { usleep(100_000) }
        let hosts = listener.acceptPending().filter { !browserServiceHosts.contains($0) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        return ((try? Data(contentsOf: png)) ?? Data(), hosts)
    }
}

/// A TCP listener on 127.0.0.1 (an ephemeral port) standing in for an HTTP proxy: it answers
/// nothing and only records which host each connection asked for.
final class LoopbackListener {
    private let descriptor: Int32
    let port: UInt16

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard descriptor >= 0, bound == 0, listen(descriptor, 64) == 0 else {
            throw POSIXError(.EADDRNOTAVAIL)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
    }

    /// Accepts (and closes) every connection waiting; returns the host each one asked for
    /// (`GET http://host/...` or `CONNECT host:443`).
    func acceptPending() -> [String] {
        var hosts: [String] = []
        while true {
            let connection = accept(descriptor, nil, nil)
            if connection < 0 { return hosts }
            var buffer = [UInt8](repeating: 0, count: 1024)
            _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL) | O_NONBLOCK)
            let count = recv(connection, &buffer, buffer.count, 0)
            Glibc.close(connection)
            let requestLine = String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self)
                .split(separator: "\r\n").first.map(String.init) ?? ""
            let target = requestLine.split(separator: " ").dropFirst().first.map(String.init) ?? "?"
            let withoutScheme = target.replacingOccurrences(of: "http://", with: "").replacingOccurrences(of: "https://", with: "")
            let host = withoutScheme.split(separator: "/").first.map(String.init) ?? withoutScheme
            hosts.append(String(host.split(separator: ":").first ?? Substring(host)))
        }
    }

    func close() {
        Glibc.close(descriptor)
    }
}
