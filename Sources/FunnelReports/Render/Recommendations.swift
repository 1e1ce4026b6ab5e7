import Foundation

/// The report's primary message: what to do about each network and campaign, and the worst friction.
struct Recommendations {
    struct Action {
        let verdict: String
        let network: String
        /// The verdict's reason in numbers, ending with the next step (which goes the verdict's way).
        let reason: String

        /// The action as one sentence.
        var sentence: String { "\(network): \(reason)." }
    }

    let actions: [Action]
    /// The campaigns with a decision (scale, cut or trim; docs/metrics.md "Money by campaign"),
    /// in the same order; holds and thin campaigns are in the campaigns table.
    let campaignActions: [Action]
    let topFriction: [FrictionRow]

    init(_ report: Report) {
        let order = ["scale": 0, "cut": 1, "trim": 2, "hold": 3, "not enough data": 4]
        actions = report.networks
            .filter { $0.network != "all" && $0.network != "organic" && order[$0.verdict.lowercased()] != nil }
            .sorted { (order[$0.verdict.lowercased()] ?? 9, -$0.spend) < (order[$1.verdict.lowercased()] ?? 9, -$1.spend) }
            .map { row in
                Action(verdict: Self.label(row.verdict), network: row.network, reason: row.reason)
            }
        campaignActions = report.campaigns
            .filter { $0.level == "campaign" && ["scale", "cut", "trim"].contains($0.verdict.lowercased()) }
            .sorted { (order[$0.verdict.lowercased()] ?? 9, -$0.spend) < (order[$1.verdict.lowercased()] ?? 9, -$1.spend) }
            .map { Action(verdict: Self.label($0.verdict), network: $0.label, reason: $0.reason) }
        topFriction = Array(report.friction.rows.filter(\.flagged)
            .sorted { ($0.usersLost ?? 0) > ($1.usersLost ?? 0) }.prefix(3))
    }

    /// The verdict as people say it ("scale", "hold", "trim", "cut").
    static func label(_ verdict: String) -> String {
        verdict.replacingOccurrences(of: "_", with: " ").lowercased()
    }
}
