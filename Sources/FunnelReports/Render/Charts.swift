import Foundation

/// Inline SVG charts for the HTML report. Each has a `<title>` and an `aria-label`; values are
/// written as text beside the marks, so no chart relies on colour alone.
enum Charts {
    private static func esc(_ text: String) -> String { HTMLRenderer.escape(text) }
    private static func f(_ value: Double) -> String { String(format: "%.1f", value) }

    /// Horizontal bars, one per step, labelled with users and conversion from the previous step.
    static func funnel(_ rows: [FunnelRow]) -> String {
        guard let first = rows.first, first.users > 0 else { return "" }
        let barHeight = 34.0, width = 800.0, labelWidth = 200.0
        let height = Double(rows.count) * barHeight + 10
        var svg = "<svg role=\"img\" aria-label=\"Funnel: users reaching each step\" viewBox=\"0 0 \(Int(width)) \(Int(height))\">"
            + "<title>Funnel: users reaching each step, with conversion from the previous step</title>"
        for (index, row) in rows.enumerated() {
            let y = Double(index) * barHeight + 5
            let length = (width - labelWidth - 230) * Double(row.users) / Double(first.users)
            let conversion = row.conversionFromPrevious.map { " · \(Formatting.percent($0)) of previous" } ?? ""
            svg += "<text x=\"0\" y=\"\(f(y + 21))\" font-size=\"14\" fill=\"#1a1a1a\">\(esc(row.step))</text>"
                + "<rect x=\"\(Int(labelWidth))\" y=\"\(f(y + 4))\" width=\"\(f(max(1, length)))\" height=\"\(f(barHeight - 10))\" fill=\"#2b5c9e\">"
                + "<title>\(esc(row.step)): \(row.users) users\(esc(conversion))</title></rect>"
                + "<text x=\"\(f(labelWidth + max(1, length) + 6))\" y=\"\(f(y + 21))\" font-size=\"13\" fill=\"#1a1a1a\">"
                + "\(Formatting.grouped(row.users))\(esc(conversion))</text>"
        }
        return svg + "</svg>"
    }

    /// Cohorts (rows) by day (columns), darker = more retained; each cell's rate is in its title
    /// and, when cells are big enough, written in it.
    static func retentionHeatMap(_ rows: [RetentionRow]) -> String {
        guard !rows.isEmpty else { return "<p>No mature retention cells yet.</p>" }
        let cohorts = Array(Set(rows.map(\.cohortDate))).sorted()
        let days = Array(0...min(30, rows.map(\.day).max() ?? 0))
        let cell = 24.0, left = 90.0, top = 20.0, legendHeight = 34.0
        let width = max(left + Double(days.count) * cell + 10, left + 6 * 44 + 10)
        let height = top + Double(cohorts.count) * 14 + 10 + legendHeight
        let rowHeight = 14.0
        var svg = "<svg role=\"img\" aria-label=\"Retention heat map: classic day-N retention by install cohort\" "
            + "viewBox=\"0 0 \(Int(width)) \(Int(height))\"><title>Retention heat map: share of each install cohort active on day N "
            + "(blank = immature)</title>"
        for (index, day) in days.enumerated() where day % 5 == 0 || days.count <= 15 {
            svg += "<text x=\"\(f(left + Double(index) * cell + cell / 2))\" y=\"14\" font-size=\"10\" text-anchor=\"middle\" fill=\"#1a1a1a\">D\(day)</text>"
        }
        let byKey = Dictionary(rows.map { ("\($0.cohortDate)|\($0.day)", $0) }, uniquingKeysWith: { a, _ in a })
        for (rowIndex, cohort) in cohorts.enumerated() {
            let y = top + Double(rowIndex) * rowHeight
            if cohorts.count <= 31 || rowIndex % 7 == 0 {
                svg += "<text x=\"0\" y=\"\(f(y + 11))\" font-size=\"10\" fill=\"#1a1a1a\">\(esc(cohort))</text>"
            }
            for (index, day) in days.enumerated() {
                guard let value = byKey["\(cohort)|\(day)"], let rate = value.rate else { continue }
                let shade = day == 0 ? 1 : min(1, rate * 2)
                let lightness = Int(95 - 65 * shade)
                svg += "<rect x=\"\(f(left + Double(index) * cell))\" y=\"\(f(y))\" width=\"\(f(cell - 1))\" height=\"\(f(rowHeight - 1))\" "
                    + "fill=\"hsl(212,60%,\(lightness)%)\"><title>\(esc(cohort)) day \(day): \(Formatting.percent(rate)) "
                    + "(\(value.retained) of \(value.cohortSize))</title></rect>"
            }
        }
        svg += heatMapLegend(x: left, y: height - legendHeight + 6)
        return "<div class=\"scroll\">" + svg + "</svg></div>"
    }

