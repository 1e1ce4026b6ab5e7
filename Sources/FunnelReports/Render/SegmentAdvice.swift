import Foundation

/// What the per-campaign and per-country response curves may say beside the verdicts
/// (docs/reports.md, "Spend response"): a degenerate fit (an interval for b without width) shows no
/// numbers; a campaign's curve defers to the campaign's verdict (the one rule, which reads that
/// curve); a country's advice that goes against its network's verdict is not given.
enum SegmentAdvice {
    /// The interval of b narrower than this is a degenerate fit (e.g. `1.00 [1.00-1.00]`).
    static let degenerateWidth = 0.005

    static func isDegenerate(_ row: SpendResponseRow) -> Bool {
        guard let low = row.exponentBLow, let high = row.exponentBHigh, row.exponentB != nil else { return false }
        return high - low < degenerateWidth
    }

    /// The advice a segment's row shows.
    static func advice(_ row: SpendResponseRow, _ report: Report) -> String {
        if isDegenerate(row) {
            return "degenerate fit (no spread in the exponent: too little variation in daily spend to read a curve); "
                + "no advice from it"
        }
        if row.campaign != "all",
           let campaign = report.campaigns.first(where: {
               $0.network == row.network && $0.campaign == row.campaign && $0.country == "all"
           }), campaign.verdict != "n/a" {
            return "campaign verdict: \(Recommendations.label(campaign.verdict)) (the reason under Campaigns reads this curve)"
        }
        let verdict = Recommendations.label(report.networks.first { $0.network == row.network }?.verdict ?? "n/a")
        let raises = row.advice.contains("raise"), lowers = row.advice.contains("lower")
        if (raises && ["cut", "trim"].contains(verdict)) || (lowers && verdict == "scale") {
            return "the curve alone would \(raises ? "raise" : "lower") spend, but the network's verdict is \(verdict): "
                + "follow the network's"
        }
        return row.advice
    }
}
