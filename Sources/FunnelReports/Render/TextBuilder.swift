/// Accumulates the lines of the text report, keeping every line within `TextRenderer.width`
/// columns without cutting anything: wide tables are split into blocks of columns, and a cell or
/// word longer than its room continues on the next line.
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

    /// Green for scale, red for cut and trim, yellow for the rest; the text already says which.
    func paint(_ text: String, verdict: String) -> String {
        guard colour else { return text }
        let code = switch Recommendations.label(verdict) {
        case "scale": "32"
        case "cut", "trim": "31"
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
        let longest = TextRenderer.width - max(indentWidth ?? indent.count, hanging.count)
        var pieces: [String] = []
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            // A word longer than a line (a long name or path) continues on the next lines whole.
            pieces += Self.chunks(String(word), longest)
        }
        for piece in pieces {
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

    /// `text` in pieces of at most `length` characters (one piece when it fits; "" stays one piece).
    static func chunks(_ text: String, _ length: Int) -> [String] {
        guard text.count > length, length > 0 else { return [text] }
        var pieces: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            pieces.append(String(rest.prefix(length)))
            rest = rest.dropFirst(length)
        }
        return pieces
    }

    /// A table: first column left-aligned, the others right-aligned, two spaces apart. Cells are
    /// never cut: a table wider than the page is split into blocks of columns, one under the
    /// other, each repeating the first column.
    mutating func table(_ header: [String], _ rows: [[String]], indent: String = "  ") {
        // A cell wider than its room (the first column leaves room for the widest other one
        // beside it) continues on the row's next lines, whole.
        var widths = header.indices.map { column in
            ([header] + rows).map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        let widestOther = widths.dropFirst().max() ?? 0
        if let first = widths.first {
            widths[0] = min(first, max(20, TextRenderer.width - indent.count - 2 - min(widestOther, 30)))
        }
        let room = TextRenderer.width - indent.count - (widths.first ?? 0) - 2
        for column in widths.indices.dropFirst() { widths[column] = max(1, min(widths[column], room)) }
        var blocks: [[Int]] = []
        var current: [Int] = []
        var used = indent.count + (widths.first ?? 0)
        for column in header.indices.dropFirst() {
            if !current.isEmpty, used + 2 + widths[column] > TextRenderer.width {
                blocks.append(current)
                current = []
                used = indent.count + (widths.first ?? 0)
            }
            current.append(column)
            used += 2 + widths[column]
        }
        if !current.isEmpty || blocks.isEmpty { blocks.append(current) }
        for (index, block) in blocks.enumerated() {
            if index > 0 { lines.append("") }
            let columns = [0] + block
            for row in [header] + rows {
                let pieces = columns.map { column in
                    Self.chunks(row.indices.contains(column) ? row[column] : "", max(1, widths[column]))
                }
                for part in 0..<(pieces.map(\.count).max() ?? 1) {
                    let cells = zip(columns, pieces).map { column, chunks -> String in
                        let cell = part < chunks.count ? chunks[part] : ""
                        let pad = String(repeating: " ", count: max(0, widths[column] - cell.count))
                        return column == 0 ? cell + pad : pad + cell
                    }
                    var line = indent + cells.joined(separator: "  ")
                    while line.last == " " { line.removeLast() }
                    lines.append(line)
                }
            }
        }
    }
}