    /// One network's LTV curve: observed (solid: the chained curve, which cannot fall, on the days
    /// enough installs back), projected (dashed, with its interval as a band), and the CPI as a
    /// horizontal line.
    static func ltvCurve(network: String, points: [LTVRow], cpi: Decimal?) -> String {
        let observed = points.filter { !$0.projected && $0.shown && ($0.ltvChained ?? $0.ltv) != nil }
            .map { row -> LTVRow in
                var chained = row
                chained.ltv = row.ltvChained ?? row.ltv
                return chained
            }
            .sorted { $0.day < $1.day }
        let hidden = points.contains { !$0.projected && !$0.shown }
        let projected = points.filter { $0.projected && $0.ltv != nil }.sorted { $0.day < $1.day }
        guard !observed.isEmpty || !projected.isEmpty else { return "" }
        let lastDay = Double(max(observed.last?.day ?? 0, projected.last?.day ?? 0, 1))
        let dayTicks = ticks(upTo: lastDay)
        let maxDay = max(lastDay, dayTicks.last ?? lastDay)
        let highest = ([cpi ?? 0] + points.compactMap { $0.ltvHigh ?? $0.ltv }).max().map(Formatting.plotted)
        let valueTicks = ticks(upTo: max(highest ?? 1, 0.01) * 1.05)
        let maxValue = max(valueTicks.last ?? 1, max(highest ?? 1, 0.01) * 1.05)
        let width = 400.0, height = 240.0, left = 50.0, bottom = 30.0, top = 25.0
        func x(_ day: Int) -> Double { left + (width - left - 10) * Double(day) / maxDay }
        func y(_ value: Decimal) -> Double { height - bottom - (height - bottom - top) * Formatting.plotted(value) / maxValue }
        func xAt(_ day: Double) -> Double { left + (width - left - 10) * day / maxDay }
        func yAt(_ value: Double) -> Double { height - bottom - (height - bottom - top) * value / maxValue }
        let label = "LTV curve of \(network) against its CPI"
        var svg = "<svg role=\"img\" aria-label=\"\(esc(label))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\"><title>\(esc(label)): "
            + "observed to day \(observed.last?.day ?? 0)"
            + (hidden ? " (later days rest on fewer than 10% of the installs and are not drawn)" : "")
            + (projected.last.map { ", projected to day \($0.day) (\(Formatting.money($0.ltv)))" } ?? "")
            + (cpi.map { ", CPI \(Formatting.money($0))" } ?? ", no CPI") + "</title>"
            + "<text x=\"\(Int(left))\" y=\"16\" font-size=\"14\" font-weight=\"bold\" fill=\"#1a1a1a\">\(esc(network))</text>"
            + "<line x1=\"\(Int(left))\" y1=\"\(f(height - bottom))\" x2=\"\(Int(width - 10))\" y2=\"\(f(height - bottom))\" stroke=\"#555\"/>"
            + "<line x1=\"\(Int(left))\" y1=\"\(Int(top))\" x2=\"\(Int(left))\" y2=\"\(f(height - bottom))\" stroke=\"#555\"/>"
        for day in dayTicks {
            svg += "<line x1=\"\(f(xAt(day)))\" y1=\"\(f(height - bottom))\" x2=\"\(f(xAt(day)))\" y2=\"\(f(height - bottom + 4))\" stroke=\"#555\"/>"
                + "<text x=\"\(f(xAt(day)))\" y=\"\(f(height - bottom + 15))\" font-size=\"10\" text-anchor=\"middle\" fill=\"#1a1a1a\">\(Int(day))</text>"
        }
        svg += "<text x=\"\(Int(width - 10))\" y=\"\(f(height - 2))\" font-size=\"10\" text-anchor=\"end\" fill=\"#444\">days since install</text>"
        for value in valueTicks {
            svg += "<line x1=\"\(f(left - 4))\" y1=\"\(f(yAt(value)))\" x2=\"\(Int(width - 10))\" y2=\"\(f(yAt(value)))\" stroke=\"#e3e3e3\"/>"
                + "<text x=\"\(Int(left - 6))\" y=\"\(f(yAt(value) + 4))\" font-size=\"10\" text-anchor=\"end\" fill=\"#1a1a1a\">"
                + "\(Formatting.money(Decimal(value)))</text>"
        }
        if let last = observed.last, !projected.isEmpty {
            let band = [(last.day, last.ltv!)] + projected.map { ($0.day, $0.ltvHigh ?? $0.ltv!) }
            let lower = ([(last.day, last.ltv!)] + projected.map { ($0.day, $0.ltvLow ?? $0.ltv!) }).reversed()
            svg += "<polygon fill=\"#c9daf0\" points=\"" + (band + lower).map { "\(f(x($0.0))),\(f(y($0.1)))" }.joined(separator: " ") + "\"/>"
        }
        if !observed.isEmpty {
            svg += "<polyline fill=\"none\" stroke=\"#2b5c9e\" stroke-width=\"2.5\" points=\""
                + observed.map { "\(f(x($0.day))),\(f(y($0.ltv!)))" }.joined(separator: " ") + "\"/>"
        }
        if !projected.isEmpty {
            let start = observed.last.map { [($0.day, $0.ltv!)] } ?? []
            svg += "<polyline fill=\"none\" stroke=\"#2b5c9e\" stroke-width=\"2\" stroke-dasharray=\"6 4\" points=\""
                + (start + projected.map { ($0.day, $0.ltv!) }).map { "\(f(x($0.0))),\(f(y($0.1)))" }.joined(separator: " ") + "\"/>"
            for point in projected {
                svg += "<circle cx=\"\(f(x(point.day)))\" cy=\"\(f(y(point.ltv!)))\" r=\"3\" fill=\"#2b5c9e\"><title>day \(point.day) "
                    + "projected \(Formatting.money(point.ltv)) [\(Formatting.money(point.ltvLow))–\(Formatting.money(point.ltvHigh))]</title></circle>"
            }
        }
        if let cpi {
            svg += "<line x1=\"\(Int(left))\" y1=\"\(f(y(cpi)))\" x2=\"\(Int(width - 10))\" y2=\"\(f(y(cpi)))\" stroke=\"#a4161a\" stroke-width=\"1.5\"/>"
                + "<text x=\"\(Int(width - 12))\" y=\"\(f(y(cpi) - 4))\" font-size=\"11\" text-anchor=\"end\" fill=\"#a4161a\">CPI \(Formatting.money(cpi))</text>"
        }
        return svg + "</svg>"
    }

