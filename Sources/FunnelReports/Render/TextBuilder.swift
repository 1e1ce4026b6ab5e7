/// Accumulates the lines of the text report, keeping every line within `TextRenderer.width`
/// columns (cells that would overflow are shortened with "~").
struct TextBuilder {
    let colour: Bool
    private(set) var lines: [String] = []

    init(colour: Bool) {
        self.colour = colour
    }

    var text: String { lines.joined(separator: "\n") + "\n" }

    mutating func line(_ text: String) {
        lines.append(text)
    }

    mutating func section(_ title: String) {
        lines.append("")
        lines.append(bold(title))
    }

    func bold(_ text: String) -> String {
        colour ? "\u{1b}[1m\(text)\u{1b}[0m" : text
    }

    /// Green for double down, red for cut, yellow for hold; the text already says which.
    func paint(_ text: String, verdict: String) -> String {
        guard colour else { return text }
        let code = switch Recommendations.label(verdict) {
        case "double down": "32"
        case "cut": "31"
        default: "33"
        }
        return "\u{1b}[1;\(code)m\(text)\u{1b}[0m"
    }

    /// Word-wraps `text` after `indent` (whose visible width is `indentWidth`, for coloured
    /// indents), continuing lines with `hanging`.
    mutating func wrapped(_ text: String, indent: String, hanging: String, indentWidth: Int? = nil) {
        var current = indent
        var currentWidth = indentWidth ?? indent.count
        var first = true
        let longest = TextRenderer.width - max(currentWidth, hanging.count) - 1
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            let piece = word.count > longest ? String(word.prefix(longest - 1)) + "~" : String(word)
            let atStart = first
            if !atStart, currentWidth + 1 + piece.count > TextRenderer.width {
                lines.append(current)
                current = hanging + piece
                currentWidth = hanging.count + piece.count
            } else {
                current += (atStart ? "" : " ") + piece
                currentWidth += (atStart ? 0 : 1) + piece.count
            }
            first = false
        }
        lines.append(current)
    }

    /// A table: first column left-aligned, the others right-aligned, two spaces apart; columns
    /// are shrunk (widest first) until the table fits.
    mutating func table(_ header: [String], _ rows: [[String]], indent: String = "  ") {
        var widths = header.indices.map { column in
            ([header] + rows).map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        let available = TextRenderer.width - indent.count - 2 * (header.count - 1)
        while widths.reduce(0, +) > available, let widest = widths.indices.max(by: { widths[$0] < widths[$1] }), widths[widest] > 4 {
            widths[widest] -= 1
        }
        for row in [header] + rows {
            let cells = row.indices.map { column -> String in
                let width = widths[column]
                var cell = row[column]
                if cell.count > width { cell = String(cell.prefix(width - 1)) + "~" }
                let pad = String(repeating: " ", count: width - cell.count)
                return column == 0 ? cell + pad : pad + cell
            }
            var line = indent + cells.joined(separator: "  ")
            while line.last == " " { line.removeLast() }
            lines.append(line)
        }
    }
}
