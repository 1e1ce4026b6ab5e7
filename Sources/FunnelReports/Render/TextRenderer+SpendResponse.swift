import Foundation

extension TextRenderer {
    /// SPEND RESPONSE: per paid network the curve's exponent with its interval, the current daily
    /// spend, average and marginal CPI, the headroom and the advice; then the inflated days.
    static func spendResponse(_ report: Report, _ out: inout TextBuilder) {
        let section = report.spendResponse
        guard !section.networks.isEmpty else { return }
        out.section("SPEND RESPONSE (installs = a * spend^b; marginal CPI at today's spend)")
        let rows = section.networks.map { row -> [String] in
            let exponent = row.exponentB.map { b in
                "\(Formatting.ratio(b)) (\(Formatting.ratio(row.exponentBLow))-\(Formatting.ratio(row.exponentBHigh)))"
            } ?? Formatting.missing
            return [row.network, exponent, Formatting.money(row.currentSpend), Formatting.money(row.averageCpi),
                    Formatting.money(row.marginalCpi), Formatting.money(row.ltvD180), Formatting.money(row.headroomSpend),
                    row.saturated.map { $0 ? "SATURATED" : "no" } ?? Formatting.missing]
        }
        out.table(["network", "b (90%)", "spend/day", "avg CPI", "marg. CPI", "D180 LTV", "headroom", "saturated"], rows)
        for row in section.networks {
            out.wrapped("\(row.network): \(row.advice).", indent: "  ", hanging: "    ")
        }
        out.wrapped("spend/day: mean of the last 14 days with spend; headroom: the daily spend where the marginal CPI "
            + "meets the projected D180 LTV; saturated: marginal CPI at least 1.3x the average.", indent: "  ", hanging: "  ")
        guard !section.inflatedDays.isEmpty else { return }
        out.line("  Days with an abnormally high CPI (against the network's own trend):")
        let days = section.inflatedDays.prefix(15).map { day in
            [day.network, day.date, Formatting.money(day.spend), Formatting.grouped(day.paidInstalls),
             Formatting.money(day.cpi), Formatting.money(day.expectedCpi), Formatting.money(day.excessCost)]
        }
        out.table(["network", "date", "spend", "paid", "CPI", "expected", "excess cost"], Array(days), indent: "    ")
    }
}
