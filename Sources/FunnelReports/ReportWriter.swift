public import Foundation

/// Writes a report's formats into a directory: report.txt, the CSV files, report.html, report.json.
public enum ReportWriter {
    /// Writes each format asked for and returns the paths written, in order.
    public static func write(_ report: Report, formats: [ReportFormat], to directory: URL) throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var written: [URL] = []
        func save(_ name: String, _ contents: String) throws {
            let url = directory.appending(path: name)
            try Data(contents.utf8).write(to: url, options: .atomic)
            written.append(url)
        }
        for format in formats {
            switch format {
            case .text: try save("report.txt", TextRenderer.render(report))
            case .csv: for file in CSVRenderer.render(report) { try save(file.name, file.contents) }
            case .html: try save("report.html", HTMLRenderer.render(report))
            case .json: try save("report.json", try JSONRenderer.render(report))
            }
        }
        return written
    }
}
