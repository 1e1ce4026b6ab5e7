import Foundation
import FunnelCore

extension InsightLine {
    /// The line's name: the series, its breakdown value and period.
    public var name: String {
        var text = label
        if let breakdown {
            text += " · " + (breakdown == InsightLine.other ? "(other)" : breakdown.isEmpty ? "(none)" : breakdown)
        }
        if let compare { text += " · \(compare)" }
        return text
    }
}

/// A figure as shown: whole numbers without decimals, others with two.
func insightFigure(_ value: Double?) -> String {
    guard let value, value.isFinite else { return "-" }
    return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.2f", value)
}

extension InsightResult {
    /// The text report: the definition, the columns' legend, then one row per point (interval or
    /// N) and a total row, in blocks of columns that fit 100 columns.
    public func text() -> String {
        var out = title + "\n" + "from \(RetentionCalendar.text(ofDay: fromDay)) to \(RetentionCalendar.text(ofDay: toDay))\n"
        guard let first = lines.first else { return out + "nothing to count\n" }
        out += "columns:\n" + lines.enumerated().map { "  \(Self.left(String($0.offset + 1), 3))  \($0.element.name)\n" }.joined()
        let pointWidth = max(9, (lines.flatMap(\.points).map(\.count).max() ?? 0) + 1)
        let columns = max(1, (100 - pointWidth) / 11)
        for start in stride(from: 0, to: lines.count, by: columns) {
            let block = Array(lines[start..<min(start + columns, lines.count)])
            out += "\n" + "point".padding(toLength: pointWidth, withPad: " ", startingAt: 0)
                + block.indices.map { Self.left(String(start + $0 + 1), 11) }.joined() + "\n"
            for (index, point) in first.points.enumerated() {
                // Compared lines keep their own dates; the row is named by the first line's.
                out += point.padding(toLength: pointWidth, withPad: " ", startingAt: 0)
                    + block.map { Self.left(index < $0.values.count ? insightFigure($0.values[index]) : "", 11) }.joined() + "\n"
            }
            out += "total".padding(toLength: pointWidth, withPad: " ", startingAt: 0)
                + block.map { Self.left(insightFigure($0.total), 11) }.joined() + "\n"
        }
        if lines.contains(where: { $0.compare == "previous" }) {
            out += "\nprevious lines are dated by the current period's points; the CSV and JSON give their own dates\n"
        }
        return out
    }

    static func left(_ text: String, _ width: Int) -> String {
        text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
    }

    /// One CSV row per (line, point), then the line's total (point `total`).
    public func csv() -> String {
        var out = "series,breakdown,compare,point,value\n"
        for line in lines {
            let prefix = [csvField(line.label), csvField(line.breakdown.map { $0 == InsightLine.other ? "(other)" : $0 } ?? ""),
                          line.compare ?? ""].joined(separator: ",")
            for (point, value) in zip(line.points, line.values) {
                out += prefix + "," + point + "," + csvNumber(value) + "\n"
            }
            out += prefix + ",total," + csvNumber(line.total) + "\n"
        }
        return out
    }

    /// The JSON document: the app, the range and the lines with their points and totals.
    public func json() throws -> String {
        struct Point: Encodable { var point: String; var value: Double? }
        struct Line: Encodable { var series: String; var breakdown: String?; var compare: String?; var points: [Point]; var total: Double? }
        struct Document: Encodable { var app: String; var title: String; var from: String; var to: String; var lines: [Line] }
        let document = Document(app: app, title: title, from: RetentionCalendar.text(ofDay: fromDay), to: RetentionCalendar.text(ofDay: toDay),
                                lines: lines.map { line in
                                    Line(series: line.label, breakdown: line.breakdown, compare: line.compare,
                                         points: zip(line.points, line.values).map { Point(point: $0, value: $1) }, total: line.total)
                                })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
    }
}

extension PathsResult {
    /// The text report: the definition, then the edges by step, most paths first.
    public func text() -> String {
        var out = title + "\n" + "from \(RetentionCalendar.text(ofDay: fromDay)) to \(RetentionCalendar.text(ofDay: toDay)): \(paths) paths\n"
        guard !edges.isEmpty else { return out + "no path has two events\n" }
        let room = (100 - 6 - 10 - 4) / 2
        func cut(_ text: String) -> String { text.count > room ? text.prefix(room - 1) + "…" : text }
        out += "step  " + "source".padding(toLength: room, withPad: " ", startingAt: 0) + "  " + "target".padding(toLength: room, withPad: " ", startingAt: 0) + "     paths\n"
        for edge in edges {
            out += String(edge.step).padding(toLength: 6, withPad: " ", startingAt: 0)
                + cut(edge.source).padding(toLength: room, withPad: " ", startingAt: 0) + "  "
                + cut(edge.target).padding(toLength: room, withPad: " ", startingAt: 0)
                + InsightResult.left(String(edge.paths), 10) + "\n"
        }
        return out
    }

    /// One CSV row per edge.
    public func csv() -> String {
        "step,source,target,paths\n" + edges.map { "\($0.step),\(csvField($0.source)),\(csvField($0.target)),\($0.paths)\n" }.joined()
    }

    /// The JSON document: the app, the range, the paths counted and the edges.
    public func json() throws -> String {
        struct Edge: Encodable { var step: Int; var source: String; var target: String; var paths: Int }
        struct Document: Encodable { var app: String; var title: String; var from: String; var to: String; var paths: Int; var edges: [Edge] }
        let document = Document(app: app, title: title, from: RetentionCalendar.text(ofDay: fromDay), to: RetentionCalendar.text(ofDay: toDay),
                                paths: paths, edges: edges.map { Edge(step: $0.step, source: $0.source, target: $0.target, paths: $0.paths) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
    }
}

func csvField(_ text: String) -> String {
    text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
        ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
}

func csvNumber(_ value: Double?) -> String {
    guard let value, value.isFinite else { return "" }
    return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
}
