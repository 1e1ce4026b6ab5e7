import Foundation

extension TextRenderer {
    /// SPEND RESPONSE: per paid network the curve's exponent with its interval, the current daily
    /// spend, average and marginal CPI, the headroom and the advice; then the inflated days.
    static func spendResponse(_ report: Report, _ out: inout TextBuilder) {
        let section = report.spendResponse
        guard !section.networks.isEmpty else { return }
        out.section("SPEND RESPONSE (installs against daily spend; marginal CPI at today's spend)")
        out.table(["network", "curve", "b (90%)", "spend/day", "avg CPI", "marg. CPI", "D180 LTV", "headroom", "saturated"],
                  section.networks.map(tableRow))
        for row in section.networks {
            out.wrapped("\(row.network): \(row.advice).", indent: "  ", hanging: "    ")
        }
        out.wrapped("curve: power law (installs = a * spend^b) or saturating (M * spend / (K + spend)), the one "
            + "that fits better by AIC; spend/day: mean of the last 14 days with spend; headroom: "
            + "the daily spend where the marginal CPI meets the projected D180 LTV; saturated: marginal CPI at least "
            + "1.3x the average.", indent: "  ", hanging: "  ")
        if !section.segments.isEmpty {
            out.line("  Per campaign and per country:")
            out.table(["segment", "curve", "b (90%)", "spend/day", "avg CPI", "marg. CPI", "D180 LTV", "headroom", "saturated"],
                      section.segments.map { row in
                          var cells = tableRow(row)
                          cells[0] = row.network + " / " + (row.campaign != "all" ? "campaign " + (row.campaign.isEmpty ? "(none)" : row.campaign)
                                                            : "country " + (row.country.isEmpty ? "(none)" : row.country))
                          if row.exponentB == nil { cells[1] = row.status }
                          if SegmentAdvice.isDegenerate(row) {
                              cells[2] = "degenerate"
                              cells[5] = Formatting.missing
                              cells[7] = Formatting.missing
                          }
                          return cells
                      }, indent: "    ")
        }
        hourly(section, &out)
        guard !section.inflatedDays.isEmpty else { return }
        out.line("  Days with an abnormally high CPI (against the network's own trend):")
        let days = section.inflatedDays.prefix(15).map { day in
            [day.network, day.date, Formatting.money(day.spend), Formatting.grouped(day.paidInstalls),
             Formatting.money(day.cpi), Formatting.money(day.expectedCpi), Formatting.money(day.excessCost)]
        }
        out.table(["network", "date", "spend", "paid", "CPI", "expected", "excess cost"], Array(days), indent: "    ")
    }

    private static func tableRow(_ row: SpendResponseRow) -> [String] {
        let exponent = row.exponentB.map { b in
            "\(Formatting.ratio(b)) (\(Formatting.ratio(row.exponentBLow))-\(Formatting.ratio(row.exponentBHigh)))"
        } ?? Formatting.missing
        return [row.network, row.curveForm ?? Formatting.missing, exponent, Formatting.money(row.currentSpend),
                Formatting.money(row.averageCpi), Formatting.money(row.marginalCpi), Formatting.money(row.ltvD180),
                Formatting.money(row.headroomSpend), row.saturated.map { $0 ? "SATURATED" : "no" } ?? Formatting.missing]
    }

    /// CPI by hour of day, one line per network and hour, when the spend rows carry hours.
    private static func hourly(_ section: SpendResponseSection, _ out: inout TextBuilder) {
        guard !section.cpiByHour.isEmpty else { return }
        out.wrapped("CPI by hour of day (reporting time zone; days whose spend rows carry an hour; index: the hour's "
            + "CPI over the network's):", indent: "  ", hanging: "  ")
        out.table(["network", "hour", "days", "spend", "paid", "CPI", "index"],
                  section.cpiByHour.map { row in
                      [row.network, String(format: "%02d", row.hour), String(row.days), Formatting.money(row.spend),
                       Formatting.grouped(row.paidInstalls), Formatting.money(row.cpi), Formatting.ratio(row.cpiIndex)]
                  }, indent: "    ")
    }
}
