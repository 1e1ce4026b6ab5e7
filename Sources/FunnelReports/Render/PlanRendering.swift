import Foundation

/// The report's "Plan" section (fct_plan), shared by the text and HTML renderers: the table's
/// header, rows and the sentence above it.
enum PlanRendering {
    static func header(_ plan: [PlanRow]) -> [String] {
        let horizon = plan.first.map { "D\($0.horizonDay)" } ?? "D180"
        return ["network", "today", "planned", "change", "installs", "CPI", "ROAS \(horizon)", "interval", "marginal", "note"]
    }

    static func rows(_ plan: [PlanRow]) -> [[String]] {
        plan.map { row in
            let today = Formatting.plotted(row.todaySpend), planned = Formatting.plotted(row.plannedSpend)
            let change = today > 0 ? String(format: "%+.0f%%", (planned / today - 1) * 100) : Formatting.missing
            let interval = row.roasLow.flatMap { low in row.roasHigh.map { "\(Formatting.ratio(low))–\(Formatting.ratio($0))" } }
            return [row.network, Formatting.money(row.todaySpend), Formatting.money(row.plannedSpend), change,
                    String(format: "%.1f", row.installs), Formatting.money(row.cpi), Formatting.ratio(row.roas),
                    interval ?? Formatting.missing, Formatting.ratio(row.marginalReturn), row.note]
        }
    }

    /// What the plan is, in one sentence.
    static func sentence(_ plan: [PlanRow]) -> String? {
        guard let first = plan.first else { return nil }
        var text = "For today's total of \(Formatting.money(first.budget)) a day, the split that maximises projected "
            + "D\(first.horizonDay) revenue (\(first.status))"
        if let level = plan.first(where: { $0.network == "all" })?.marginalReturn {
            text += String(format: ": every network not at a bound earns %.2f on its next dollar", level)
        }
        return text + ". No network goes past 3x its largest day seen; 'funnel plan --budget AMOUNT' plans another budget."
    }
}
