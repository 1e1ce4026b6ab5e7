import Foundation
import FunnelCore
import FunnelSQL
import PostgresClient

extension ComputeEngine {
    /// Writes fct_campaigns (docs/metrics.md, "Money by campaign"): the observed figures per
    /// network, campaign and campaign and country (fct_campaigns.sql), then per campaign its LTV_D7
    /// pooled toward its network (`CampaignPooling`), the projected LTV_D180 with its interval
    /// (the network's projection scaled by the pooled LTV), the ROAS there, a payback day past
    /// the observed days (the scaled projection reaching the CPI), and the verdict of the one rule
    /// (`NetworkVerdict`) with the campaign's response curve. The network rows carry the
    /// network's projection and verdict (fct_networks). Runs after the verdicts.
    func buildCampaigns(_ connection: PostgresConnection) throws {
        try connection.execute(SQLCatalog.text("marts/metrics/fct_campaigns.sql"))
        try connection.execute("""
            update fct_campaigns k
            set ltv_projected_d180 = n.ltv_projected_d180, ltv_d180_low = n.ltv_d180_low, ltv_d180_high = n.ltv_d180_high,
                roas_projected_d180 = case when k.cpi > 0 then (n.ltv_projected_d180 / k.cpi)::float8 end,
                payback_day = n.payback_day, payback_basis = n.payback_basis, verdict = n.verdict, reason = n.reason,
                pooling_weight = 1
            from fct_networks n
            where n.app_id = k.app_id and n.network = k.network and k.campaign = 'all' and k.country = 'all'
            """)
        // Cohorts per (app, network, level) and campaign key: level "campaign" pools the
        // network's campaigns, level "country" its campaigns' countries.
        var cohorts: [String: [String: [CampaignPooling.Cohort]]] = [:]
        for row in try connection.query(SQLCatalog.text("marts/metrics/fct_campaigns.pooling_inputs.sql"),
                                        [CampaignPooling.day]) {
            let app = try row.decode(String.self, at: 0), network = try row.decode(String.self, at: 1)
            let campaign = try row.decode(String.self, at: 2), country = try row.decode(String.self, at: 3)
            let group = Self.poolingGroup(app: app, network: network, byCountry: country != "all")
            cohorts[group, default: [:]][Self.poolingKey(campaign: campaign, country: country), default: []]
                .append(CampaignPooling.Cohort(installs: try row.decode(Int.self, at: 5),
                                               revenue: try row.decode(Double.self, at: 6)))
        }
        let pooled = cohorts.mapValues { CampaignPooling.pool($0) }
        var projections: [String: [(day: Int, ltv: Double)]] = [:]
        for row in try connection.query("select app_id, network, day, ltv::float8 from fct_ltv_projection order by 1, 2, 3") {
            projections[try row.decode(String.self, at: 0) + "\u{1}" + row.decode(String.self, at: 1), default: []]
                .append((try row.decode(Int.self, at: 2), try row.decode(Double.self, at: 3)))
        }
        let settings = try connection.query("""
            select double_down_ratio::float8, cut_ratio::float8, min_installs, min_payers, ltv_horizon
            from compute_settings where app_id = ''
            """)
        guard let setting = settings.rows.first else { return }
        let rule = NetworkVerdict.Rule(scaleRatio: try setting.decode(Double.self, at: 0),
                                       cutRatio: try setting.decode(Double.self, at: 1),
                                       minInstalls: try setting.decode(Int.self, at: 2),
                                       minPayers: try setting.decode(Int.self, at: 3))
        let horizon = try setting.decode(Int.self, at: 4)
        for row in try connection.query(SQLCatalog.text("marts/metrics/fct_campaigns.verdict_inputs.sql"),
                                        [NetworkVerdict.paceDays]) {
            let app = try row.decode(String.self, at: 0), network = try row.decode(String.self, at: 1)
            let campaign = try row.decode(String.self, at: 2), country = try row.decode(String.self, at: 3)
            let installs = try row.decode(Int.self, at: 4), payers = try row.decode(Int.self, at: 6)
            let cpi = try row.decode(Double?.self, at: 8)
            let group = pooled[Self.poolingGroup(app: app, network: network, byCountry: country != "all")]
            let estimate = group?.estimates[Self.poolingKey(campaign: campaign, country: country)]
            var ltv: (ltv: Double, low: Double, high: Double)?
            if let projection = try row.decode(Double?.self, at: 9) {
                let low = try row.decode(Double?.self, at: 10) ?? projection
                let high = try row.decode(Double?.self, at: 11) ?? projection
                ltv = estimate.map {
                    CampaignPooling.project($0, networkLTV: group?.networkLTV, projection: projection, low: low, high: high)
                } ?? (projection, low, high)
            }
            let ratio = estimate.flatMap { e in group?.networkLTV.flatMap { $0 > 0 ? e.pooled / $0 : nil } } ?? 1
            let observedPayback = try row.decode(Int?.self, at: 20)
            var payback: (day: Int?, basis: String?) = (observedPayback, observedPayback == nil ? nil : "observed")
            if observedPayback == nil, let cpi, let curve = projections[app + "\u{1}" + network], !curve.isEmpty {
                if let day = curve.first(where: { $0.ltv * ratio >= cpi })?.day {
                    payback = (day, "projected")
                } else {
                    payback = (nil, "beyond D\(horizon)")
                }
            }
            let recent = Double(try row.decode(Int.self, at: 17)) / Double(NetworkVerdict.paceDays)
            var curve: NetworkVerdict.Curve?
            if try row.decode(String?.self, at: 12) == "fitted", let current = try row.decode(Double?.self, at: 13),
               let marginal = try row.decode(Double?.self, at: 14) {
                curve = NetworkVerdict.Curve(currentSpend: current, marginalCPI: marginal,
                                             headroomSpend: try row.decode(Double?.self, at: 15))
            }
            let noCurve = country == "all"
                ? try row.decode(String?.self, at: 16) ?? "no response curve for the campaign"
                : "response curves are per campaign and per country, not both"
            let input = NetworkVerdict.Inputs(
                network: network, installs: installs, paidInstalls: try row.decode(Int.self, at: 5), payers: payers,
                spend: try row.decode(Double.self, at: 7), cpi: cpi, ltv: ltv?.ltv, ltvLow: ltv?.low,
                ltvHigh: ltv?.high, ltvProjected: true, curve: curve, noCurveReason: curve == nil ? noCurve : nil,
                installsPerDay: recent, payersPerDay: installs > 0 ? recent * Double(payers) / Double(installs) : 0,
                lastDay: try row.decode(Int?.self, at: 19), firstDay: try row.decode(Int?.self, at: 18))
            let outcome = NetworkVerdict.decide(input, rule: rule)
            var reason = outcome.reason
            if let estimate, ltv != nil, outcome.verdict != "n/a" {
                reason = CampaignPooling.reasonPrefix(network: network, estimate) + reason
            }
            try connection.query("""
                update fct_campaigns
                set observed_ltv_d7 = round($5::numeric, 6), pooled_ltv_d7 = round($6::numeric, 6),
                    pooling_weight = $7::float8, ltv_projected_d180 = round($8::numeric, 6),
                    ltv_d180_low = round($9::numeric, 6), ltv_d180_high = round($10::numeric, 6),
                    roas_projected_d180 = case when cpi > 0 then round($8::numeric, 6)::float8 / cpi::float8 end,
                    payback_day = $11, payback_basis = $12, verdict = $13, reason = $14
                where app_id = $1 and network = $2 and campaign = $3 and country = $4
                """, [app, network, campaign, country, estimate?.observed, estimate?.pooled, estimate?.weight,
                      ltv?.ltv, ltv?.low, ltv?.high, payback.day, payback.basis, outcome.verdict, reason])
        }
    }

    static func poolingGroup(app: String, network: String, byCountry: Bool) -> String {
        app + "\u{1}" + network + "\u{1}" + (byCountry ? "country" : "campaign")
    }

    static func poolingKey(campaign: String, country: String) -> String { campaign + "\u{1}" + country }
}
