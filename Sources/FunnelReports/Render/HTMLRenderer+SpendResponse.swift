import Foundation

extension HTMLRenderer {
    /// The "Spend response" section: a curve per fitted network, the table of spend_response.csv's
    /// main columns with the advice, and the inflated days. Empty when no network has spend.
    static func spendResponseSection(_ report: Report) -> String {
        let section = report.spendResponse
        guard !section.networks.isEmpty else { return "" }
        let charts = section.networks.map(Charts.spendResponse).joined()
        var html = "<section><h2>Spend response</h2><div class=\"grid\">" + charts + "</div>"
            + "<p class=\"note\">Curve: installs a day bought at each daily spend on the average weekday, by the form "
            + "that fits better (AIC): power law installs = a · spend^b or saturating installs = M · spend / (K + spend). Solid line: today's spend (mean of the last 14 days with spend). Dashed line: the headroom, "
            + "where the marginal CPI meets the projected D180 LTV. Saturated: marginal CPI at least 1.3× the average.</p>"
        html += rowsTable(["network", "curve", "b (90% interval)", "spend a day", "average CPI", "marginal CPI", "D180 LTV", "headroom",
                           "saturated", "advice"],
                          section.networks.map { row in
                              [row.network, row.curveForm ?? Formatting.missing,
                               row.exponentB.map { "\(Formatting.ratio($0)) [\(Formatting.ratio(row.exponentBLow))–\(Formatting.ratio(row.exponentBHigh))]" }
                                   ?? Formatting.missing,
                               Formatting.money(row.currentSpend), Formatting.money(row.averageCpi),
                               Formatting.money(row.marginalCpi), Formatting.money(row.ltvD180),
                               Formatting.money(row.headroomSpend),
                               row.saturated.map { $0 ? "saturated" : "no" } ?? Formatting.missing, row.advice]
                          })
        if !section.segments.isEmpty {
            html += "<details><summary>Per campaign and per country (\(section.segments.count) curves)</summary>"
                + rowsTable(["network", "campaign", "country", "curve", "b (90% interval)", "spend a day", "average CPI",
                             "marginal CPI", "headroom", "advice"],
                            section.segments.map { row in
                                let degenerate = SegmentAdvice.isDegenerate(row)
                                return [row.network, row.campaign, row.country, row.curveForm ?? row.status,
                                        degenerate ? "degenerate fit" : row.exponentB.map {
                                            "\(Formatting.ratio($0)) [\(Formatting.ratio(row.exponentBLow))–\(Formatting.ratio(row.exponentBHigh))]"
                                        } ?? Formatting.missing,
                                        Formatting.money(row.currentSpend), Formatting.money(row.averageCpi),
                                        degenerate ? Formatting.missing : Formatting.money(row.marginalCpi),
                                        degenerate ? Formatting.missing : Formatting.money(row.headroomSpend),
                                        SegmentAdvice.advice(row, report)]
                            }) + "</details>"
        }
        if !section.cpiByHour.isEmpty {
            html += "<h3>CPI by hour of day</h3><p class=\"note\">Hours in the reporting time zone, over the days whose "
                + "spend rows carry an hour; index: the hour's CPI over the network's.</p>"
                + rowsTable(["network", "hour", "days", "spend", "paid installs", "CPI", "index"],
                            section.cpiByHour.map {
                                [$0.network, String(format: "%02d", $0.hour), String($0.days), Formatting.money($0.spend),
                                 Formatting.grouped($0.paidInstalls), Formatting.money($0.cpi), Formatting.ratio($0.cpiIndex)]
                            })
        }
        if !section.inflatedDays.isEmpty {
            html += "<h3>Days with an abnormally high CPI</h3>"
                + rowsTable(["network", "date", "spend", "paid installs", "CPI", "expected CPI", "excess cost"],
                            section.inflatedDays.map {
                                [$0.network, $0.date, Formatting.money($0.spend), Formatting.grouped($0.paidInstalls),
                                 Formatting.money($0.cpi), Formatting.money($0.expectedCpi), Formatting.money($0.excessCost)]
                            })
        }
        return html + "</section>"
    }

    private static func rowsTable(_ header: [String], _ rows: [[String]]) -> String {
        "<div class=\"scroll\"><table><thead><tr>" + header.map { "<th scope=\"col\">\(escape($0))</th>" }.joined()
            + "</tr></thead><tbody>" + rows.map { "<tr>" + $0.map { "<td>\(escape($0))</td>" }.joined() + "</tr>" }.joined()
            + "</tbody></table></div>"
    }
}