    /// The heat map's colour key: one swatch per retention level, 50% and above the darkest
    /// (day 0 is 100% by definition and drawn darkest too).
    static func heatMapLegend(x: Double, y: Double) -> String {
        var svg = "<g class=\"legend\" aria-label=\"Colour key: darker cells retained more\">"
            + "<text x=\"\(f(x - 6))\" y=\"\(f(y + 11))\" font-size=\"10\" text-anchor=\"end\" fill=\"#1a1a1a\">retained</text>"
        for (index, rate) in [0.0, 0.1, 0.2, 0.3, 0.4, 0.5].enumerated() {
            let lightness = Int(95 - 65 * min(1, rate * 2))
            let left = x + Double(index) * 44
            svg += "<rect x=\"\(f(left))\" y=\"\(f(y))\" width=\"40\" height=\"14\" fill=\"hsl(212,60%,\(lightness)%)\" stroke=\"#999\" stroke-width=\"0.5\"/>"
                + "<text x=\"\(f(left + 20))\" y=\"\(f(y + 26))\" font-size=\"10\" text-anchor=\"middle\" fill=\"#1a1a1a\">"
                + "\(Int(rate * 100))%\(rate == 0.5 ? "+" : "")</text>"
        }
        return svg + "</g>"
    }

    /// Round tick values from 0 to at least `maximum`: about `count` steps of 1, 2 or 5 x 10^n.
    static func ticks(upTo maximum: Double, count: Int = 4) -> [Double] {
        guard maximum > 0, maximum.isFinite else { return [0] }
        let raw = maximum / Double(count)
        let magnitude = pow(10, floor(log10(raw)))
        let step = [1.0, 2.0, 2.5, 5.0, 10.0].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
        return stride(from: 0.0, through: maximum + step * 1e-9, by: step).map { $0 }
    }
}
