import Foundation

/// The report's primary message: what to do about each network and the worst friction.
struct Recommendations {
    struct Action {
        let verdict: String
        let network: String
        let reason: String
        /// What the network's spend-response curve says about its budget (docs/metrics.md, "Spend
        /// response"), when it has a curve.
        let spendAdvice: String?

        /// The action as one sentence: the reason, the next step, and the curve's advice.
        var sentence: String {
            "\(network): \(reason). Next: \(Recommendations.nextStep(verdict))."
                + (spendAdvice.map { " Spend curve: \($0)." } ?? "")
        }
    }

    let actions: [Action]
    let topFriction: [FrictionRow]

    init(_ report: Report) {
        let order = ["double down": 0, "double_down": 0, "cut": 1, "hold": 2]
        actions = report.networks
            .filter { $0.network != "all" && $0.network != "organic" && order[$0.verdict.lowercased()] != nil }
            .sorted { (order[$0.verdict.lowercased()] ?? 9, -$0.spend) < (order[$1.verdict.lowercased()] ?? 9, -$1.spend) }
            .map { row in
                Action(verdict: Self.label(row.verdict), network: row.network, reason: row.reason,
                       spendAdvice: report.spendResponse.networks.first { $0.network == row.network && $0.exponentB != nil }?.advice)
            }
        topFriction = Array(report.friction.rows.filter(\.flagged)
            .sorted { ($0.usersLost ?? 0) > ($1.usersLost ?? 0) }.prefix(3))
    }

    /// The verdict as people say it ("double down", "hold", "cut").
    static func label(_ verdict: String) -> String {
        verdict.replacingOccurrences(of: "_", with: " ").lowercased()
    }

    /// The natural next step for a verdict.
    static func nextStep(_ verdict: String) -> String {
        switch label(verdict) {
        case "double down": "raise its budget while CPI holds"
        case "cut": "cut or renegotiate its spend"
        default: "keep spend steady and watch the next cohorts"
        }
    }
}
