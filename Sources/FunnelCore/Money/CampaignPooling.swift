import Foundation

/// A campaign's LTV pooled toward its network (docs/metrics.md, "Money by campaign"): an
/// empirical-Bayes estimate from the campaigns' install-date cohorts mature for the pooling day.
/// Each cohort j of campaign c is a sample of n_j installs whose revenue per install y_j varies
/// around the campaign's mean with variance sigma^2 / n_j; the campaigns' means vary around the
/// network's with variance tau^2. Both are estimated by the method of moments (one-way random
/// effects with unequal sizes): sigma^2 from the spread of a campaign's cohorts around its mean,
/// pooled over the campaigns; tau^2 = max(0, (Q - (C - 1) sigma^2) / (N - sum n_c^2 / N)), Q the
/// install-weighted spread of the campaigns' means around the network's. A campaign's own data
/// weigh w = tau^2 / (tau^2 + sigma^2 / n_c): the pooled LTV is w x its own + (1 - w) x the
/// network's, with standard error sqrt(w sigma^2 / n_c + (1 - w)^2 sigma^2 / N).
public enum CampaignPooling {
    /// The day whose LTV is pooled: every cohort a week old counts.
    public static let day = 7

    /// One install-date cohort of a campaign: its installs and its revenue on days 0..`day`.
    public struct Cohort: Sendable, Equatable {
        public var installs: Int
        public var revenue: Double

        public init(installs: Int, revenue: Double) {
            self.installs = installs
            self.revenue = revenue
        }
    }

    /// A campaign's pooled LTV.
    public struct Estimate: Sendable, Equatable {
        /// Installs of the cohorts mature for the pooling day.
        public var installs: Int
        /// The campaign's own LTV on the pooling day (nil without a mature cohort).
        public var observed: Double?
        public var pooled: Double
        /// The weight of the campaign's own data (0: the network's LTV, 1: its own).
        public var weight: Double
        public var standardError: Double

        public init(installs: Int, observed: Double?, pooled: Double, weight: Double, standardError: Double) {
            self.installs = installs
            self.observed = observed
            self.pooled = pooled
            self.weight = weight
            self.standardError = standardError
        }
    }

    /// The network's LTV on the pooling day, the two variances, and each campaign's estimate.
    public struct Result: Sendable, Equatable {
        public var networkLTV: Double?
        public var withinVariance: Double?
        public var betweenVariance: Double?
        public var estimates: [String: Estimate]
    }

    /// Pools the campaigns of one network, keyed by campaign.
    public static func pool(_ campaigns: [String: [Cohort]]) -> Result {
        let sizes = campaigns.mapValues { $0.reduce(0) { $0 + $1.installs } }
        let total = sizes.values.reduce(0, +)
        guard total > 0 else {
            return Result(networkLTV: nil, withinVariance: nil, betweenVariance: nil, estimates: [:])
        }
        let revenue = campaigns.values.joined().reduce(0) { $0 + $1.revenue }
        let mean = revenue / Double(total)
        var means: [String: Double] = [:]
        var within = 0.0, withinDegrees = 0
        for (key, cohorts) in campaigns {
            let n = sizes[key] ?? 0
            guard n > 0 else { continue }
            let own = cohorts.reduce(0) { $0 + $1.revenue } / Double(n)
            means[key] = own
            let filled = cohorts.filter { $0.installs > 0 }
            for cohort in filled {
                let y = cohort.revenue / Double(cohort.installs)
                within += Double(cohort.installs) * (y - own) * (y - own)
            }
            withinDegrees += max(filled.count - 1, 0)
        }
        let sigma2: Double? = withinDegrees > 0 ? within / Double(withinDegrees) : nil
        var tau2: Double?
        if let sigma2, means.count >= 2 {
            let q = means.reduce(0) { $0 + Double(sizes[$1.key]!) * ($1.value - mean) * ($1.value - mean) }
            let squares = means.keys.reduce(0.0) { $0 + Double(sizes[$1]!) * Double(sizes[$1]!) }
            let scale = Double(total) - squares / Double(total)
            tau2 = scale > 0 ? max(0, (q - Double(means.count - 1) * sigma2) / scale) : nil
        }
        var estimates: [String: Estimate] = [:]
        for key in campaigns.keys {
            let n = sizes[key] ?? 0
            guard let own = means[key] else {
                let spread = (tau2 ?? 0) + (sigma2 ?? 0) / Double(total)
                estimates[key] = Estimate(installs: 0, observed: nil, pooled: mean, weight: 0,
                                          standardError: spread.squareRoot())
                continue
            }
            guard let sigma2, let tau2 else {
                // Nothing to pool with (one campaign, or no cohort spread to measure noise by):
                // the campaign's own figure stands, with the noise of its own cohorts when known.
                let error = sigma2.map { ($0 / Double(n)).squareRoot() } ?? 0
                estimates[key] = Estimate(installs: n, observed: own, pooled: own, weight: 1, standardError: error)
                continue
            }
            let noise = sigma2 / Double(n)
            let weight = tau2 + noise > 0 ? tau2 / (tau2 + noise) : 1
            let variance = weight * noise + (1 - weight) * (1 - weight) * sigma2 / Double(total)
            estimates[key] = Estimate(installs: n, observed: own, pooled: weight * own + (1 - weight) * mean,
                                      weight: weight, standardError: variance.squareRoot())
        }
        return Result(networkLTV: mean, withinVariance: sigma2, betweenVariance: tau2, estimates: estimates)
    }

    /// The start of a campaign's verdict reason: how its LTV was pooled with its network's, e.g.
    /// "pooled with adnova: LTV_D7 $3.71 own, $3.50 pooled (its own data weigh 0%); ".
    public static func reasonPrefix(network: String, _ estimate: Estimate) -> String {
        String(format: "pooled with %@: LTV_D%d %@ own, $%.2f pooled (its own data weigh %.0f%%); ", network, day,
               estimate.observed.map { String(format: "$%.2f", $0) } ?? "none", estimate.pooled, 100 * estimate.weight)
    }

    /// A campaign's LTV at the horizon: its network's projection (and interval ends) scaled by
    /// the campaign's pooled LTV over the network's on the pooling day; the low and high ends by
    /// the pooled LTV less and plus z standard errors (z = 1.2816, the 80% interval), so the
    /// interval holds both the network's uncertainty and the campaign's. The network's own
    /// projection when its LTV on the pooling day is not positive.
    public static func project(_ estimate: Estimate, networkLTV: Double?, projection: Double, low: Double,
                               high: Double) -> (ltv: Double, low: Double, high: Double) {
        guard let base = networkLTV, base > 0 else { return (projection, low, high) }
        let z = 1.2816
        let ratio = estimate.pooled / base
        let lowRatio = max(0, estimate.pooled - z * estimate.standardError) / base
        let highRatio = (estimate.pooled + z * estimate.standardError) / base
        return (projection * ratio, min(low * lowRatio, projection * ratio), max(high * highRatio, projection * ratio))
    }
}
