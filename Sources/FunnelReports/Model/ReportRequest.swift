/// What to report on: which app, which install cohort dates, which breakdowns.
public struct ReportRequest: Sendable, Equatable {
    /// The dimensions `--by` accepts.
    public enum Breakdown: String, Sendable, CaseIterable, Codable {
        case network, campaign, country, platform
    }

    /// The app to report on; nil picks the app with the most installs.
    public var app: String?
    /// First install cohort date (YYYY-MM-DD), inclusive; nil for open-ended.
    public var from: String?
    /// Last install cohort date (YYYY-MM-DD), inclusive; nil for open-ended.
    public var to: String?
    public var breakdowns: [Breakdown]

    public init(app: String? = nil, from: String? = nil, to: String? = nil, breakdowns: [Breakdown] = []) {
        self.app = app
        self.from = from
        self.to = to
        self.breakdowns = breakdowns
    }

    /// Caveats for the sections a breakdown or date range does not apply to.
    var notes: [String] {
        var notes: [String] = []
        if from != nil || to != nil {
            notes.append("--from/--to limit the funnel, the retention triangle and spend/CPI to those "
                + "install cohorts; LTV, k-factor and verdicts cover every computed cohort (scope them with "
                + "'funnel compute --full --from ... --to ...').")
        }
        let finer = breakdowns.filter { $0 != .network }.map(\.rawValue)
        if !finer.isEmpty {
            notes.append("--by \(finer.joined(separator: ",")): broken down in the funnel"
                + (breakdowns.contains(.campaign) || breakdowns.contains(.country) ? " and spend/CPI (at the spend's grain)" : "")
                + "; money and verdicts per campaign are under CAMPAIGNS (Campaigns in HTML)"
                + (breakdowns.contains(.country) ? " (with each campaign's countries)" : "")
                + "; retention, the LTV curves and k-factor are per network only"
                + (breakdowns.contains(.platform) ? "; spend has no platform, so CPI is not split by platform" : "")
                + ".")
        }
        return notes
    }
}