extension Charts {
    /// One network's response curve, installs a day against daily spend, with today's spend (solid
    /// line) and the headroom (dashed) marked and labelled; the network without a curve gets its
    /// reason as text.
    static func spendResponse(_ row: SpendResponseRow) -> String {
        let esc = HTMLRenderer.escape
        func f(_ value: Double) -> String { String(format: "%.1f", value) }
        guard let current = row.currentSpend.map(Formatting.plotted), row.expectedInstalls(spend: 1) != nil else {
            return "<p><strong>\(esc(row.network))</strong>: \(esc(row.advice)).</p>"
        }
        let headroom = row.headroomSpend.map(Formatting.plotted)
        let largest = row.maxSpend.map(Formatting.plotted) ?? current
        let maxSpend = max(largest, current, headroom ?? 0) * 1.15
        let maxInstalls = max(row.expectedInstalls(spend: maxSpend) ?? 1, 1) * 1.1
        let width = 400.0, height = 240.0, left = 50.0, bottom = 30.0, top = 25.0
        func x(_ spend: Double) -> Double { left + (width - left - 10) * spend / maxSpend }
        func y(_ installs: Double) -> Double { height - bottom - (height - bottom - top) * installs / maxInstalls }
        let label = "Spend response of \(row.network): installs a day against daily spend"
        var svg = "<svg role=\"img\" aria-label=\"\(esc(label))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\"><title>\(esc(label)); "
            + "today \(Formatting.money(row.currentSpend)) a day"
            + (row.headroomSpend.map { ", headroom \(Formatting.money($0)) a day" } ?? ", no headroom within the curve's range")
            + "</title>"
            + "<text x=\"\(Int(left))\" y=\"16\" font-size=\"14\" font-weight=\"bold\" fill=\"#1a1a1a\">\(esc(row.network))"
            + (row.curveForm.map { ", \($0)" } ?? "") + (row.saturated == true ? " (saturated)" : "") + "</text>"
            + "<line x1=\"\(Int(left))\" y1=\"\(f(height - bottom))\" x2=\"\(Int(width - 10))\" y2=\"\(f(height - bottom))\" stroke=\"#555\"/>"
            + "<line x1=\"\(Int(left))\" y1=\"\(Int(top))\" x2=\"\(Int(left))\" y2=\"\(f(height - bottom))\" stroke=\"#555\"/>"
            + "<text x=\"\(Int(width - 10))\" y=\"\(f(height - 8))\" font-size=\"11\" text-anchor=\"end\" fill=\"#1a1a1a\">"
            + "\(Formatting.money(maxSpend)) a day</text>"
            + "<text x=\"\(Int(left - 4))\" y=\"\(f(top + 4))\" font-size=\"11\" text-anchor=\"end\" fill=\"#1a1a1a\">"
            + "\(Int(maxInstalls.rounded()))</text>"
        // A label near the right edge is written to the left of its line, so it stays in the chart.
        func marker(_ text: String, at spend: Double, y: Double, colour: String) -> String {
            let right = x(spend) > width * 0.65
            return "<text x=\"\(f(x(spend) + (right ? -4 : 4)))\" y=\"\(f(y))\" font-size=\"11\" fill=\"\(colour)\""
                + (right ? " text-anchor=\"end\"" : "") + ">\(esc(text))</text>"
        }
        let points = (0...40).map { step -> String in
            let spend = maxSpend * Double(step) / 40
            return "\(f(x(spend))),\(f(y(row.expectedInstalls(spend: spend) ?? 0)))"
        }
        svg += "<polyline fill=\"none\" stroke=\"#2b5c9e\" stroke-width=\"2.5\" points=\"\(points.joined(separator: " "))\"/>"
        svg += "<line x1=\"\(f(x(current)))\" y1=\"\(Int(top))\" x2=\"\(f(x(current)))\" y2=\"\(f(height - bottom))\" stroke=\"#1a1a1a\" stroke-width=\"1.5\"/>"
            + marker("today \(Formatting.money(row.currentSpend))", at: current, y: top + 14, colour: "#1a1a1a")
        if let headroom {
            svg += "<line x1=\"\(f(x(headroom)))\" y1=\"\(Int(top))\" x2=\"\(f(x(headroom)))\" y2=\"\(f(height - bottom))\" stroke=\"#0b6b2e\" "
                + "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>"
                + marker("headroom \(Formatting.money(row.headroomSpend))", at: headroom, y: top + 30, colour: "#0b6b2e")
        }
        return svg + "</svg>"
    }
}
