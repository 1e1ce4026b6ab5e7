public import Foundation
import PostgresClient

/// Money at the grain a team buys at (campaigns.csv; fct_campaigns, docs/metrics.md "Money by
/// campaign"): one network (campaign `all`), campaign (country `all`) or campaign and country.
/// LTV and ROAS on days 7, 30 and 90 are chained (they never fall but by refunds); LTV_D180 is
/// the network's projection scaled by the campaign's LTV_D7 pooled toward its network.
public struct CampaignRow: Sendable, Codable, Equatable {
    public var network, campaign, country: String
    public var cohorts, installs, paidInstalls, payers: Int
    public var spend: Decimal
    public var cpi, ltvD7, ltvD30, ltvD90: Decimal?
    public var roasD7, roasD30, roasD90: Double?
    public var observedLtvD7, pooledLtvD7: Decimal?
    /// The weight of the campaign's own data in its pooled LTV (1 for a network).
    public var poolingWeight: Double?
    public var ltvProjectedD180, ltvD180Low, ltvD180High: Decimal?
    public var roasProjectedD180: Double?
    public var paybackDay: Int?
    public var paybackBasis: String?
    public var verdict, reason: String

    /// "network", "campaign" or "country".
    public var level: String { campaign == "all" ? "network" : country == "all" ? "campaign" : "country" }

    /// The row's name: the network, "network / campaign" or "network / campaign / country"
    /// (country "" is spend stated without one: "(no country)"; campaign "" is "(none)").
    public var label: String {
        let campaignName = campaign.isEmpty ? "(none)" : campaign
        switch level {
        case "network": return network
        case "campaign": return "\(network) / \(campaignName)"
        default: return "\(network) / \(campaignName) / \(country.isEmpty ? "(no country)" : country)"
        }
    }

    private enum CodingKeys: String, CodingKey {
        case network, campaign, country, cohorts, installs
        case paidInstalls = "paid_installs"
        case payers, spend, cpi
        case ltvD7 = "ltv_d7"
        case ltvD30 = "ltv_d30"
        case ltvD90 = "ltv_d90"
        case roasD7 = "roas_d7"
        case roasD30 = "roas_d30"
        case roasD90 = "roas_d90"
        case observedLtvD7 = "observed_ltv_d7"
        case pooledLtvD7 = "pooled_ltv_d7"
        case poolingWeight = "pooling_weight"
        case ltvProjectedD180 = "ltv_projected_d180"
        case ltvD180Low = "ltv_d180_low"
        case ltvD180High = "ltv_d180_high"
        case roasProjectedD180 = "roas_projected_d180"
        case paybackDay = "payback_day"
        case paybackBasis = "payback_basis"
        case verdict, reason
    }
}

extension CampaignRow {
    init(_ row: PostgresRow) throws {
        self.init(network: try row.text("network"), campaign: try row.text("campaign"), country: try row.text("country"),
                  cohorts: try row.int("cohorts"), installs: try row.int("installs"),
                  paidInstalls: try row.int("paid_installs"), payers: try row.int("payers"),
                  spend: try row.money("spend") ?? 0, cpi: try row.money("cpi"), ltvD7: try row.money("ltv_d7"),
                  ltvD30: try row.money("ltv_d30"), ltvD90: try row.money("ltv_d90"), roasD7: try row.number("roas_d7"),
                  roasD30: try row.number("roas_d30"), roasD90: try row.number("roas_d90"),
                  observedLtvD7: try row.money("observed_ltv_d7"), pooledLtvD7: try row.money("pooled_ltv_d7"),
                  poolingWeight: try row.number("pooling_weight"), ltvProjectedD180: try row.money("ltv_projected_d180"),
                  ltvD180Low: try row.money("ltv_d180_low"), ltvD180High: try row.money("ltv_d180_high"),
                  roasProjectedD180: try row.number("roas_projected_d180"), paybackDay: try row.optionalInt("payback_day"),
                  paybackBasis: try row.optionalText("payback_basis"), verdict: try row.text("verdict"),
                  reason: try row.text("reason"))
    }
}
