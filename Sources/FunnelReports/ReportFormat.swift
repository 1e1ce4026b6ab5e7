/// The output formats of `funnel report` (docs/reports.md).
public enum ReportFormat: String, CaseIterable, Sendable, Codable {
    case text
    case csv
    case html
    case json
}
