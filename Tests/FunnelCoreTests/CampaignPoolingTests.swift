import Foundation
import FunnelCore
import Testing

/// The empirical-Bayes pooling of a campaign's LTV toward its network (docs/metrics.md, "Money by
/// campaign"), on hand-computed cases.
@Suite("Campaign pooling")
struct CampaignPoolingTests {
    typealias Cohort = CampaignPooling.Cohort

    /// A: cohorts of 100 installs earning $100 and $140 (LTV $1.20); B: two cohorts of 20 earning
    /// $60 each (LTV $3.00). sigma^2 = (100 x 0.2^2 + 100 x 0.2^2 + 0) / (1 + 1) = 4; network LTV
    /// 360 / 240 = $1.50; Q = 200 x 0.3^2 + 40 x 1.5^2 = 108; N - sum n^2 / N = 240 - 41600 / 240
    /// = 66.667; tau^2 = (108 - 4) / 66.667 = 1.56. Weights: A 1.56 / (1.56 + 4 / 200) = 0.98734,
    /// B (40 installs) 1.56 / (1.56 + 4 / 40) = 0.93976; B pooled = 0.93976 x 3 + 0.06024 x 1.5 = $2.90964.
    @Test("two campaigns: the variances, weights and pooled LTVs computed by hand")
    func handComputed() throws {
        let result = CampaignPooling.pool([
            "A": [Cohort(installs: 100, revenue: 100), Cohort(installs: 100, revenue: 140)],
            "B": [Cohort(installs: 20, revenue: 60), Cohort(installs: 20, revenue: 60)],
        ])
        #expect(abs(try #require(result.networkLTV) - 1.5) < 1e-12)
        #expect(abs(try #require(result.withinVariance) - 4) < 1e-12)
        #expect(abs(try #require(result.betweenVariance) - 1.56) < 1e-9)
        let a = try #require(result.estimates["A"]), b = try #require(result.estimates["B"])
        #expect(abs(a.weight - 1.56 / 1.58) < 1e-9)
        #expect(abs(b.weight - 1.56 / 1.66) < 1e-9)
        #expect(abs(b.pooled - (b.weight * 3 + (1 - b.weight) * 1.5)) < 1e-12)
        #expect(abs(b.pooled - 2.909639) < 1e-6)
        // The smaller campaign leans more on its network, and pooling moves it toward the network.
        #expect(b.weight < a.weight)
        #expect(b.pooled < 3 && b.pooled > 1.5)
        let se = (b.weight * 4 / 40 + (1 - b.weight) * (1 - b.weight) * 4 / 240).squareRoot()
        #expect(abs(b.standardError - se) < 1e-12)
    }

    @Test("campaigns no more different than their noise take the network's LTV (weight 0)")
    func fullPooling() throws {
        let result = CampaignPooling.pool([
            "A": [Cohort(installs: 50, revenue: 0), Cohort(installs: 50, revenue: 100)],
            "B": [Cohort(installs: 50, revenue: 100), Cohort(installs: 50, revenue: 0)],
        ])
        #expect(result.betweenVariance == 0)
        let a = try #require(result.estimates["A"])
        #expect(a.weight == 0)
        #expect(abs(a.pooled - 1) < 1e-12)
    }

    @Test("one campaign, or cohorts that cannot measure the noise, keep their own LTV (weight 1)")
    func nothingToPoolWith() throws {
        let alone = CampaignPooling.pool(["A": [Cohort(installs: 10, revenue: 5), Cohort(installs: 10, revenue: 15)]])
        #expect(alone.estimates["A"]?.weight == 1)
        #expect(alone.estimates["A"]?.pooled == 1)
        let single = CampaignPooling.pool(["A": [Cohort(installs: 10, revenue: 5)], "B": [Cohort(installs: 30, revenue: 60)]])
        #expect(single.withinVariance == nil)
        #expect(single.estimates["B"]?.weight == 1)
        #expect(single.estimates["B"]?.pooled == 2)
    }

    @Test("a campaign without a mature cohort gets the network's LTV and the campaigns' spread")
    func noMatureCohort() throws {
        let result = CampaignPooling.pool([
            "A": [Cohort(installs: 100, revenue: 100), Cohort(installs: 100, revenue: 140)],
            "B": [Cohort(installs: 20, revenue: 60), Cohort(installs: 20, revenue: 60)],
            "C": [],
        ])
        let c = try #require(result.estimates["C"])
        #expect(c.observed == nil && c.weight == 0 && c.installs == 0)
        #expect(abs(c.pooled - 1.5) < 1e-12)
        #expect(c.standardError > 1)
    }

    /// The network's LTV_D180 $4.00 [$3.00-$6.00] and LTV_D7 $1.50; a campaign pooled at $3.00 with
    /// a standard error of $0.50: $8.00, low 3.00 x (3.00 - 0.6408) / 1.50 = $4.7184, high 6.00 x
    /// (3.00 + 0.6408) / 1.50 = $14.5632.
    @Test("the projection scales the network's by the pooled LTV, widened by its standard error")
    func projection() {
        let estimate = CampaignPooling.Estimate(installs: 40, observed: 3.2, pooled: 3, weight: 0.5, standardError: 0.5)
        let projected = CampaignPooling.project(estimate, networkLTV: 1.5, projection: 4, low: 3, high: 6)
        #expect(abs(projected.ltv - 8) < 1e-12)
        #expect(abs(projected.low - 4.7184) < 1e-9)
        #expect(abs(projected.high - 14.5632) < 1e-9)
        let flat = CampaignPooling.project(estimate, networkLTV: 0, projection: 4, low: 3, high: 6)
        #expect(flat.ltv == 4 && flat.low == 3 && flat.high == 6)
    }

    @Test("the reason says the campaign's own LTV, the pooled one and the weight of its own data")
    func reasonPrefix() {
        let estimate = CampaignPooling.Estimate(installs: 40, observed: 3.714, pooled: 3.5, weight: 0.254, standardError: 0.5)
        #expect(CampaignPooling.reasonPrefix(network: "adnova", estimate)
            == "pooled with adnova: LTV_D7 $3.71 own, $3.50 pooled (its own data weigh 25%); ")
        let none = CampaignPooling.Estimate(installs: 0, observed: nil, pooled: 1.5, weight: 0, standardError: 1)
        #expect(CampaignPooling.reasonPrefix(network: "vistamob", none)
            == "pooled with vistamob: LTV_D7 none own, $1.50 pooled (its own data weigh 0%); ")
    }
}
