/// The output formats of `funnel report` (SPEC.md "Reports").
public enum ReportFormat: String, CaseIterable, Sendable, Codable {
    case text
    case csv
    case html
    case json
}
